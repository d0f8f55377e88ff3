import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../../testing/harness.js';
import { makeProduct } from '../../catalog/product/tenancy.cases.js';
import { makeMaterial } from './tenancy.cases.js';

// PGlite has a single connection, so requests never overlap there; these races need the real server.
const server = await startTestServer();

test('20 concurrent adjustments of one material keep balance = sum(ledger) and never go negative', async (t) => {
  if (server.kind !== 'postgres') return t.skip('PGlite serializes transactions; concurrency needs PostgreSQL');
  const org = await server.createOrg();
  const id = await makeMaterial(org);
  assert.equal((await org.call('inventory.material.adjustMaterialQuantity', { id, deltaQty: '10', reason: 'receive' })).status, 200);

  // 15 withdrawals of 2 against 10 on hand plus 5 receipts of 1: at most 7 withdrawals can fit.
  const deltas = Array.from({ length: 20 }, (_, i) => (i % 4 === 3 ? '1' : '-2'));
  const answers = await Promise.all(
    deltas.map((deltaQty) =>
      org.call('inventory.material.adjustMaterialQuantity', { id, deltaQty, reason: deltaQty.startsWith('-') ? 'adjust' : 'receive' }),
    ),
  );
  for (const res of answers) {
    assert.ok(res.status === 200 || (res.status === 409 && res.body.code === 'insufficient_stock'), JSON.stringify(res.body));
  }
  assert.ok(answers.every((res, i) => res.status === 200 || deltas[i].startsWith('-')), 'receipts are never refused');
  const refused = answers.filter((res) => res.status === 409).length;
  assert.ok(refused >= 15 - 7, `at least 8 withdrawals must be refused, ${refused} were`);

  const [{ on_hand, ledger_sum, min_balance, rows }] = await server.owner.query<{ on_hand: string; ledger_sum: string; min_balance: string; rows: number }>(
    `select m.on_hand, sum(t.delta_qty)::numeric(15, 3) as ledger_sum, min(t.balance_after) as min_balance, count(*)::int as rows
     from materials m join material_transactions t on t.org_id = m.org_id and t.material_id = m.id
     where m.org_id = $1 and m.id = $2 group by m.on_hand`,
    [org.id, id],
  );
  assert.equal(rows, 1 + 20 - refused, 'one ledger row per accepted change, none for a refused one');
  assert.equal(on_hand, ledger_sum);
  assert.ok(Number(min_balance) >= 0, `a balance went negative: ${min_balance}`);
  const accepted = deltas.filter((_, i) => answers[i].status === 200).reduce((sum, delta) => sum + Number(delta), 10);
  assert.equal(Number(on_hand), accepted, 'the balance is the opening receipt plus exactly the accepted changes');
  for (const res of answers.filter((r) => r.status === 200)) assert.ok(Number(res.body.transaction.balanceAfter) >= 0, `an accepted change leaves no negative balance: ${res.body.transaction.balanceAfter}`);
});

test('concurrent setBillOfMaterials for one product leave exactly one active version and gapless version numbers', async (t) => {
  if (server.kind !== 'postgres') return t.skip('PGlite serializes transactions; concurrency needs PostgreSQL');
  const org = await server.createOrg();
  const productId = await makeProduct(org);
  const materialId = await makeMaterial(org);
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      org.call('inventory.material.setBillOfMaterials', { productId, name: `Draft ${i}`, lines: [{ materialId, quantity: i + 1 }] }),
    ),
  );
  for (const res of answers) assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(answers.map((res) => res.body.version).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const rows = await server.owner.query<{ version: number; retired: boolean }>(
    `select version, retired_at is not null as retired from bills_of_materials where org_id = $1 and product_id = $2 order by version`,
    [org.id, productId],
  );
  assert.deepEqual(rows.filter((r) => !r.retired).map((r) => r.version), [10]);
  const active = (await org.call('inventory.material.getBillOfMaterials', { productId })).body;
  assert.equal(active.version, 10);
  assert.equal(active.previousVersions.length, 9);
});
