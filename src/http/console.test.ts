import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { consoleSurfaces } from './console.js';
import { mountSurfaces, type SurfaceDeps } from './surface.js';

/** A console build of two files, served by the plugin alone. */
async function served(t: { after: (fn: () => unknown) => void }, build = true) {
  const dist = mkdtempSync(join(tmpdir(), 'fc-console-'));
  if (build) {
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><script type="module" src="/app/assets/index-abc.js"></script>');
    writeFileSync(join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
  }
  const app = Fastify();
  await mountSurfaces(app, consoleSurfaces, { deps: { consoleDist: dist } as SurfaceDeps, resolvers: [], authenticators: {}, limiter: () => { throw new Error('the console is not counted'); } });
  t.after(async () => {
    await app.close();
    rmSync(dist, { recursive: true, force: true });
  });
  return app;
}

test('/app/ serves the page, its hashed assets cached for good, and the page for every path of the single-page app', async (t) => {
  const app = await served(t);
  const page = await app.inject('/app/');
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.equal(page.headers['cache-control'], 'no-cache');
  assert.match(String(page.headers['content-security-policy']), /default-src 'self'/);
  assert.match(page.body, /index-abc\.js/);

  const asset = await app.inject('/app/assets/index-abc.js');
  assert.equal(asset.statusCode, 200);
  assert.match(String(asset.headers['content-type']), /^text\/javascript/);
  assert.match(String(asset.headers['cache-control']), /immutable/);

  const deep = await app.inject('/app/lots/gl_123');
  assert.equal(deep.statusCode, 200, 'a path of the app answers the page');
  assert.equal(deep.body, page.body);

  assert.equal((await app.inject('/app')).statusCode, 301);
  assert.equal((await app.inject('/app')).headers.location, '/app/');
  const missing = await app.inject('/app/assets/nope.js');
  assert.equal(missing.statusCode, 404, 'a missing asset is not answered with the page');
  const escape = await app.inject('/app/..%2f..%2fpackage.json');
  assert.equal(escape.statusCode, 200);
  assert.equal(escape.body, page.body, 'a path out of the build answers the page, never the file');
});

test('/app/ without a build says how to build it', async (t) => {
  const app = await served(t, false);
  const res = await app.inject('/app/');
  assert.equal(res.statusCode, 503);
  assert.equal(res.json().code, 'console_not_built');
});
