import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { TestOrg } from '../../../../testing/harness.js';
import { SseParser, type SseMessage } from '../../../../streaming/sse-client.js';

/** A machine registered in `org` and a bridge token for it. */
export async function machineWithToken(org: TestOrg, code: string): Promise<{ machineId: string; token: string }> {
  const machine = await org.call('catalog.machine.registerMachine', { name: `Roaster ${code}`, code, connectivity: 'bridge' });
  assert.equal(machine.status, 200, JSON.stringify(machine.body));
  const issued = await org.call('catalog.machine.issueMachineBridgeToken', { machineId: machine.body.id });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  return { machineId: machine.body.id, token: issued.body.token };
}

export interface PostResult {
  status: number;
  body: any;
  headers: Headers;
}

/** POST /ingest/v1/roast/{batchId}/samples with `token`; `body` is sent as is when it is a string. */
export async function postSamples(baseUrl: string, token: string | undefined, batchId: string, body: unknown): Promise<PostResult> {
  const response = await fetch(`${baseUrl}/ingest/v1/roast/${batchId}/samples`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** An open GET /stream/v1/roast/{batchId}, collecting what arrives. */
export interface Watch {
  status: number;
  headers: Headers;
  /** The problem body when the stream was refused. */
  problem?: any;
  messages: SseMessage[];
  comments: string[];
  ended: boolean;
  /** Waits until `predicate` holds (checked on every arrival), or fails after `timeoutMs`. */
  until(predicate: (watch: Watch) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function watchStream(url: string, headers: Record<string, string> = {}): Promise<Watch> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const changed = new EventEmitter();
  const watch: Watch = {
    status: response.status,
    headers: response.headers,
    messages: [],
    comments: [],
    ended: false,
    async until(predicate, timeoutMs = 5000) {
      if (predicate(watch)) return;
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(watch)) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`stream condition not met in ${timeoutMs} ms; got ${JSON.stringify(watch.messages.map((m) => m.id))}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          changed.off('change', check);
        };
        changed.on('change', check);
      });
    },
    close: () => controller.abort(),
  };
  if (response.status !== 200) {
    watch.problem = await response.json();
    watch.ended = true;
    return watch;
  }
  const parser = new SseParser(
    (message) => {
      watch.messages.push(message);
      changed.emit('change');
    },
    (comment) => {
      watch.comments.push(comment);
      changed.emit('change');
    },
  );
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) parser.push(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch {
      // aborted by close()
    }
    watch.ended = true;
    changed.emit('change');
  })();
  return watch;
}

/** The data of every message of one kind, parsed. */
export const dataOf = (watch: Watch, event: string) => watch.messages.filter((m) => m.event === event).map((m) => JSON.parse(m.data));
