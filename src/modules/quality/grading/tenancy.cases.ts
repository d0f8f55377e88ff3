import type { TenancyCase } from '../../../testing/tenancy.js';
import { makeGreenLot } from '../../inventory/green/testing.js';

const failing = { standard: 'sca', defectsPrimary: 3, defectsSecondary: 0, moisturePct: 11, waterActivity: 0.55 };

export const cases: TenancyCase[] = [
  {
    // Grading another organization's lot neither reads nor quarantines it: 404 as for no lot.
    operation: 'quality.grading.recordGrading',
    expect: 'not_found',
    async arrange(owner) {
      const lotId = await makeGreenLot(owner);
      return { input: { greenLotId: lotId, ...failing }, secretIds: [lotId] };
    },
  },
  {
    operation: 'quality.grading.releaseQuarantine',
    expect: 'not_found',
    async arrange(owner) {
      const lotId = await makeGreenLot(owner);
      const res = await owner.call('quality.grading.recordGrading', { greenLotId: lotId, ...failing });
      if (res.status !== 200) throw new Error(`recordGrading: ${res.status} ${JSON.stringify(res.body)}`);
      return { input: { greenLotId: lotId, reason: 'Released by someone else' }, secretIds: [lotId] };
    },
  },
  {
    operation: 'quality.grading.listGradings',
    expect: 'invisible',
    async arrange(owner) {
      const lotId = await makeGreenLot(owner);
      const res = await owner.call('quality.grading.recordGrading', { greenLotId: lotId, ...failing });
      if (res.status !== 200) throw new Error(`recordGrading: ${res.status} ${JSON.stringify(res.body)}`);
      return { input: { filter: { greenLotId: lotId } }, secretIds: [lotId, res.body.grading.id] };
    },
  },
];
