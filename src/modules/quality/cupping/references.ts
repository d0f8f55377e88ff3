import type { Queryable } from '../../../db/client.js';
import { notFound } from '../../../rpc/errors.js';
import { describeLots } from '../../inventory/green/service.js';
import { findRoastedLot } from '../../inventory/roast/service.js';
import { describeBatches } from '../../production/roast/service.js';
import { findSample } from '../../sourcing/sample/service.js';
import type { SessionSampleInputValue } from './schemas.js';

export interface Identity {
  refId: string | null;
  refCode: string | null;
  refName: string | null;
}

const KIND_NAMES = { green_lot: 'green lot', roast_batch: 'roast batch', roasted_lot: 'roasted lot', sample: 'sample' } as const;

/**
 * Each coffee's identity as it reads now, asked of the module that owns the record: a green lot's code and
 * name, a roast batch's number, a roasted lot's code, a sourcing sample's number and name. A record this organization does not have is 404
 * naming `samples[i].id`, exactly as for an id that exists nowhere.
 */
export async function resolveIdentities(q: Queryable, orgId: string, samples: SessionSampleInputValue[]): Promise<Identity[]> {
  const idsOf = (kind: string) => samples.flatMap((s) => (s.kind === kind && 'id' in s ? [s.id] : []));
  const green = new Map((await describeLots(q, orgId, idsOf('green_lot'))).map((l) => [l.id, { code: l.lotCode, name: l.name }]));
  const batches = new Map((await describeBatches(q, orgId, idsOf('roast_batch'))).map((b) => [b.id, { code: b.batchNumber, name: null }]));
  const roasted = new Map<string, { code: string; name: string | null }>();
  for (const id of idsOf('roasted_lot')) {
    const lot = await findRoastedLot(q, orgId, id);
    if (lot) roasted.set(id, { code: lot.lotCode, name: null });
  }
  const sourcing = new Map<string, { code: string; name: string | null }>();
  for (const id of idsOf('sample')) {
    const sample = await findSample(q, orgId, id);
    if (sample) sourcing.set(id, { code: sample.sampleNumber, name: sample.name });
  }
  return samples.map((s, i) => {
    if (s.kind === 'outside') return { refId: null, refCode: null, refName: s.name };
    const found = { green_lot: green, roast_batch: batches, roasted_lot: roasted, sample: sourcing }[s.kind].get(s.id);
    if (!found) throw notFound(KIND_NAMES[s.kind], s.id, `samples[${i}].id`);
    return { refId: s.id, refCode: found.code, refName: found.name };
  });
}
