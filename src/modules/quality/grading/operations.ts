import { defineOperation } from '../../../rpc/define.js';
import { notFound } from '../../../rpc/errors.js';
import { pageOut } from '../../../rpc/outputs.js';
import { newId } from '../../../lib/ids.js';
import { findGreenLot, quarantineGreenLot, releaseGreenLotQuarantine } from '../../inventory/green/service.js';
import { GreenLot } from '../../inventory/green/schemas.js';
import { lotQuarantined, lotReleased } from '../../inventory/green/events.js';
import { checkSample } from './references.js';
import * as repo from './repository.js';
import { judge } from './rules.js';
import { Grading, ListGradings, RecordGrading, RecordedGrading, ReleaseQuarantine } from './schemas.js';
import { gradingFailed, gradingRecorded } from './events.js';

const feature = 'quality' as const;

export const gradingOperations = [
  defineOperation({
    name: 'quality.grading.recordGrading',
    summary: 'Record a physical grading of a green lot and/or a sample, judged pass or fail by its standard; a failing grading quarantines the lot.',
    description:
      'Give `greenLotId`, `sampleId` or both (400 naming greenLotId without either; another organization’s lot is 404). `standard` ' +
      'defaults to `sca`. The measures a standard’s rules need are required (400 naming the field): sca and coe need defectsPrimary ' +
      '(category-1 full defects), defectsSecondary (category-2), moisturePct and waterActivity; brazil_ny, indonesian and ' +
      'vietnamese need defectsPrimary, defectsSecondary and moisturePct. Rules: sca (SCA specialty grade) 0 category-1 and at most ' +
      '5 category-2 full defects per 350 g, moisture 10–12 %, water activity below 0.70; coe the same physical rules; brazil_ny ' +
      'at most 86 defects per 300 g (NY/COB type 6, the ICO arabica export minimum) and moisture 8–12.5 % (ICO), with the NY type ' +
      'reported as `grade`; indonesian and vietnamese at most 150 defects per 300 g (ICO robusta minimum) and moisture 8–12.5 %, ' +
      'indonesian with its SNI 01-2907-2008 grade; custom is recorded with result `not_judged`. `checks` lists every rule applied, ' +
      '`reasons` the failed ones. A failing grading of a green lot quarantines it through the green module, with the reasons as ' +
      'the quarantine reason (a lot already in quarantine keeps its first reason); the lot then cannot be reserved, split, merged ' +
      'or roasted (409 lot_quarantined) until releaseQuarantine. A passing grading never releases a quarantine. A `sampleId` ' +
      'of another organization (or none) is 404 naming sampleId; a sample is graded, never quarantined (it is not stock).',
    permission: 'quality.grading.write',
    feature,
    get: false,
    input: RecordGrading,
    output: RecordedGrading,
    errors: ['not_found'],
    emits: [gradingRecorded, gradingFailed, lotQuarantined],
    async handler(ctx, input) {
      if (input.greenLotId !== undefined && !(await findGreenLot(ctx.tx, ctx.orgId, input.greenLotId))) {
        throw notFound('green lot', input.greenLotId, 'greenLotId');
      }
      if (input.sampleId !== undefined) await checkSample(ctx.tx, ctx.orgId, input.sampleId);
      const judgement = judge(input.standard, input);
      const id = newId('grd');
      let lot = null;
      let quarantinedLot = false;
      if (input.greenLotId !== undefined) {
        if (judgement.result === 'fail') {
          const reasons = judgement.checks.filter((c) => !c.passed).map((c) => c.message);
          const quarantine = await quarantineGreenLot(
            ctx.tx,
            ctx.orgId,
            input.greenLotId,
            `Grading ${id} (${input.standard}) failed: ${reasons.join('; ')}`,
            ctx.principal.credentialId,
          );
          lot = quarantine.lot;
          quarantinedLot = quarantine.quarantined;
        } else {
          lot = (await findGreenLot(ctx.tx, ctx.orgId, input.greenLotId))!;
        }
      }
      const grading = await repo.insertGrading(ctx.tx, ctx.orgId, {
        id,
        input,
        result: judgement.result,
        grade: judgement.grade,
        checks: judgement.checks,
        quarantinedLot,
        credentialId: ctx.principal.credentialId,
      });
      await ctx.emit('quality.grading.recorded', { grading });
      if (grading.result === 'fail') await ctx.emit('quality.grading.failed', { grading });
      if (quarantinedLot && lot) await ctx.emit('inventory.green.lot_quarantined', { lot });
      return { grading, lot };
    },
  }),

  defineOperation({
    name: 'quality.grading.releaseQuarantine',
    summary: 'Release a green lot from quarantine, recording the reason, who and when on the lot.',
    description:
      '`reason` is required (400 when missing or blank). The lot’s `quarantine` then records the release (releasedAt, releasedBy: ' +
      'the credential, releaseReason) next to why and when it was quarantined; the lot can be reserved, split, merged and roasted ' +
      'again. A lot that is not in quarantine is 409 `lot_not_quarantined`; another organization’s lot is 404.',
    permission: 'quality.grading.write',
    feature,
    get: false,
    input: ReleaseQuarantine,
    output: GreenLot,
    errors: ['not_found', 'lot_not_quarantined'],
    emits: [lotReleased],
    async handler(ctx, input) {
      const lot = await releaseGreenLotQuarantine(ctx.tx, ctx.orgId, input.greenLotId, input.reason, ctx.principal.credentialId);
      await ctx.emit('inventory.green.lot_released', { lot });
      return lot;
    },
  }),

  defineOperation({
    name: 'quality.grading.listGradings',
    summary: 'Gradings, newest first.',
    description:
      'Filters: `greenLotId`, `sampleId`, `standard`, `result` (pass, fail, not_judged), `gradedFrom` (inclusive) and `gradedTo` ' +
      '(exclusive) on the time the grading was recorded.',
    permission: 'quality.grading.read',
    feature,
    get: true,
    input: ListGradings,
    output: pageOut(Grading),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listGradings(ctx.tx, ctx.orgId, filter, page);
    },
  }),
];
