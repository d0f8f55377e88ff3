import { useState } from 'preact/hooks';
import { ROLES, type Role } from '../../../src/auth/permissions.ts';
import { call, problemFields, roleOf, type Session } from '../session.ts';
import type { OperationOutput } from '../../../clients/typescript/src/index.ts';
import { Badge, BusyButton, ErrorBox, Field, ListFooter, LoadState, poll, Progress, useAction, useLoad, usePaged, when } from '../ui.tsx';

/**
 * The organization's settings: its name, API keys, OAuth clients and members (the identity.* operations and
 * webhooks.*OAuthClient, all under webhooks.write, which owners and admins hold). Only an owner grants the owner
 * role or touches an owner's key or membership: a signed-in admin is not offered those; an API key's role is not
 * told, so the service's refusal is shown instead. An owner can take everything the organization owns as one
 * archive (identity.exportOrganization, built by a job and followed here until its link is ready). The danger zone schedules (or cancels) the organization's
 * deletion: offered to an owner (or a key), confirmed by typing the organization's name.
 */
export function Settings({ session }: { session: Session }) {
  return (
    <>
      <h1>Settings</h1>
      <OrganizationName session={session} />
      <ApiKeys session={session} />
      <Members session={session} />
      <OAuthClients session={session} />
      <ExportEverything session={session} />
      <DangerZone session={session} />
    </>
  );
}

/** Whether the credential may grant or touch the owner role: a user who is an owner, or an API key (its role is not told). */
const mayTouchOwners = (session: Session) => session.kind !== 'user' || roleOf(session) === 'owner';
/** Least privilege first: a form (and its reset) starts at viewer. */
const BY_PRIVILEGE: Role[] = [...ROLES].reverse();
const grantable = (session: Session): Role[] => BY_PRIVILEGE.filter((r) => r !== 'owner' || mayTouchOwners(session));

const fieldsOf = (error: unknown) => (error ? problemFields(error) : { byField: {} as Record<string, string>, general: null as string | null });

/** A secret shown once, with a button that copies it. */
function Secret({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="notice secret" role="status" data-secret>
      <p>
        <strong>{label}</strong> It is shown only this once: copy it now.
      </p>
      <code data-secret-value>{value}</code>
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            navigator.clipboard?.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

const scopesOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

function OrganizationName({ session }: { session: Session }) {
  const org = useLoad(() => call(session, 'identity.getOrganization', {}), [session]);
  const action = useAction();
  const errors = fieldsOf(action.error);
  const submit = async (e: Event) => {
    e.preventDefault();
    const name = String(new FormData(e.target as HTMLFormElement).get('name') ?? '');
    if (await action.run('Renaming…', () => call(session, 'identity.renameOrganization', { name }))) org.reload();
  };
  return (
    <section class="card" data-section="organization">
      <h2>Organization</h2>
      <LoadState state={org} what="the organization" />
      {org.data ? (
        <form class="action-form" onSubmit={submit} noValidate>
          <p class="muted">
            {org.data.id} · plan {org.data.plan} · times in {org.data.timeZone ?? 'UTC'}
          </p>
          <Field label="Name" name="name" error={errors.byField.name}>
            <input name="name" defaultValue={org.data.name} key={org.data.name} required maxLength={200} />
          </Field>
          {errors.general ? (
            <p class="error" role="alert">
              {errors.general}
            </p>
          ) : null}
          <BusyButton type="submit" busy={action.busy} busyLabel="Renaming…">
            Rename
          </BusyButton>
        </form>
      ) : null}
    </section>
  );
}

function ApiKeys({ session }: { session: Session }) {
  const [revoked, setRevoked] = useState(false);
  const list = usePaged((cursor) => call(session, 'identity.listApiKeys', { filter: { includeRevoked: revoked }, page: { limit: 50, ...(cursor ? { cursor } : {}) } }), [session, revoked]);
  const [secret, setSecret] = useState<string | null>(null);
  const create = useAction();
  const revoke = useAction();
  const errors = fieldsOf(create.error);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const f = new FormData(form);
    const label = String(f.get('label') ?? '').trim();
    const key = await create.run('Creating the key…', () =>
      call(session, 'identity.createApiKey', { role: String(f.get('role')) as Role, scopes: scopesOf(String(f.get('scopes') ?? '')), ...(label ? { label } : {}) }),
    );
    if (key) {
      form.reset();
      setSecret(key.apiKey);
      list.reload();
    }
  };
  return (
    <section class="card" data-section="api-keys">
      <h2>API keys</h2>
      {secret ? <Secret label="The new API key." value={secret} onDone={() => setSecret(null)} /> : null}
      <form class="action-form" data-form="api-key" onSubmit={submit} noValidate>
        <Field label="Role" name="role" error={errors.byField.role}>
          <select name="role">
            {grantable(session).map((r) => (
              <option value={r}>{r}</option>
            ))}
          </select>
        </Field>
        <Field label="Scopes (optional: permissions or patterns such as inventory.*, comma-separated)" name="scopes" error={errors.byField.scopes}>
          <input name="scopes" autocomplete="off" placeholder="all of the role" />
        </Field>
        <Field label="Label" name="label" error={errors.byField.label}>
          <input name="label" autocomplete="off" placeholder="what uses it" />
        </Field>
        {errors.general ? (
          <p class="error" role="alert">
            {errors.general}
          </p>
        ) : null}
        <BusyButton type="submit" busy={create.busy} busyLabel="Creating…">
          Create key
        </BusyButton>
      </form>
      <div class="filters">
        <label>
          <input type="checkbox" checked={revoked} onChange={(e) => setRevoked((e.target as HTMLInputElement).checked)} /> Show revoked keys
        </label>
      </div>
      <ErrorBox error={list.error ?? revoke.error} />
      <div class="table-wrap">
        <table class="list" data-list="api-keys">
          <thead>
            <tr>
              <th>Key</th>
              <th>Role</th>
              <th class="hide-narrow">Scopes</th>
              <th class="hide-narrow">Created</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((k) => (
              <tr data-key={k.id}>
                <td>
                  {k.label ?? <span class="muted">no label</span>}
                  <br />
                  <small class="muted">{k.id}</small>
                </td>
                <td>
                  <Badge>{k.role}</Badge>
                </td>
                <td class="hide-narrow">{k.scopes.length ? k.scopes.join(', ') : <span class="muted">all of the role</span>}</td>
                <td class="hide-narrow">{when(k.createdAt)}</td>
                <td>
                  {k.revokedAt ? (
                    <Badge tone="bad">revoked</Badge>
                  ) : k.role !== 'owner' || mayTouchOwners(session) ? (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Revoke ${k.label ?? k.id}`}
                      disabled={revoke.busy}
                      onClick={async () => {
                        if (!confirm(`Revoke ${k.label ?? k.id}? Anything using it stops at once.`)) return;
                        if (await revoke.run('Revoking…', () => call(session, 'identity.revokeApiKey', { id: k.id }))) list.reload();
                      }}
                    >
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ListFooter list={list} what="API keys" />
    </section>
  );
}

function Members({ session }: { session: Session }) {
  const list = usePaged((cursor) => call(session, 'identity.listMembers', { page: { limit: 50, ...(cursor ? { cursor } : {}) } }), [session]);
  const [invite, setInvite] = useState<string | null>(null);
  const add = useAction();
  const change = useAction();
  const errors = fieldsOf(add.error);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const f = new FormData(form);
    const member = await add.run('Adding…', () => call(session, 'identity.addMember', { email: String(f.get('email') ?? ''), role: String(f.get('role')) as Role }));
    if (member) {
      form.reset();
      setInvite(member.loginToken ? `${location.origin}${location.pathname}#loginToken=${member.loginToken}` : null);
      list.reload();
    }
  };
  return (
    <section class="card" data-section="members">
      <h2>Members</h2>
      {invite ? <Secret label="The new user’s one-time sign-in link (24 hours): send it to them." value={invite} onDone={() => setInvite(null)} /> : null}
      <form class="action-form" data-form="member" onSubmit={submit} noValidate>
        <Field label="Email" name="email" error={errors.byField.email}>
          <input name="email" type="email" autocomplete="off" required />
        </Field>
        <Field label="Role" name="role" error={errors.byField.role}>
          <select name="role">
            {grantable(session).map((r) => (
              <option value={r}>{r}</option>
            ))}
          </select>
        </Field>
        {errors.general ? (
          <p class="error" role="alert">
            {errors.general}
          </p>
        ) : null}
        <BusyButton type="submit" busy={add.busy} busyLabel="Adding…">
          Add member
        </BusyButton>
      </form>
      <ErrorBox error={list.error ?? change.error} />
      <div class="table-wrap">
        <table class="list" data-list="members">
          <thead>
            <tr>
              <th>Email</th>
              <th>Role</th>
              <th class="hide-narrow">Member since</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((m) => {
              const locked = m.role === 'owner' && !mayTouchOwners(session);
              return (
                <tr data-member={m.email}>
                  <td>
                    {m.email}
                    {m.hasPassword ? null : <small class="muted"> (invited)</small>}
                  </td>
                  <td>
                    {locked ? (
                      <Badge>{m.role}</Badge>
                    ) : (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        disabled={change.busy}
                        onChange={async (e) => {
                          const role = (e.target as HTMLSelectElement).value as Role;
                          await change.run('Changing the role…', () => call(session, 'identity.setMemberRole', { userId: m.userId, role }));
                          list.reload();
                        }}
                      >
                        {(m.role === 'owner' ? BY_PRIVILEGE : grantable(session)).map((r) => (
                          <option value={r}>{r}</option>
                        ))}
                      </select>
                    )}
                  </td>
                  <td class="hide-narrow">{when(m.memberSince)}</td>
                  <td>
                    {locked ? null : (
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Remove ${m.email}`}
                        disabled={change.busy}
                        onClick={async () => {
                          if (!confirm(`Remove ${m.email} from this organization?`)) return;
                          if (await change.run('Removing…', () => call(session, 'identity.removeMember', { userId: m.userId }))) list.reload();
                        }}
                      >
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ListFooter list={list} what="members" />
    </section>
  );
}

function OAuthClients({ session }: { session: Session }) {
  const list = usePaged((cursor) => call(session, 'webhooks.listOAuthClients', { filter: {}, page: { limit: 50, ...(cursor ? { cursor } : {}) } }), [session]);
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  const create = useAction();
  const revoke = useAction();
  const errors = fieldsOf(create.error);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const f = new FormData(form);
    const label = String(f.get('label') ?? '').trim();
    const client = await create.run('Creating the client…', () =>
      call(session, 'webhooks.createOAuthClient', { role: String(f.get('role')) as Role, scopes: scopesOf(String(f.get('scopes') ?? '')), ...(label ? { label } : {}) }),
    );
    if (client) {
      form.reset();
      setSecret({ id: client.clientId, secret: client.clientSecret });
      list.reload();
    }
  };
  return (
    <section class="card" data-section="oauth-clients">
      <h2>OAuth clients</h2>
      <p class="muted">For integrations using the client credentials grant at /api/auth/oauth2/token.</p>
      {secret ? <Secret label={`Client ${secret.id}: its secret.`} value={secret.secret} onDone={() => setSecret(null)} /> : null}
      <form class="action-form" data-form="oauth-client" onSubmit={submit} noValidate>
        <Field label="Role" name="role" error={errors.byField.role}>
          <select name="role">
            {BY_PRIVILEGE.map((r) => (
              <option value={r}>{r}</option>
            ))}
          </select>
        </Field>
        <Field label="Scopes (optional, comma-separated)" name="scopes" error={errors.byField.scopes}>
          <input name="scopes" autocomplete="off" placeholder="all of the role" />
        </Field>
        <Field label="Label" name="label" error={errors.byField.label}>
          <input name="label" autocomplete="off" />
        </Field>
        {errors.general ? (
          <p class="error" role="alert">
            {errors.general}
          </p>
        ) : null}
        <BusyButton type="submit" busy={create.busy} busyLabel="Creating…">
          Create client
        </BusyButton>
      </form>
      <ErrorBox error={list.error ?? revoke.error} />
      <div class="table-wrap">
        <table class="list" data-list="oauth-clients">
          <thead>
            <tr>
              <th>Client</th>
              <th>Role</th>
              <th class="hide-narrow">Created</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((c) => (
              <tr data-client={c.clientId}>
                <td>
                  {c.label ?? <span class="muted">no label</span>}
                  <br />
                  <small class="muted">{c.clientId}</small>
                </td>
                <td>
                  <Badge>{c.role}</Badge>
                </td>
                <td class="hide-narrow">{when(c.createdAt)}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Revoke ${c.label ?? c.clientId}`}
                    disabled={revoke.busy}
                    onClick={async () => {
                      if (!confirm(`Revoke ${c.label ?? c.clientId}?`)) return;
                      if (await revoke.run('Revoking…', () => call(session, 'webhooks.revokeOAuthClient', { id: c.clientId }))) list.reload();
                    }}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ListFooter list={list} what="OAuth clients" />
    </section>
  );
}

type OrganizationExport = OperationOutput<'identity.getOrganizationExport'>;
const EXPORT_STEP: Record<OrganizationExport['status'], [string, number]> = {
  queued: ['Export queued…', 1 / 3],
  building: ['Building the archive…', 2 / 3],
  ready: ['Archive ready', 1],
  failed: ['Export failed', 1],
};

const size = (bytes: number) => (bytes < 1_048_576 ? `${Math.max(1, Math.round(bytes / 1024))} kB` : `${(bytes / 1_048_576).toFixed(1)} MB`);
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Everything the organization owns as one archive (JSON per table and its files), for an owner to keep or to leave with. */
function ExportEverything({ session }: { session: Session }) {
  const [done, setDone] = useState<OrganizationExport | null>(null);
  const action = useAction();
  if (!mayTouchOwners(session)) return null;
  const start = () =>
    action.run(EXPORT_STEP.queued[0], async (progress, signal) => {
      setDone(null);
      const { id } = await call(session, 'identity.exportOrganization', {});
      const last = await poll(
        () => call(session, 'identity.getOrganizationExport', { id }),
        (e) => e.status === 'ready' || e.status === 'failed',
        (e) => progress(...EXPORT_STEP[e.status]),
        { signal },
      );
      setDone(last);
    });
  return (
    <section class="card" data-section="organization-export">
      <h2>Export everything</h2>
      <p class="muted">
        One archive (.tar.gz) of everything the organization owns: every table as JSON and every stored file. Only an owner can ask for it; the
        link works for 15 minutes (ask again for a new one).
      </p>
      {action.pending ? <Progress label={action.pending.label} value={action.pending.value} /> : null}
      <ErrorBox error={action.error} />
      {done?.status === 'ready' && done.download ? (
        <p role="status" data-export-ready>
          <a href={done.download.url} download>
            Download the archive
          </a>{' '}
          <span class="muted">
            ({size(done.sizeBytes ?? 0)}, {Object.keys(done.contents?.tables ?? {}).length} tables, {plural(done.contents?.blobs ?? 0, 'file')}; until{' '}
            {when(done.download.expiresAt)})
          </span>
        </p>
      ) : null}
      {done?.status === 'failed' ? (
        <p class="error" role="alert">
          The export failed: {done.failureReason}
        </p>
      ) : null}
      <BusyButton busy={action.busy} busyLabel="Exporting…" onClick={() => void start()}>
        Export everything
      </BusyButton>
    </section>
  );
}

/**
 * Deleting the organization: scheduled after typing its exact name, purged after the grace period unless an owner
 * cancels it here before (identity.scheduleOrganizationDeletion / cancelOrganizationDeletion, owners only).
 */
function DangerZone({ session }: { session: Session }) {
  const org = useLoad(() => call(session, 'identity.getOrganization', {}), [session]);
  const action = useAction();
  const errors = fieldsOf(action.error);
  const [typed, setTyped] = useState('');
  if (!mayTouchOwners(session)) return null;
  const schedule = async (e: Event) => {
    e.preventDefault();
    if (await action.run('Scheduling…', () => call(session, 'identity.scheduleOrganizationDeletion', { confirm: typed }))) {
      setTyped('');
      org.reload();
    }
  };
  const cancel = async () => {
    if (await action.run('Cancelling…', () => call(session, 'identity.cancelOrganizationDeletion', {}))) org.reload();
  };
  const deletion = org.data?.deletion ?? null;
  return (
    <section class="card danger" data-section="danger-zone">
      <h2>Danger zone</h2>
      <LoadState state={org} what="the organization" />
      {org.data && deletion ? (
        <div class="notice" role="status" data-deletion-scheduled>
          <p>
            <strong>This organization is scheduled for deletion.</strong> Everything it owns (stock, ledgers, roasts, certificates, keys, members,
            files) is deleted for good after {new Date(deletion.purgeAfter).toLocaleString()}. Until then it works as before.
          </p>
          {errors.general ? (
            <p class="error" role="alert">
              {errors.general}
            </p>
          ) : null}
          <BusyButton type="button" busy={action.busy} busyLabel="Cancelling…" onClick={cancel}>
            Cancel the deletion
          </BusyButton>
        </div>
      ) : null}
      {org.data && !deletion ? (
        <form class="action-form" onSubmit={schedule} noValidate>
          <p class="muted">
            Delete the organization and everything it owns, after a grace period in which an owner can cancel. Export its data first (above). Only an owner can do this.
          </p>
          <Field label={`Type the organization's name, ${org.data.name}, to confirm`} name="confirm" error={errors.byField.confirm}>
            <input name="confirm" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} autoComplete="off" />
          </Field>
          {errors.general ? (
            <p class="error" role="alert">
              {errors.general}
            </p>
          ) : null}
          <BusyButton type="submit" class="danger" busy={action.busy} busyLabel="Scheduling…" disabled={typed !== org.data.name}>
            Delete this organization
          </BusyButton>
        </form>
      ) : null}
    </section>
  );
}
