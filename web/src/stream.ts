import type { Session } from './session.ts';

/**
 * Follows a live batch on GET /stream/v1/roast/{id} (text/event-stream). The stream is read with fetch rather than
 * EventSource so that it can send the credential as every other call does (Authorization, X-Service-Org): user
 * sessions and access tokens are not issued stream tickets (those are for API keys in an EventSource), and one
 * reader serves both. When the connection drops, it is reopened with Last-Event-ID, the id of the last message
 * received, so nothing is missed and nothing comes twice. A final status (completed, aborted) or a batch that is no
 * longer live (409) ends it.
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

const FINAL = new Set(['completed', 'aborted']);

export function followBatch(session: Session, batchId: string, on: StreamHandlers): Follow {
  let lastId = 0;
  let stopped = false;
  let controller: AbortController | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;

  const end = (detail?: string) => {
    if (stopped) return;
    stopped = true;
    controller?.abort();
    on.connection('ended', detail);
  };

  const schedule = () => {
    if (stopped) return;
    failures++;
    on.connection('reconnecting');
    clearTimeout(retry);
    retry = setTimeout(connect, Math.min(10_000, 250 * 2 ** Math.min(failures - 1, 6)));
  };

  /** One message block of the stream (fields id, event, data; comments are heartbeats). */
  const dispatch = (block: string) => {
    let id = '';
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) return;
    const n = Number(id);
    if (!Number.isFinite(n) || n <= lastId) return;
    lastId = n;
    const payload = JSON.parse(data.join('\n'));
    if (event === 'sample') on.sample(payload);
    else if (event === 'roast_event') on.event(payload);
    else if (event === 'status') {
      on.status(payload.state);
      if (FINAL.has(payload.state)) end(`The batch was ${payload.state}.`);
    }
  };

  async function connect() {
    if (stopped) return;
    const mine = new AbortController();
    controller = mine;
    on.connection(lastId === 0 ? 'connecting' : 'reconnecting');
    const headers: Record<string, string> = { authorization: `Bearer ${session.token}`, accept: 'text/event-stream' };
    if (session.orgId) headers['x-service-org'] = session.orgId;
    if (lastId > 0) headers['last-event-id'] = String(lastId);
    try {
      const response = await fetch(`/stream/v1/roast/${encodeURIComponent(batchId)}`, { headers, signal: mine.signal, cache: 'no-store' });
      if (response.status === 409 || response.status === 404) {
        const body = await response.json().catch(() => ({}));
        return end(body.detail ?? 'The batch is not live.');
      }
      if (!response.ok || !response.body) throw new Error(`stream ${response.status}`);
      failures = 0;
      on.connection('open');
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, '\n');
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          dispatch(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {
      // dropped, refused or aborted: resumed below unless stopped
    }
    if (controller === mine) controller = null;
    schedule();
  }

  void connect();
  return {
    stop() {
      stopped = true;
      clearTimeout(retry);
      controller?.abort();
    },
    drop() {
      if (!controller || stopped) return;
      on.connection('reconnecting');
      controller.abort();
    },
    lastId: () => lastId,
  };
}
