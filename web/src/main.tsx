import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { loadSession, loginWithApiKey, loginWithLink, loginWithPassword, LoginError, logout, roleOf, saveSession, switchOrganization, type Session } from './session.ts';
import { BusyButton, Field, Link, useAction } from './ui.tsx';
import { AreaView, areaFor, navAreas } from './areas.tsx';
import { currentUnits, loadUnits, onUnits, saveUnits, setCurrentUnits, type Units } from './units.ts';

function useHashPath(): string {
  const read = () => location.hash.replace(/^#/, '') || '/';
  const [path, setPath] = useState(read);
  useEffect(() => {
    const on = () => setPath(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return path;
}

/** Whose unit choice this is (units.ts keeps it per user in this browser). */
const unitsOwner = (session: Session) => session.email ?? `api-key:${session.orgId ?? ''}`;

function useUnits(session: Session | null): [Units, (u: Units) => void] {
  const [units, setUnits] = useState<Units>(currentUnits);
  useEffect(() => onUnits(setUnits), []);
  useEffect(() => {
    if (session) setCurrentUnits(loadUnits(unitsOwner(session)));
  }, [session?.email, session?.orgId]);
  return [
    units,
    (next) => {
      if (session) saveUnits(unitsOwner(session), next);
      setCurrentUnits(next);
    },
  ];
}

function UnitsPicker({ units, onChange }: { units: Units; onChange: (u: Units) => void }) {
  return (
    <span class="units">
      <select aria-label="Temperature unit" value={units.temp} onChange={(e) => onChange({ ...units, temp: (e.target as HTMLSelectElement).value as Units['temp'] })}>
        <option value="C">°C</option>
        <option value="F">°F</option>
      </select>
      <select aria-label="Weight unit" value={units.mass} onChange={(e) => onChange({ ...units, mass: (e.target as HTMLSelectElement).value as Units['mass'] })}>
        <option value="kg">kg</option>
        <option value="lb">lb</option>
      </select>
    </span>
  );
}

function Routed({ path, session }: { path: string; session: Session }) {
  const parts = path.split('?')[0].split('/').filter(Boolean).map(decodeURIComponent);
  const area = areaFor(parts[0] ?? '');
  if (!area) return <p>No page here. <Link to="/">Dashboard</Link></p>;
  return <AreaView area={area} session={session} parts={parts} />;
}

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const path = useHashPath();
  const [menu, setMenu] = useState(false);
  const [units, setUnits] = useUnits(session);
  useEffect(() => setMenu(false), [path]);
  const update = (next: Session | null) => {
    saveSession(next);
    setSession(next);
  };
  if (!session) return <Login onSession={update} />;
  const role = roleOf(session);
  const head = path.split('?')[0].split('/')[1] ?? '';
  const here = areaFor(head)?.path ?? head;
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href="#/">
          Firstcrack
        </a>
        <button type="button" class="menu-toggle" aria-expanded={menu} aria-controls="nav" onClick={() => setMenu(!menu)}>
          Menu
        </button>
        <nav id="nav" class={menu ? 'open' : ''}>
          {navAreas(session).map((area) => (
            <a href={'#/' + area.path} class={here === area.path ? 'current' : ''} aria-current={here === area.path ? 'page' : undefined}>
              {area.label}
            </a>
          ))}
        </nav>
        <div class="who">
          <UnitsPicker units={units} onChange={setUnits} />
          {session.kind === 'user' && session.organizations.length > 1 ? (
            <select aria-label="Organization" value={session.orgId ?? ''} onChange={(e) => update(switchOrganization(session, (e.target as HTMLSelectElement).value))}>
              {session.organizations.map((o) => (
                <option value={o.id}>{o.name}</option>
              ))}
            </select>
          ) : (
            <span class="org">{session.kind === 'user' ? session.organizations.find((o) => o.id === session.orgId)?.name : 'API key'}</span>
          )}
          {session.kind === 'user' && role ? <span class="badge">{role}</span> : null}
          <button
            type="button"
            class="link"
            onClick={() => {
              void logout(session);
              update(null);
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main key={`${session.orgId ?? ''}:${units.temp}${units.mass}`}>
        <Routed path={path} session={session} />
      </main>
    </div>
  );
}

/** A one-time login link's token in the address (`/app/#loginToken=fcl_…`), taken out of it at once. */
function takeLoginToken(): string | null {
  const match = /[#&?]loginToken=([\w-]+)/.exec(location.hash);
  if (!match) return null;
  history.replaceState(null, '', location.pathname + '#/');
  return match[1];
}

function Login({ onSession }: { onSession: (s: Session) => void }) {
  const [tab, setTab] = useState<'user' | 'key'>('user');
  const action = useAction();
  const busy = action.busy;
  useEffect(() => {
    const loginToken = takeLoginToken();
    if (!loginToken) return;
    void action.run('Signing in with the link…', () => loginWithLink(loginToken)).then((session) => session && onSession(session));
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const session = await action.run(tab === 'user' ? 'Signing in…' : 'Checking the API key…', () =>
      tab === 'user'
        ? loginWithPassword(String(form.get('email')), String(form.get('password')))
        : loginWithApiKey(String(form.get('token')), String(form.get('orgId') ?? '')),
    );
    if (session) onSession(session);
  };
  const failed = action.error;
  const error = failed
    ? { message: failed instanceof Error ? failed.message : String(failed), field: failed instanceof LoginError ? failed.field : undefined }
    : null;
  const at = (field: string) => (error?.field === field ? error.message : undefined);
  const general = error && !error.field ? error.message : null;
  return (
    <main class="login">
      <h1>Firstcrack</h1>
      <div class="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={tab === 'user'} onClick={() => setTab('user')}>
          Email
        </button>
        <button type="button" role="tab" aria-selected={tab === 'key'} onClick={() => setTab('key')}>
          API key
        </button>
      </div>
      <form onSubmit={submit} class="card">
        {tab === 'user' ? (
          <>
            <Field label="Email" name="email" error={at('email')}>
              <input name="email" type="email" autocomplete="username" required />
            </Field>
            <Field label="Password" name="password" error={at('password')}>
              <input name="password" type="password" autocomplete="current-password" required />
            </Field>
          </>
        ) : (
          <>
            <Field label="API key" name="token" error={at('token')}>
              <input name="token" type="password" autocomplete="off" placeholder="fck_…" required />
            </Field>
            <Field label="Organization id (optional)" name="orgId" error={at('orgId')}>
              <input name="orgId" autocomplete="off" placeholder="org_…" />
            </Field>
          </>
        )}
        {general ? (
          <p class="error" role="alert">
            {general}
          </p>
        ) : null}
        <BusyButton type="submit" busy={busy} busyLabel={action.pending?.label ?? 'Signing in…'}>
          Sign in
        </BusyButton>
      </form>
    </main>
  );
}

render(<App />, document.getElementById('app')!);
