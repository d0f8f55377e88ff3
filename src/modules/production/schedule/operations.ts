import type { Queryable } from '../../../db/client.js';
import { defineOperation } from '../../../rpc/define.js';
import { conflict, notFound, throwNotFound } from '../../../rpc/errors.js';
import { findLocation } from '../../catalog/location/service.js';
import { listActiveMachineSizes } from '../../catalog/machine/service.js';
import { roastableKg } from '../../inventory/green/service.js';
import { grams, kgString } from '../../../lib/grams.js';
import { grossUpGrams, planProduction } from './planner.js';
import * as repo from './repository.js';
import { listDemand, toPlannerDemand } from './demand.js';
import { ById, DemandAggregateItem, GenerateProductionSchedule, ListDemandAggregate, ProductionSchedule } from './schemas.js';
import { scheduleGenerated, scheduleReleased } from './events.js';
import { pageOut } from '../../../rpc/outputs.js';

const feature = 'roasting' as const;

export const scheduleOperations = [
  defineOperation({
    name: 'production.schedule.listDemandAggregate',
    summary: 'What production must roast: open confirmed demand, merged by what is roasted together.',
    description:
      'Confirmed order lines due on or before `dueBefore` (all open demand without it), less the roasted stock allocated to them, ' +
      'merged by what is roasted together (profile, green lot, roast level, decaf). Each item gives the roasted kilograms still open, ' +
      'the expected roast loss (the demand’s, else the mean of the profile’s completed batches, else 15%) and the green needed for it. ' +
      'The whole aggregate is one page: `nextCursor` is always null.',
    permission: 'production.schedule.read',
    feature,
    get: true,
    input: ListDemandAggregate,
    output: pageOut(DemandAggregateItem),
    errors: [],
    async handler(ctx, { dueBefore }) {
      const demand = await listDemand(ctx.tx, ctx.orgId, dueBefore ?? null);
      const items = demand.map((d) => ({ ...d, greenNeededKg: kgString(grossUpGrams(grams(d.openKg), d.expectedLossPct)) }));
      return { items, nextCursor: null };
    },
  }),

  defineOperation({
    name: 'production.schedule.generateProductionSchedule',
    summary: 'Generate a draft roasting schedule from the open demand.',
    description:
      'Plans the demand `listDemandAggregate` answers: batches sized to what each active machine can run (between its minimum and ' +
      'maximum batch, green grossed up for roast loss), ordered by profile grouping, light before dark, decaf last, at most ' +
      '`maxBatchesPerMachine` per machine, with feasibility notes (`green_short`, `no_machine_fits`, `over_capacity`; `no_demand` when ' +
      'there is nothing to roast). With `locationId` only that location’s machines and green stock are planned with (404 naming ' +
      '`locationId` when it is not one of the organization’s). Green availability is on hand less reserved; a quarantined lot has none. ' +
      'Nothing is reserved.',
    permission: 'production.schedule.write',
    feature,
    get: false,
    input: GenerateProductionSchedule,
    output: ProductionSchedule,
    errors: ['not_found'],
    emits: [scheduleGenerated],
    async handler(ctx, input) {
      const locationId = input.locationId ?? null;
      if (locationId !== null && !(await findLocation(ctx.tx, ctx.orgId, locationId))) throw notFound('location', locationId, 'locationId');
      const demand = await listDemand(ctx.tx, ctx.orgId, input.dueBefore ?? null);
      const lotIds = [...new Set(demand.flatMap((d) => (d.greenLotId === null ? [] : [d.greenLotId])))];
      const plan = planProduction({
        demand: demand.map(toPlannerDemand),
        machines: await listActiveMachineSizes(ctx.tx, ctx.orgId, locationId),
        greenAvailableKg: await roastableKg(ctx.tx, ctx.orgId, lotIds, locationId),
        maxBatchesPerMachine: input.maxBatchesPerMachine ?? null,
      });
      const id = await repo.insertSchedule(
        ctx.tx,
        ctx.orgId,
        ctx.principal.credentialId,
        {
          name: input.name,
          scheduledDate: input.scheduledDate,
          locationId,
          dueBefore: input.dueBefore ?? null,
          maxBatchesPerMachine: input.maxBatchesPerMachine ?? null,
          notes: plan.notes,
        },
        plan.batches,
      );
      const schedule = await scheduleWithBatches(ctx.tx, ctx.orgId, id);
      await ctx.emit('production.schedule.generated', { schedule });
      return schedule;
    },
  }),

  defineOperation({
    name: 'production.schedule.getProductionSchedule',
    summary: 'A production schedule with its feasibility notes, its batches in roasting order and totals.',
    description:
      'State `draft` or `released`. Each batch gives its position across the schedule, machine and sequence on it, profile, green lot, ' +
      'green kilograms, expected roasted kilograms and loss.',
    permission: 'production.schedule.read',
    feature,
    get: true,
    input: ById,
    output: ProductionSchedule,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return scheduleWithBatches(ctx.tx, ctx.orgId, id);
    },
  }),

  defineOperation({
    name: 'production.schedule.releaseScheduleToProduction',
    summary: 'Commit a draft schedule to the roasting floor.',
    description:
      'Its state becomes `released`, stamped with who released it and when: a deliberate human step (permission ' +
      '`production.schedule.approve`). Releasing a released schedule is refused with 409 `schedule_already_released`.',
    permission: 'production.schedule.approve',
    feature,
    get: false,
    input: ById,
    output: ProductionSchedule,
    errors: ['not_found', 'schedule_already_released'],
    emits: [scheduleReleased],
    async handler(ctx, { id }) {
      const current = (await repo.findSchedule(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('production schedule', id);
      if (current.state === 'released') {
        throw conflict('schedule_already_released', `Schedule ${current.name} was released at ${current.releasedAt}.`, { releasedAt: current.releasedAt });
      }
      await repo.markReleased(ctx.tx, ctx.orgId, id, ctx.principal.credentialId);
      const schedule = await scheduleWithBatches(ctx.tx, ctx.orgId, id);
      await ctx.emit('production.schedule.released', { schedule });
      return schedule;
    },
  }),
];

async function scheduleWithBatches(q: Queryable, orgId: string, id: string) {
  const schedule = (await repo.findSchedule(q, orgId, id)) ?? throwNotFound('production schedule', id);
  const batches = await repo.listScheduledBatches(q, orgId, id);
  const total = (pick: (b: (typeof batches)[number]) => string) => kgString(batches.reduce((sum, b) => sum + grams(pick(b)), 0n));
  return {
    ...schedule,
    batches,
    totals: { batchCount: batches.length, greenKg: total((b) => b.greenKg), expectedRoastedKg: total((b) => b.expectedRoastedKg) },
  };
}

