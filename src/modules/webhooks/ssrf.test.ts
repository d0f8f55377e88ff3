import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../testing/harness.js';
import { assertRefusedWithout } from '../../testing/problems.js';
import { checkAddress, checkUrlShape, embeddedIpv4, resolveChecked } from './ssrf.js';
import { checkedLookup, sendSigned } from './delivery.js';
import { hostname } from 'node:os';
import { startReceiver } from './testing.js';

// The default: WEBHOOK_ALLOW_PRIVATE_URLS unset.
const server = await startTestServer();
const receiver = await startReceiver();
after(() => receiver.close());

test('createEndpoint refuses http and every private, loopback, link-local, CGNAT, multicast and metadata address', async () => {
  assert.equal(server.app.services.config.webhooks.allowPrivateUrls, false);
  const org = await server.createOrg();
  const snapshot = () => org.call('webhooks.listEndpoints', {}).then((r) => r.body);
  for (const url of [
    'http://93.184.215.14/hook',
    'https://127.0.0.1/hook',
    'https://127.8.9.10:8443/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
    'https://10.1.2.3/hook',
    'https://172.16.0.1/hook',
    'https://192.168.1.1/hook',
    'https://100.64.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://169.254.10.10/hook',
    'https://224.0.0.1/hook',
    'https://0.0.0.0/hook',
    'https://[::1]/hook',
    'https://[fd00:ec2::254]/hook',
    'https://[fe80::1]/hook',
    'https://[fc00::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:a9fe:a9fe]/hook',
    'https://[64:ff9b::a00:1]/hook',
    // IPv6 forms embedding a private IPv4 address, in either case of scheme.
    'https://[64:ff9b:1::a00:1]/hook',
    'HTTPS://[64:ff9b:1::a00:1]/hook',
    'https://[::10.0.0.1]/hook',
    'HTTPS://[::ffff:0:a00:1]/hook',
    'https://[2001:0:a00:1::]/hook',
    'Https://[2002:c0a8:101::1]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://metadata.google.internal/computeMetadata',
    'https://user:pass@93.184.215.14/hook',
    `${receiver.url}/ok`,
  ]) {
    await assertRefusedWithout(snapshot, () => org.call('webhooks.createEndpoint', { url }), 400, 'webhook_url_refused', 'url');
  }
  assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
  const accepted = await org.call('webhooks.createEndpoint', { url: 'https://93.184.215.14/hook' });
  assert.equal(accepted.status, 200, 'a public https address is accepted');
});

test('names are resolved and every address checked; metadata stays refused with the development allowance', async () => {
  const resolved = await resolveChecked('localhost', false);
  assert.ok('refused' in resolved, `localhost resolves to loopback and is refused: ${JSON.stringify(resolved)}`);
  assert.ok('address' in (await resolveChecked('localhost', true)), 'allowed for development');
  for (const address of ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '::ffff:169.254.169.254']) {
    assert.equal(checkAddress(address, true).allowed, false, `${address} is refused even with the allowance`);
  }
  assert.ok(checkUrlShape('http://metadata.google.internal/', true), 'metadata host names are refused with the allowance');
  assert.equal(checkUrlShape('http://127.0.0.1:9000/hook', true), undefined, 'the allowance admits http and loopback');
  assert.equal(checkAddress('8.8.8.8', false).allowed, true);
  assert.equal(checkAddress('2606:4700:4700::1111', false).allowed, true);
});

test('every IPv4-embedding IPv6 form is decoded and its IPv4 address judged, at creation and for every connection', async () => {
  for (const [address, embedded] of [
    ['::ffff:10.0.0.1', ['10.0.0.1']], // IPv4-mapped
    ['::ffff:a00:1', ['10.0.0.1']],
    ['::10.0.0.1', ['10.0.0.1']], // IPv4-compatible
    ['::ffff:0:a00:1', ['10.0.0.1']], // IPv4-translated
    ['64:ff9b::a00:1', ['10.0.0.1']], // NAT64, well-known prefix
    ['64:ff9b:1::a00:1', ['10.0.0.1']], // NAT64, local-use prefix, /96 layout
    ['64:ff9b:1:a00:1::', ['0.0.0.0', '10.0.1.0', '0.1.0.0', '1.0.0.0']], // local use, every layout it fits
    ['2002:a00:1::1', ['10.0.0.1']], // 6to4
    ['2001:0:a00:1::', ['10.0.0.1', '255.255.255.255']], // Teredo: server, then the client (obfuscated)
    ['2001:0:808:808::f5ff:fffe', ['8.8.8.8', '10.0.0.1']],
    ['2606:4700:4700::1111', []],
  ] as const) {
    assert.deepEqual(embeddedIpv4(address), embedded, address);
  }
  for (const address of ['64:ff9b:1::a00:1', '::10.0.0.1', '::ffff:0:a00:1', '2001:0:a00:1::', '2001:0:808:808::f5ff:fffe', '2002:7f00:1::', '64:ff9b::a9fe:a9fe']) {
    assert.equal(checkAddress(address, false).allowed, false, `${address} is refused`);
    // Connection time: an address a name resolves to (or the URL names) is judged by the same rule.
    assert.ok('refused' in (await resolveChecked(address, false)), `${address} is refused when connecting`);
  }
  assert.equal(checkAddress('64:ff9b::a9fe:a9fe', true).allowed, false, 'a metadata address embedded stays refused with the allowance');
  for (const address of ['64:ff9b::808:808', '64:ff9b:1::808:808', '2002:808:808::1', '2001:0:808:808::f7f7:f7f7']) {
    assert.equal(checkAddress(address, false).allowed, true, `${address} embeds a public address`);
  }
  const result = await sendSigned('https://[::ffff:0:7f00:1]:9/hook', 'evt_0', '{}', ['whsec_x'], { allowPrivateUrls: false, timeoutMs: 2000 });
  assert.equal(result.succeeded, false);
  assert.match(result.error!, /refused/, 'a delivery to an embedded loopback address never connects');
});

test('the check runs again at connect time: a delivery to a refused address never connects', async () => {
  // An endpoint stored while the allowance was on (or whose name later resolves elsewhere) is checked per attempt.
  const result = await sendSigned(`${receiver.url}/ok`, 'evt_0', '{}', ['whsec_x'], { allowPrivateUrls: false, timeoutMs: 2000 });
  assert.equal(result.succeeded, false);
  assert.match(result.error!, /refused/);
  assert.equal(receiver.received.length, 0, 'no connection was made');
  const allowed = await sendSigned(`${receiver.url}/ok`, 'evt_0', '{}', ['whsec_x'], { allowPrivateUrls: true, timeoutMs: 2000 });
  assert.equal(allowed.succeeded, true, 'the same address with the allowance connects');
});

const lookupOf = (allowPrivate: boolean, name: string) =>
  new Promise<{ error: Error | null; addresses: unknown }>((resolve) => checkedLookup(allowPrivate)(name, { all: true }, (error, addresses) => resolve({ error, addresses })));

test('every new connection resolves the name and checks every address before connecting', async (t) => {
  const refused = await lookupOf(false, 'localhost');
  assert.match(String(refused.error?.message), /address refused: localhost resolves to 127\.0\.0\.1 is a loopback/, 'the connection lookup refuses a name resolving to loopback');
  const allowed = await lookupOf(true, 'localhost');
  assert.equal(allowed.error, null, 'allowed for development');
  assert.ok((allowed.addresses as { address: string }[]).some((a) => a.address === '127.0.0.1'), `the checked addresses are answered: ${JSON.stringify(allowed.addresses)}`);

  // Through a delivery: a name the URL check lets through (this machine's own name) that resolves to a
  // refused address is refused when the connection is made.
  const name = hostname();
  const resolved = await resolveChecked(name, true);
  if (!('address' in resolved) || resolved.address !== '127.0.0.1') return t.skip(`${name} does not resolve to 127.0.0.1 here`);
  const port = new URL(receiver.url).port;
  const before = receiver.received.length;
  const result = await sendSigned(`https://${name}:${port}/ok`, 'evt_0', '{}', ['whsec_x'], { allowPrivateUrls: false, timeoutMs: 2000 });
  assert.equal(result.succeeded, false);
  assert.match(result.error!, /^address refused: .* resolves to 127\.0\.0\.1 is a loopback/);
  assert.equal(receiver.received.length, before, 'no connection was made');
  const delivered = await sendSigned(`http://${name}:${port}/ok`, 'evt_0', '{}', ['whsec_x'], { allowPrivateUrls: true, timeoutMs: 2000 });
  assert.equal(delivered.succeeded, true, `with the allowance the name connects to its checked address: ${delivered.error}`);
});
