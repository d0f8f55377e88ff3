import type { Session } from './session.ts';

/**
 * Follows a live batch on /stream/v1/roast/{id}. A browser's EventSource cannot send Authorization, so each
 * connection is opened with a stream ticket (POST /stream/v1/roast/{id}/tickets: one batch, one connection, 60 s).
 * When the connection drops, a new ticket is asked for and the stream is reopened from the last message received
 * (`lastEventId`), so nothing is missed and nothing comes twice. A final status (completed, aborted) or a batch that
 * is no longer live (409) ends it.
 */
export interface StreamHandlers {
  sample(data: { t: number; bt: number | null; et: number | null }): void;
  event(data: { type: string; t: number }): void;
  status(state: string): void;
  connection(state: 'connecting' | 'open' | 'reconnecting' | 'ended', detail?: string): void;
}

export interface Follow {
  stop(): void;
  /** Drops the current connection (as a network failure would); the follower resumes by itself. */
  drop(): void;
  lastId(): number;
}

export function followBatch(session: Session, batchId: string, on: StreamHandlers): Follow {
  let lastId = 0;
  let stopped = false;
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;

  const headers: Record<string, string> = { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' };
  if (session.orgId) headers['x-service-org'] = session.orgId;

  const end = (detail?: string) => {
    stopped = true;
    source?.close();
    on.connection('ended', detail);
  };

  const schedule = () => {
    if (stopped) return;
    failures++;
    on.connection('reconnecting');
    retry = setTimeout(connect, Math.min(10_000, 500 * 2 ** Math.min(failures - 1, 5)));
  };

  async function connect() {
    if (stopped) return;
    on.connection(lastId === 0 ? 'connecting' : 'reconnecting');
    let ticket: string;
    try {
      const response = await fetch(`/stream/v1/roast/${encodeURIComponent(batchId)}/tickets`, { method: 'POST', headers, body: '{}' });
      const body = await response.json().catch(() => ({}));
      if (response.status === 409 || response.status === 404) return end(body.detail ?? 'The batch is not live.');
      if (!response.ok) throw new Error(body.detail ?? `ticket ${response.status}`);
      ticket = body.ticket;
    } catch {
      return schedule();
    }
    if (stopped) return;
    const url = `/stream/v1/roast/${encodeURIComponent(batchId)}?ticket=${encodeURIComponent(ticket)}&lastEventId=${lastId}`;
    const es = new EventSource(url);
    source = es;
    const seen = (e: MessageEvent) => {
      const id = Number(e.lastEventId);
      if (!Number.isFinite(id) || id <= lastId) return false;
      lastId = id;
      return true;
    };
    es.onopen = () => {
      failures = 0;
      on.connection('open');
    };
    es.addEventListener('sample', (e) => seen(e as MessageEvent) && on.sample(JSON.parse((e as MessageEvent).data)));
    es.addEventListener('roast_event', (e) => seen(e as MessageEvent) && on.event(JSON.parse((e as MessageEvent).data)));
    es.addEventListener('status', (e) => {
      if (!seen(e as MessageEvent)) return;
      const { state } = JSON.parse((e as MessageEvent).data) as { state: string };
      on.status(state);
      if (state === 'completed' || state === 'aborted') end(`The batch was ${state}.`);
    });
    // The ticket is spent: EventSource's own retry would be refused, so the follower reconnects with a new one.
    es.onerror = () => {
      es.close();
      if (source === es) source = null;
      schedule();
    };
  }

  void connect();
  return {
    stop() {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    },
    drop() {
      if (!source) return;
      source.close();
      source = null;
      schedule();
    },
    lastId: () => lastId,
  };
}
