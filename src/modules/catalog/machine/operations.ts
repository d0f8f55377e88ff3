import type { Queryable } from '../../../db/client.js';
import { issueBridgeToken, revokeBridgeTokens, type Principal } from '../../../auth/credentials.js';
import { lockOrganization } from '../../../auth/organizations.js';
import { PLAN_TERMS } from '../../../auth/plans.js';
import { defineOperation } from '../../../rpc/define.js';
import { ProblemError, conflict, invalidInput, notFound, throwNotFound } from '../../../rpc/errors.js';
import { findLocation } from '../location/service.js';
import * as repo from './repository.js';
import { pageOut } from '../../../rpc/outputs.js';
import { ById, IssueMachineBridgeToken, ListMachines, Machine, MachineBridgeToken, RegisterMachine, UpdateMachine } from './schemas.js';
import { machineBridgeTokenIssued, machineRegistered, machineUpdated } from './events.js';

const feature = 'core' as const;

export const machineOperations = [
  defineOperation({
    name: 'catalog.machine.registerMachine',
    summary: 'Register a roasting machine; it is active at once.',
    description:
      'Refused with 402 `machine_cap_reached` when the plan’s cap of active machines is reached (the problem names `plan`, ' +
      '`machineCap` and `activeMachines`). Batch sizes must satisfy minBatchKg ≤ maxBatchKg ≤ capacityKg (400 naming the field). ' +
      'The location must exist (404) and not be archived (409 `location_archived`). Codes are unique per organization (409 `duplicate`, naming `code`). ' +
      'Extension fields (not in the specification): `burnerRatingKw` (burner or heater power at 100 %, kW) and `fuel` (lpg, natural_gas, electric); ' +
      'with both, and burner power in % in the telemetry (a live `burner` channel, or an imported log\'s burner column), completed batches report energy and CO2 as Artisan computes them.',
    permission: 'catalog.machine.write',
    feature,
    get: false,
    input: RegisterMachine,
    output: Machine,
    errors: ['not_found', 'location_archived', 'machine_cap_reached', 'duplicate'],
    emits: [machineRegistered],
    async handler(ctx, input) {
      await lockOrganization(ctx.tx, ctx.orgId);
      if (input.locationId) await requireOpenLocation(ctx.tx, ctx.orgId, input.locationId);
      requireBatchRange(input, new Set(Object.keys(input)));
      await requireRoomUnderCap(ctx.tx, ctx.orgId, ctx.principal);
      const machine = await repo.insertMachine(ctx.tx, ctx.orgId, input);
      await ctx.emit('catalog.machine.registered', { machine });
      return machine;
    },
  }),

  defineOperation({
    name: 'catalog.machine.getMachine',
    summary: 'A roasting machine, active or not.',
    description: 'Its bridge tokens are never shown again after issue. Another organization’s machine answers 404 exactly like a missing one.',
    permission: 'catalog.machine.read',
    feature,
    get: true,
    input: ById,
    output: Machine,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findMachine(ctx.tx, ctx.orgId, id)) ?? throwNotFound('machine', id);
    },
  }),

  defineOperation({
    name: 'catalog.machine.listMachines',
    summary: 'Roasting machines, oldest first.',
    description: 'Filters: `machineType`, `connectivity`, `locationId`, `isActive`, `q` (case-insensitive search in name, code, brand and model). Inactive machines are listed unless `isActive` says otherwise.',
    permission: 'catalog.machine.read',
    feature,
    get: true,
    input: ListMachines,
    output: pageOut(Machine),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listMachines(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'catalog.machine.updateMachine',
    summary: 'Change a machine.',
    description:
      'Only the fields given change; `null` clears an optional field; the code is fixed. Batch sizes are checked together with the stored ones ' +
      '(minBatchKg ≤ maxBatchKg ≤ capacityKg, 400 naming the field this request gave). A new location must exist (404) and not be archived ' +
      '(409 `location_archived`). Re-activating counts against the plan’s cap (402 `machine_cap_reached`); deactivating revokes the machine’s ' +
      'bridge tokens (the `catalog.machine.updated` event counts them). The extension fields `burnerRatingKw` and `fuel` (see registerMachine) change like the others.',
    permission: 'catalog.machine.write',
    feature,
    get: false,
    input: UpdateMachine,
    output: Machine,
    errors: ['not_found', 'location_archived', 'machine_cap_reached'],
    emits: [machineUpdated],
    async handler(ctx, { id, ...changes }) {
      // Lock order org → machine → location, the same as registerMachine's org → location, so the two never deadlock.
      if (changes.isActive === true) await lockOrganization(ctx.tx, ctx.orgId);
      const current = (await repo.findMachine(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('machine', id);
      if (changes.locationId && changes.locationId !== current.locationId) await requireOpenLocation(ctx.tx, ctx.orgId, changes.locationId);
      requireBatchRange({ ...current, ...changes }, new Set(Object.keys(changes)));
      const reactivating = changes.isActive === true && !current.isActive;
      const deactivating = changes.isActive === false && current.isActive;
      if (reactivating) await requireRoomUnderCap(ctx.tx, ctx.orgId, ctx.principal);
      // An inactive machine is outside the plan's metering, so it must not keep a way to stream telemetry.
      const revokedBridgeTokens = deactivating ? await revokeBridgeTokens(ctx.tx, ctx.orgId, id) : 0;
      const machine = await repo.updateMachine(ctx.tx, ctx.orgId, id, changes);
      await ctx.emit('catalog.machine.updated', { machine, ...(deactivating ? { revokedBridgeTokens } : {}) });
      return machine;
    },
  }),

  defineOperation({
    name: 'catalog.machine.issueMachineBridgeToken',
    summary: 'Issue a bridge token: a credential bound to one machine that can only post its telemetry to /ingest/v1/.',
    description:
      'The token is answered once; only its hash is kept. `expiresInHours`: 1–8760, default 720 (30 days). ' +
      'An inactive machine is refused (409 `machine_inactive`); deactivating a machine revokes its tokens.',
    permission: 'catalog.machine.write',
    feature,
    get: false,
    input: IssueMachineBridgeToken,
    output: MachineBridgeToken,
    errors: ['not_found', 'machine_inactive'],
    emits: [machineBridgeTokenIssued],
    async handler(ctx, { machineId, expiresInHours }) {
      // Locked so a concurrent deactivation (which revokes tokens) cannot miss this one.
      const machine = (await repo.findMachine(ctx.tx, ctx.orgId, machineId, { forUpdate: true })) ?? throwNotFound('machine', machineId, 'machineId');
      if (!machine.isActive) throw conflict('machine_inactive', `Machine ${machineId} is inactive; activate it before issuing a bridge token.`);
      const expiresAt = new Date(Date.now() + expiresInHours * 3_600_000);
      const { id, token } = await issueBridgeToken(ctx.tx, ctx.orgId, machineId, expiresAt);
      // The event feed is readable by other credentials and webhooks: it names the credential, never the secret.
      await ctx.emit('catalog.machine.bridge_token_issued', { machineId, credentialId: id, expiresAt: expiresAt.toISOString() });
      return { id, token, machineId, expiresAt: expiresAt.toISOString() };
    },
  }),
];

async function requireOpenLocation(tx: Queryable, orgId: string, locationId: string): Promise<void> {
  // Locked so the location cannot be archived while a machine is being placed in it.
  const location = await findLocation(tx, orgId, locationId, { forUpdate: true });
  if (!location) throw notFound('location', locationId, 'locationId');
  if (location.archivedAt) {
    throw conflict('location_archived', `Location ${locationId} is archived and cannot take a machine.`, {
      errors: [{ path: 'locationId', message: 'location is archived' }],
    });
  }
}

/** Call with the organization row locked (lockOrganization), so the count stays true until commit. */
async function requireRoomUnderCap(tx: Queryable, orgId: string, principal: Principal): Promise<void> {
  const cap = PLAN_TERMS[principal.plan].machineCap;
  if (cap === null) return;
  const active = await repo.countActiveMachines(tx, orgId);
  if (active >= cap) {
    throw new ProblemError(
      402,
      'machine_cap_reached',
      `The ${principal.plan} plan allows ${cap} active machine${cap === 1 ? '' : 's'}; deactivate one or upgrade the plan.`,
      { plan: principal.plan, machineCap: cap, activeMachines: active },
    );
  }
}

type BatchField = 'minBatchKg' | 'maxBatchKg' | 'capacityKg';
type BatchSizes = Partial<Record<BatchField, string | null>>;

/** Each pair must be ordered lower ≤ upper; the pairs cover minBatchKg ≤ maxBatchKg ≤ capacityKg. */
const ORDERED_PAIRS: [BatchField, BatchField][] = [
  ['minBatchKg', 'maxBatchKg'],
  ['maxBatchKg', 'capacityKg'],
  ['minBatchKg', 'capacityKg'],
];

/**
 * The machines_batch_range check, answered as a 400 naming a field this request gave: the upper bound when
 * only it changed, otherwise the lower one. Compared exactly in grams, never as binary floats.
 */
function requireBatchRange(sizes: BatchSizes, given: ReadonlySet<string>): void {
  for (const [lower, upper] of ORDERED_PAIRS) {
    const low = sizes[lower];
    const high = sizes[upper];
    if (low == null || high == null || grams(low) <= grams(high)) continue;
    const blameUpper = given.has(upper) && !given.has(lower);
    throw invalidInput(
      [blameUpper ? { path: upper, message: `must be at least ${lower} (${low})` } : { path: lower, message: `must be at most ${upper} (${high})` }],
      'Batch sizes must satisfy minBatchKg ≤ maxBatchKg ≤ capacityKg.',
    );
  }
}

/** A non-negative decimal string with at most three decimals ("12.5", "12.500") as integer grams. */
const grams = (kg: string): bigint => {
  const [whole, fraction = ''] = kg.split('.');
  return BigInt(whole + fraction.padEnd(3, '0'));
};

