import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../src/testing/harness.js';

const server = await startTestServer();

/** Every HTTP surface that is not an RPC operation, with the method it answers. */
const SURFACES: [method: string, path: string][] = [
  ['get', '/healthz'],
  ['get', '/readyz'],
  ['post', '/ingest/v1/roast/{batchId}/samples'],
  ['get', '/stream/v1/roast/{batchId}'],
  ['post', '/stream/v1/roast/{batchId}/tickets'],
  ['get', '/c/{token}'],
  ['get', '/c/{token}/qr.svg'],
  ['get', '/c/{token}/qr.png'],
  // The authorization server (src/modules/identity/openapi.ts); POST /api/auth/logout answers 204 without a body.
  ['post', '/api/auth/oauth2/token'],
  ['post', '/api/auth/oauth2/introspect'],
  ['get', '/api/auth/oauth2/jwks'],
  ['get', '/.well-known/oauth-authorization-server'],
  ['post', '/api/auth/login'],
  ['get', '/app/{path}'],
];

type Media = { schema?: unknown; example?: unknown };
type Operation = {
  summary?: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description: string; content?: Record<string, Media> }>;
};

test('/openapi.json documents every surface beside RPC with its answers and an example', async () => {
  const doc = await (await server.request('/openapi.json')).json();
  for (const [method, path] of SURFACES) {
    const operation: Operation | undefined = doc.paths[path]?.[method];
    assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
    assert.ok(operation.summary, `${path} has a summary`);
    const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
    assert.ok(success.length > 0, `${path} documents its success answer`);
    const examples = success.flatMap(([, answer]) => Object.values(answer.content ?? {}).map((media) => media.example));
    assert.ok(examples.some((example) => example !== undefined && example !== ''), `${path} has an example answer`);
    if (operation.requestBody) {
      const media = operation.requestBody.content['application/json'] ?? operation.requestBody.content['application/x-www-form-urlencoded'];
      assert.ok(media?.schema && media.example !== undefined, `${path} documents its payload with an example`);
    }
  }
  // The examples are what the surfaces answer.
  assert.deepEqual(doc.paths['/healthz'].get.responses['200'].content['application/json'].example, await (await server.request('/healthz')).json());
  assert.deepEqual(doc.paths['/readyz'].get.responses['200'].content['application/json'].example, await (await server.request('/readyz')).json());
  const notFound = await (await server.request('/c/AAAAAAAAAAAAAAAAAAAAAA')).text();
  assert.equal(doc.paths['/c/{token}'].get.responses['404'].content['text/html'].example, notFound);
  const post = doc.paths['/ingest/v1/roast/{batchId}/samples'].post;
  assert.ok(post.requestBody.content['application/json'].example.samples.length > 0, 'the ingest example carries samples');
  assert.deepEqual(post.security, [{ machineBridge: [] }]);
  assert.deepEqual(doc.paths['/c/{token}'].get.security, [], 'the public pages take no credential');
});

test('the ingest payload example is a post the service accepts', async () => {
  const { checkTelemetryPost } = await import('../src/modules/production/roast/telemetry/schemas.js');
  const doc = await (await server.request('/openapi.json')).json();
  const example = doc.paths['/ingest/v1/roast/{batchId}/samples'].post.requestBody.content['application/json'].example;
  const checked = checkTelemetryPost(example);
  assert.ok(checked.ok, JSON.stringify(checked));
});

test('/docs renders a section for every surface beside RPC, with its examples', async () => {
  const res = await server.request('/docs');
  assert.match(res.headers.get('content-type')!, /^text\/html/);
  const html = await res.text();
  for (const [method, path] of SURFACES) {
    assert.ok(html.includes(`id="${method.toUpperCase()} ${path}"`), `a section for ${method.toUpperCase()} ${path}`);
  }
  for (const tag of ['health', 'telemetry', 'public pages']) assert.ok(html.includes(`<h2 id="${tag}">`), `a ${tag} heading`);
  assert.ok(html.includes('&quot;seq&quot;: 42'), 'the ingest payload example is shown');
  assert.ok(html.includes('event: sample'), 'the stream example is shown');
  assert.ok(html.includes('Certificate not found'), 'the public page’s 404 example is shown');
});
