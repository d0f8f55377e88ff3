import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP receiver on 127.0.0.1. Each path answers by its rule: `/ok` 200, `/fail/<n>` 500 for the
 * first n requests then 200, `/down` always 500, `/redirect` 302, `/hang` never answers until released, `/hangonce` only the first time.
 */
export async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  on(path: string): Received[];
  waitFor(predicate: (received: Received[]) => boolean, what: string, boundMs?: number): Promise<void>;
  releaseHung(): void;
  /** The most requests to `path` this receiver held open at once (a hung request counts until answered or dropped). */
  mostOpenAtOnce(path: string): number;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const hung: (() => void)[] = [];
  const openNow = new Map<string, number>();
  const mostOpen = new Map<string, number>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      for (const wake of waiters) wake();
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const failing = /^\/fail\/(\d+)/.exec(path);
      const hold = () => {
        openNow.set(path, (openNow.get(path) ?? 0) + 1);
        mostOpen.set(path, Math.max(mostOpen.get(path) ?? 0, openNow.get(path)!));
        let open = true;
        const close = () => {
          if (open) openNow.set(path, openNow.get(path)! - 1);
          open = false;
        };
        res.once('close', close);
        hung.push(() => (close(), res.writeHead(200).end('late')));
      };
      if (path.startsWith('/hangonce') && n === 1) {
        hung.push(() => res.writeHead(200).end('late'));
        return;
      }
      if (path.startsWith('/hang') && !path.startsWith('/hangonce')) return hold();
      if (path.startsWith('/redirect')) return void res.writeHead(302, { location: '/ok' }).end();
      if (path.startsWith('/down') || (failing && n <= Number(failing[1]))) return void res.writeHead(500).end(`failure ${n} ${'x'.repeat(2000)}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    on: (path) => received.filter((r) => r.path === path),
    /** Resolves once the predicate holds; fails (with `what`) only if it has not held within a generous bound. */
    async waitFor(predicate, what, boundMs = 60_000) {
      const deadline = Date.now() + boundMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`receiver: still waiting for ${what}; got ${received.map((r) => r.path).join(', ')}`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 200);
        });
      }
    },
    releaseHung: () => hung.splice(0).forEach((answer) => answer()),
    mostOpenAtOnce: (path) => mostOpen.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const answer of hung.splice(0)) answer();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The receiver's check, written apart from the service's signing code: HMAC-SHA256 keyed with the secret
 * string over "<timestamp>.<body>", base64, compared with each `v1,` value of the header.
 */
export function verifiedBy(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const timestamp = String(headers['service-timestamp']);
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(timestamp + '.' + body).digest();
  return String(headers['service-signature'])
    .split(' ')
    .some((value) => {
      const [version, signature] = value.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** Waits (polling) until `check` returns a value; fails only past a generous bound. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, what: string, boundMs = 60_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
