import { useState } from 'preact/hooks';
import type { AreaProps } from '../areas.tsx';
import { SubNav } from '../areas.tsx';
import { SpecForm } from '../crud.tsx';
import { compact, DataList } from '../list.tsx';
import { call, can, type Session } from '../session.ts';
import { Badge, BusyButton, ErrorBox, Link, LoadState, useAction, useLoad, when } from '../ui.tsx';

const page = (cursor: string | undefined, limit: number) => ({ limit, ...(cursor ? { cursor } : {}) });

/** A signing secret is shown once: when the endpoint is created and when it is rotated. */
function Secret({ secret, note }: { secret: string; note: string }) {
  return (
    <div class="notice" role="status" data-secret>
      {note} It is shown this once: copy it now.
      <div class="secret">
        <code>{secret}</code>
      </div>
    </div>
  );
}

function Endpoints({ session }: { session: Session }) {
  const [version, setVersion] = useState(0);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ secret: string; note: string } | null>(null);
  const types = useLoad(() => call(session, 'webhooks.listEventTypes', {}), [session]);
  const rotate = useAction();
  const toggle = useAction();
  const writable = can(session, 'webhooks.write');
  return (
    <>
      {secret ? <Secret {...secret} /> : null}
      {writable ? (
        creating ? (
          <SpecForm
            name="new-endpoint"
            title="New endpoint"
            submit="Create"
            busyLabel="Creating…"
            fields={[
              { name: 'url', label: 'URL (https)', required: true },
              { name: 'description', label: 'Description' },
              { name: 'eventTypes', label: 'Events (none chosen: every event)', type: 'multi', options: (types.data?.items ?? []).map((t) => [t.type, t.type]) },
            ]}
            run={(input) => call(session, 'webhooks.createEndpoint', input as never)}
            done={(e: any) => {
              setSecret({ secret: e.secret, note: `The signing secret of ${e.url}.` });
              setCreating(false);
              setVersion((n) => n + 1);
            }}
            onCancel={() => setCreating(false)}
          />
        ) : (
          <div class="actions">
            <button type="button" onClick={() => (setCreating(true), setSecret(null))}>
              New endpoint
            </button>
          </div>
        )
      ) : null}
      <ErrorBox error={rotate.error ?? toggle.error} />
      <DataList
        name="endpoints"
        what="endpoints"
        deps={[session, version]}
        filters={[{ name: 'status', label: 'Status', type: 'select', options: [['', 'any status'], ['active', 'active'], ['disabled', 'disabled']] }]}
        load={(f, cursor, limit) => call(session, 'webhooks.listEndpoints', { filter: compact(f) as never, page: page(cursor, limit) })}
        columns={[
          { label: 'URL', key: 'url', render: (r) => <Link to={`/webhooks/deliveries/${r.id}`}>{r.url}</Link> },
          { label: 'Events', csv: (r) => r.eventTypes.join(' '), render: (r) => (r.eventTypes.length ? r.eventTypes.join(', ') : 'every event'), wide: true },
          {
            label: 'Status',
            key: 'status',
            render: (r) => (
              <>
                <Badge tone={r.status === 'active' ? 'ok' : 'bad'}>{r.status}</Badge> {r.disabledReason === 'failing' ? <span class="muted">failing since {when(r.failingSince)}</span> : null}
              </>
            ),
          },
          ...(writable
            ? [
                {
                  label: 'Actions',
                  noCsv: true,
                  render: (r: any) => (
                    <span class="row-actions">
                      <BusyButton
                        class="small secondary"
                        busy={false}
                        disabled={rotate.busy}
                        busyLabel="Rotating…"
                        onClick={() =>
                          void rotate.run('Rotating…', () => call(session, 'webhooks.rotateSecret', { id: r.id })).then((e) => e && setSecret({ secret: e.secret, note: `The new signing secret of ${e.url}; the old one works until ${when(e.previousSecretExpiresAt)}.` }))
                        }
                      >
                        Rotate secret
                      </BusyButton>
                      <BusyButton
                        class="small secondary"
                        busy={false}
                        disabled={toggle.busy}
                        busyLabel="…"
                        onClick={() => void toggle.run('Saving…', () => call(session, 'webhooks.updateEndpoint', { id: r.id, status: r.status === 'active' ? 'disabled' : 'active' })).then((e) => e && setVersion((n) => n + 1))}
                      >
                        {r.status === 'active' ? 'Disable' : 'Enable'}
                      </BusyButton>
                    </span>
                  ),
                },
              ]
            : []),
        ]}
      />
    </>
  );
}

function Deliveries({ session, endpointId }: { session: Session; endpointId?: string }) {
  const [open, setOpen] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const redeliver = useAction();
  const writable = can(session, 'webhooks.write');
  return (
    <>
      {endpointId ? (
        <p>
          One endpoint's deliveries. <Link to="/webhooks/deliveries">Every endpoint</Link>
        </p>
      ) : null}
      <ErrorBox error={redeliver.error} />
      <DataList
        name="deliveries"
        what="deliveries"
        deps={[session, endpointId, version]}
        filters={[{ name: 'status', label: 'Status', type: 'select', options: [['', 'any status'], ['pending', 'pending'], ['succeeded', 'succeeded'], ['failed', 'failed'], ['canceled', 'canceled']] }]}
        load={(f, cursor, limit) => call(session, 'webhooks.listDeliveries', { filter: { ...compact(f), ...(endpointId ? { endpointId } : {}) } as never, page: page(cursor, limit) })}
        columns={[
          { label: 'Event', key: 'eventType' },
          { label: 'Status', key: 'status', render: (r) => <Badge tone={r.status === 'succeeded' ? 'ok' : r.status === 'failed' ? 'bad' : 'warn'}>{r.status}</Badge> },
          {
            label: 'Attempts',
            csv: (r) => r.attemptCount,
            render: (r) => (
              <>
                <button type="button" class="link" aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? null : r.id)}>
                  {r.attemptCount} attempt{r.attemptCount === 1 ? '' : 's'}
                </button>
                {open === r.id ? (
                  <ol class="attempts">
                    {r.attempts.map((a: any) => (
                      <li>
                        {when(a.startedAt)} · {a.statusCode ?? a.error ?? 'no answer'} · {a.latencyMs} ms {a.succeeded ? <Badge tone="ok">ok</Badge> : <Badge tone="bad">failed</Badge>}
                      </li>
                    ))}
                  </ol>
                ) : null}
              </>
            ),
          },
          { label: 'Created', csv: (r) => r.createdAt, render: (r) => when(r.createdAt), wide: true },
          ...(writable
            ? [
                {
                  label: 'Actions',
                  noCsv: true,
                  render: (r: any) => (
                    <BusyButton class="small secondary" busy={false} disabled={redeliver.busy} busyLabel="…" onClick={() => void redeliver.run('Redelivering…', () => call(session, 'webhooks.redeliver', { id: r.id })).then((d) => d && setVersion((n) => n + 1))}>
                      Redeliver
                    </BusyButton>
                  ),
                },
              ]
            : []),
        ]}
      />
    </>
  );
}

/** The event feed: what happened in the organization, newest last, paged by its own cursor. */
function Events({ session }: { session: Session }) {
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const feed = useLoad(() => call(session, 'webhooks.listEvents', { limit: 50, ...(cursor ? { cursor } : {}) }), [session, cursor]);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <>
      <LoadState state={feed} what="events" />
      {feed.data?.items.length === 0 ? <p class="muted">No events.</p> : null}
      {feed.data?.items.length ? (
        <div class="table-wrap">
          <table class="list" data-list="events">
            <thead>
              <tr>
                <th>Type</th>
                <th>When</th>
                <th>Data</th>
              </tr>
            </thead>
            <tbody>
              {feed.data.items.map((e) => (
                <tr>
                  <td class="code">{e.type}</td>
                  <td>{when(e.createdAt)}</td>
                  <td>
                    <button type="button" class="link" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>
                      {open === e.id ? 'hide' : 'show'}
                    </button>
                    {open === e.id ? <pre class="json">{JSON.stringify(e.data, null, 2)}</pre> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {feed.data?.nextCursor ? (
        <button type="button" class="secondary more" onClick={() => setCursor(feed.data!.nextCursor!)}>
          Newer events
        </button>
      ) : null}
    </>
  );
}

export function view({ session, parts: [, tab, id] }: AreaProps) {
  const tabs: [string, string][] = [
    ['endpoints', 'Endpoints'],
    ['deliveries', 'Deliveries'],
    ['events', 'Event feed'],
  ];
  const current = tabs.find(([t]) => t === tab) ?? tabs[0]!;
  return (
    <>
      <h1>Webhook {current[1].toLowerCase()}</h1>
      <SubNav current={`/webhooks/${current[0]}`} items={tabs.map(([t, l]) => [`/webhooks/${t}`, l])} />
      {current[0] === 'endpoints' ? <Endpoints session={session} /> : current[0] === 'deliveries' ? <Deliveries session={session} endpointId={id} /> : <Events session={session} />}
    </>
  );
}
