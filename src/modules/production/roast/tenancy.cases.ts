import { readFileSync } from 'node:fs';
import type { TenancyCase } from '../../../testing/tenancy.js';
import { makeGreenLot } from '../../inventory/green/testing.js';
import { makeRoaster, startBatch, unique } from './testing.js';

const smallLog = () => readFileSync(new URL('../../../../../shared/fixtures/roast-logs/profile2.csv', import.meta.url), 'utf8');

/** The owner's live batch, probed by another organization with `input(batchId)`. */
const onBatch = (operation: string, input: (id: string) => Record<string, unknown>): TenancyCase => ({
  operation,
  expect: 'not_found',
  async arrange(owner) {
    const machine = await makeRoaster(owner);
    const { id } = await startBatch(owner, { machineId: machine.id });
    return { input: input(id), secretIds: [id] };
  },
});

export const cases: TenancyCase[] = [
  onBatch('production.roast.getRoastBatch', (id) => ({ id })),
  onBatch('production.roast.getRoastCurve', (id) => ({ id })),
  onBatch('production.roast.completeRoastBatch', (id) => ({ id, dropWeightKg: '8' })),
  // Another organization cannot abandon the owner's live batch (nor seal its session: the batch is looked up first).
  onBatch('production.roast.abortRoastBatch', (id) => ({ id, reason: 'started by mistake' })),
  // Nor mark an event in its live session, nor choose the curve it follows.
  onBatch('production.roast.markRoastEvent', (id) => ({ id, type: 'first_crack_start' })),
  onBatch('production.roast.setRoastReference', (id) => ({ id, referenceBatchId: null })),
  {
    // Another organization's completed batch has no curve to link to here.
    operation: 'production.roast.getRoastCurveLink',
    expect: 'not_found',
    async arrange(owner) {
      const res = await owner.call('production.roast.importLoggerRoast', { content: smallLog(), batchNumber: unique('IMP') });
      if (res.status !== 200) throw new Error(`importLoggerRoast: ${res.status} ${JSON.stringify(res.body)}`);
      return { input: { id: res.body.id, format: 'alog' }, secretIds: [res.body.id] };
    },
  },
  {
    operation: 'production.roast.listRoastBatches',
    expect: 'invisible',
    async arrange(owner) {
      const machine = await makeRoaster(owner);
      const { id } = await startBatch(owner, { machineId: machine.id, batchNumber: 'SAMEBATCH' });
      return { input: { filter: { q: 'SAMEBATCH' } }, secretIds: [id] };
    },
  },
  {
    // Another organization's machine roasts nothing here.
    operation: 'production.roast.startRoastBatch',
    expect: 'not_found',
    async arrange(owner) {
      const { id } = await makeRoaster(owner);
      return { input: { batchNumber: unique('B'), machineId: id, chargeWeightKg: '10' }, secretIds: [id] };
    },
  },
  {
    // Nor can an import consume another organization's green lot.
    operation: 'production.roast.importLoggerRoast',
    expect: 'not_found',
    async arrange(owner) {
      const greenLotId = await makeGreenLot(owner, { weightKg: '50' });
      return { input: { content: smallLog(), batchNumber: unique('IMP'), greenLotId, chargeWeightKg: '2', dropWeightKg: '1.7' }, secretIds: [greenLotId] };
    },
  },
];
