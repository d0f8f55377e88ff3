import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { can, loadSession, loginWithApiKey, loginWithLink, loginWithPassword, LoginError, logout, roleOf, saveSession, switchOrganization, type Session } from './session.ts';
import type { Permission } from '../../src/auth/permissions.ts';
import { BusyButton, Field, Link, useAction } from './ui.tsx';
import { Dashboard } from './pages/dashboard.tsx';
import { LotDetail, Lots, RoastedLots } from './pages/lots.tsx';
import { BatchPage, Batches } from './pages/batches.tsx';
import { OrderDetail, Orders } from './pages/orders.tsx';
import { TracePage } from './pages/trace.tsx';
import { Certificates } from './pages/certificates.tsx';
import { Reports } from './pages/reports.tsx';
import { Imports } from './pages/imports.tsx';

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

function route(path: string, session: Session) {
  const parts = path.split('?')[0].split('/').filter(Boolean).map(decodeURIComponent);
  const [head, a, b] = parts;
  switch (head) {
    case undefined:
      return <Dashboard session={session} />;
    case 'lots':
      return a ? <LotDetail key={a} session={session} id={a} /> : <Lots session={session} />;
    case 'roasted':
      return <RoastedLots session={session} />;
    case 'batches':
      return a ? <BatchPage key={a} session={session} id={a} /> : <Batches session={session} />;
    case 'orders':
      return a ? <OrderDetail key={a} session={session} id={a} /> : <Orders session={session} />;
    case 'trace':
      return <TracePage session={session} kind={a as never} id={b} />;
    case 'certificates':
      return <Certificates session={session} />;
    case 'reports':
      return <Reports session={session} />;
    case 'imports':
      return <Imports session={session} />;
    default:
      return <p>No page here. <Link to="/">Dashboard</Link></p>;
  }
}

/** Each page and the permission its list needs: a page the credential may not read is not offered. */
const NAV: [string, string, Permission | null][] = [
  ['/', 'Dashboard', null],
  ['/lots', 'Green lots', 'inventory.green.read'],
  ['/roasted', 'Roasted lots', 'inventory.roast.read'],
  ['/batches', 'Roasts', 'production.roast.read'],
  ['/orders', 'Orders', 'orders.read'],
  ['/certificates', 'Certificates', 'traceability.read'],
  ['/reports', 'Reports', 'reporting.read'],
  ['/imports', 'Imports', 'inventory.green.write'],
];

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const path = useHashPath();
  const [menu, setMenu] = useState(false);
  useEffect(() => setMenu(false), [path]);
  const update = (next: Session | null) => {
    saveSession(next);
    setSession(next);
  };
  if (!session) return <Login onSession={update} />;
  const role = roleOf(session);
  const section = '/' + (path.split('/')[1] ?? '');
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
          {NAV.filter(([, , permission]) => !permission || can(session, permission)).map(([to, label]) => (
            <a href={'#' + to} class={section === (to === '/' ? '/' : to) ? 'current' : ''} aria-current={section === to ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <div class="who">
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
      <main key={session.orgId ?? ''}>{route(path, session)}</main>
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
