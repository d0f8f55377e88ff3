import type { Queryable } from '../../../db/client.js';
import { defineOperation } from '../../../rpc/define.js';
import { conflict, invalidInput, throwNotFound } from '../../../rpc/errors.js';
import { pageOut } from '../../../rpc/outputs.js';
import { grams, kgString } from '../../../lib/grams.js';
import * as locationService from '../../catalog/location/service.js';
import * as greenService from '../../inventory/green/service.js';
import * as lineageService from '../../lineage/service.js';
import * as traceability from '../../traceability/service.js';
import * as sampleService from '../sample/service.js';
import * as repo from './repository.js';
import { createContract } from './service.js';
import {
  ById,
  COMMITTED_STATUSES,
  CONTRACT_TRANSITIONS,
  Contract,
  ContractSummary,
  CreateContract,
  CreateContractMilestone,
  CreateContractShipment,
  ENDED_STATUSES,
  ListContractMilestones,
  ListContractShipments,
  ListContracts,
  ListOpenPositions,
  Milestone,
  MilestoneList,
  OpenPositions,
  ReceiveContractShipment,
  SHIPPABLE_STATUSES,
  Shipment,
  ShipmentReceipt,
  UpdateContractStatus,
  type ContractStatus,
} from './schemas.js';
import { contractCreated, contractStatusChanged, milestoneCompleted, milestoneCreated, shipmentCreated, shipmentReceived } from './events.js';

const feature = 'green_contracts' as const;


export const contractOperations = [
  defineOperation({
    name: 'sourcing.contract.createContract',
    summary: 'Create a green purchase contract (status draft) with its lines.',
    description:
      'The partner must be an active partner of type supplier, importer, exporter, cooperative or producer (400 naming ' +
      '`partnerId` otherwise; 404 when it is not this organization’s). `currency` defaults to the partner’s default currency. ' +
      'Each line names a producer (checked to be this organization’s, 404 naming `lines[i].producerId`) and/or an origin ' +
      'description, a quality description, `weightKg` and its price per kilogram: `pricePerKg` (fixed), or ' +
      '`differentialPerKg` against a named `market` with a `fixationStatus` (fixed needs pricePerKg). A `fixed` contract needs ' +
      'pricePerKg on every line, a `differential` one a differential. All lines are in the contract’s currency. The position ' +
      '(total, shipped, received, open kg; value where fixed) is derived from the lines, shipments and receipts, never set by hand. ' +
      'Contract numbers are unique per organization (409 `duplicate`).',
    permission: 'sourcing.contract.write',
    feature,
    get: false,
    input: CreateContract,
    output: Contract,
    errors: ['not_found', 'duplicate'],
    emits: [contractCreated],
    async handler(ctx, input) {
      const contract = await createContract(ctx.tx, ctx.orgId, ctx.principal.credentialId, input);
      await ctx.emit('sourcing.contract.created', { contract });
      return contract;
    },
  }),

  defineOperation({
    name: 'sourcing.contract.getContract',
    summary: 'A contract with its lines and its position.',
    description:
      'The position: totalKg (sum of the lines), shippedKg (booked on shipments), receivedKg (landed as green lots), openKg ' +
      '(total − received), unshippedKg (total − shipped), fixedKg and fixedValue (lines with a fixed price), openFixedValue. ' +
      'Each line carries its receivedKg and openKg. Another organization’s contract answers 404 like a missing one.',
    permission: 'sourcing.contract.read',
    feature,
    get: true,
    input: ById,
    output: Contract,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findContract(ctx.tx, ctx.orgId, id)) ?? throwNotFound('contract', id, 'id');
    },
  }),

  defineOperation({
    name: 'sourcing.contract.listContracts',
    summary: 'Contracts (without lines), oldest first.',
    description:
      'Filters: `status`, `partnerId`, `open` (committed — confirmed, partially_shipped, shipped or arrived — with weight still ' +
      'to receive), `q` (case-insensitive search in the contract number). Items carry the position; getContract adds the lines.',
    permission: 'sourcing.contract.read',
    feature,
    get: true,
    input: ListContracts,
    output: pageOut(ContractSummary),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listContracts(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'sourcing.contract.updateContractStatus',
    summary: 'Move a contract to another status along its transition table.',
    description:
      'Allowed moves: draft → pending → confirmed → partially_shipped → shipped → arrived → closed, one step at a time; ' +
      'canceled and defaulted from any open status; nothing leaves closed, canceled or defaulted. Anything else, the current ' +
      'status included, is 409 `invalid_state_transition` naming from and to. partially_shipped, shipped and arrived are also ' +
      'set by the shipment operations: createContractShipment sets partially_shipped (shipped once the whole contract is booked), ' +
      'receiveContractShipment sets arrived once everything is booked and every shipment received.',
    permission: 'sourcing.contract.approve',
    feature,
    get: false,
    input: UpdateContractStatus,
    output: ContractSummary,
    errors: ['not_found', 'invalid_state_transition'],
    emits: [contractStatusChanged],
    async handler(ctx, { id, status }) {
      const current = (await repo.findContractSummary(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('contract', id, 'id');
      if (!CONTRACT_TRANSITIONS[current.status].includes(status)) {
        const allowed = CONTRACT_TRANSITIONS[current.status];
        throw conflict('invalid_state_transition', `A contract cannot move from ${current.status} to ${status}.`, {
          from: current.status,
          to: status,
          allowed,
          errors: [{ path: 'status', message: allowed.length ? `from ${current.status} only ${allowed.join(', ')}` : `${current.status} is final` }],
        });
      }
      await repo.setContractStatus(ctx.tx, ctx.orgId, id, status);
      const contract = (await repo.findContractSummary(ctx.tx, ctx.orgId, id))!;
      await ctx.emit('sourcing.contract.status_changed', { contract, from: current.status, to: status, cause: 'manual' });
      return contract;
    },
  }),

  defineOperation({
    name: 'sourcing.contract.createContractMilestone',
    summary: 'Add a milestone with a due time to a contract.',
    description:
      'Kinds: contract_signed, fixation, shipment, vessel_departure, vessel_arrival, customs_clearance, warehouse_receipt, ' +
      'sample_approval, payment; a contract may have several of a kind. A closed, canceled or defaulted contract takes no new ' +
      'milestones (409 `state_mismatch`).',
    permission: 'sourcing.contract.write',
    feature,
    get: false,
    input: CreateContractMilestone,
    output: Milestone,
    errors: ['not_found', 'state_mismatch'],
    emits: [milestoneCreated],
    async handler(ctx, input) {
      const contract = (await repo.findContractSummary(ctx.tx, ctx.orgId, input.contractId, { forUpdate: true })) ??
        throwNotFound('contract', input.contractId, 'contractId');
      requireNotEnded(contract, 'contractId');
      const milestone = await repo.insertMilestone(ctx.tx, ctx.orgId, input);
      await ctx.emit('sourcing.milestone.created', { milestone });
      return milestone;
    },
  }),

  defineOperation({
    name: 'sourcing.contract.completeContractMilestone',
    summary: 'Stamp a milestone complete, once.',
    description:
      'Completing twice is 409 `milestone_already_completed`. A sample_approval milestone points to the contract’s approved ' +
      'pre-shipment sample (the latest decided): without one it refuses with 409 `sample_not_approved`, naming the rejected ' +
      'samples when there are some.',
    permission: 'sourcing.contract.write',
    feature,
    get: false,
    input: ById,
    output: Milestone,
    errors: ['not_found', 'milestone_already_completed', 'sample_not_approved'],
    emits: [milestoneCompleted],
    async handler(ctx, { id }) {
      const current = (await repo.findMilestone(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('milestone', id, 'id');
      if (current.completedAt) {
        throw conflict('milestone_already_completed', `Milestone ${current.kind} of contract ${current.contractNumber} was completed at ${current.completedAt}.`, {
          completedAt: current.completedAt,
        });
      }
      let sampleId: string | null = null;
      if (current.kind === 'sample_approval') {
        const decisions = await sampleService.preShipmentDecisions(ctx.tx, ctx.orgId, current.contractId);
        if (!decisions.approvedSampleId) {
          const rejected = decisions.rejectedSampleNumbers;
          throw conflict(
            'sample_not_approved',
            rejected.length
              ? `Pre-shipment sample ${rejected.join(', ')} of contract ${current.contractNumber} was rejected and no other pre-shipment sample is approved; approve one before completing sample_approval.`
              : `Contract ${current.contractNumber} has no approved pre-shipment sample; approve one before completing sample_approval.`,
            { rejectedSamples: rejected },
          );
        }
        sampleId = decisions.approvedSampleId;
      }
      const milestone = await repo.completeMilestone(ctx.tx, ctx.orgId, id, ctx.principal.credentialId, sampleId);
      await ctx.emit('sourcing.milestone.completed', { milestone, contractId: milestone.contractId });
      return milestone;
    },
  }),

  defineOperation({
    name: 'sourcing.contract.listContractMilestones',
    summary: 'Milestones across all contracts (or one), soonest due first.',
    description:
      'Org-wide by default. Filters: `contractId`, `kind`, `dueFrom` (due at or after), `dueTo` (due before), `overdue` (not ' +
      'completed and due before now), `completed`. Unpaged: at most the 1000 soonest due, with `truncated` true when more ' +
      'matched (narrow the filter); `nextCursor` is always null.',
    permission: 'sourcing.contract.read',
    feature,
    get: true,
    input: ListContractMilestones,
    output: MilestoneList,
    errors: [],
    async handler(ctx, { filter }) {
      return repo.listMilestones(ctx.tx, ctx.orgId, filter);
    },
  }),

  defineOperation({
    name: 'sourcing.contract.createContractShipment',
    summary: 'Book a shipment against a contract.',
    description:
      'Only a confirmed or partially_shipped contract ships (409 `state_mismatch`). The weight cannot exceed what the contract ' +
      'has not yet booked on shipments (409 `exceeds_open_weight`, decided under the contract’s row lock). References are ' +
      'unique per contract (409 `duplicate`). `destinationLocationId` must be a location of this organization, not archived. ' +
      'The contract becomes partially_shipped, or shipped once its whole weight is booked (sourcing.contract.status_changed, cause shipment).',
    permission: 'sourcing.contract.write',
    feature,
    get: false,
    input: CreateContractShipment,
    output: Shipment,
    errors: ['not_found', 'state_mismatch', 'exceeds_open_weight', 'duplicate', 'location_archived'],
    emits: [shipmentCreated, contractStatusChanged],
    async handler(ctx, input) {
      const contract = (await repo.findContractSummary(ctx.tx, ctx.orgId, input.contractId, { forUpdate: true })) ??
        throwNotFound('contract', input.contractId, 'contractId');
      if (input.destinationLocationId) await requireReceivingLocation(ctx.tx, ctx.orgId, input.destinationLocationId, 'destinationLocationId');
      if (!SHIPPABLE_STATUSES.includes(contract.status)) {
        throw conflict('state_mismatch', `Contract ${contract.contractNumber} is ${contract.status}; shipments are booked on confirmed or partially_shipped contracts.`, {
          errors: [{ path: 'contractId', message: `contract is ${contract.status}` }],
        });
      }
      const unshipped = grams(contract.position.unshippedKg);
      if (grams(input.weightKg) > unshipped) {
        throw conflict('exceeds_open_weight', `Contract ${contract.contractNumber} has ${kgString(unshipped)} kg not yet booked on a shipment.`, {
          unshippedKg: kgString(unshipped),
          errors: [{ path: 'weightKg', message: `at most ${kgString(unshipped)} kg is open` }],
        });
      }
      const shipmentId = await repo.insertShipment(ctx.tx, ctx.orgId, ctx.principal.credentialId, input);
      const status: ContractStatus = grams(input.weightKg) === unshipped ? 'shipped' : 'partially_shipped';
      await repo.addShipped(ctx.tx, ctx.orgId, contract.id, input.weightKg, status);
      const after = (await repo.findContractSummary(ctx.tx, ctx.orgId, contract.id))!;
      const shipment = (await repo.findShipment(ctx.tx, ctx.orgId, shipmentId))!;
      await ctx.emit('sourcing.shipment.created', { shipment, contract: after });
      if (status !== contract.status) await ctx.emit('sourcing.contract.status_changed', { contract: after, from: contract.status, to: status, cause: 'shipment' });
      return shipment;
    },
  }),

  defineOperation({
    name: 'sourcing.contract.listContractShipments',
    summary: 'Shipments, oldest first.',
    description: 'Filters: `contractId`, `status` (booked or received). Received shipments name the green lots their receipt created.',
    permission: 'sourcing.contract.read',
    feature,
    get: true,
    input: ListContractShipments,
    output: pageOut(Shipment),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listShipments(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'sourcing.contract.receiveContractShipment',
    summary: 'Receive a shipment: one green lot per line, all or none.',
    description:
      'Atomic. Each line names a line of the shipment’s contract (404 naming `lines[i].contractLineId` otherwise), a lot code ' +
      '(unique per organization: 409 `duplicate` naming `lines[i].lotCode`) and the landed weight. Each lot is created through ' +
      'the green inventory: opening weight as a `receive` ledger row at the line’s `locationId`, the receipt’s, the shipment’s ' +
      'destination, or else the unassigned balance; provenance: the line’s producer, the contract’s partner, supplierRef = the ' +
      'contract number, the line’s process and harvest; cost components version 1: price (per kg, fixed lines only) and the ' +
      'receipt line’s freight, duty and carry (lot totals), all in the contract currency. Lineage contract → lot (and producer ' +
      '→ lot). A line’s `plotIds` / `producerIds` (an extension) declare its lot’s origin (404 naming `lines[i].plotIds[j]` for ' +
      'a plot not of the organization); a lot whose line names none inherits the origin declared for its contract line, else its ' +
      'shipment’s or contract’s (traceability.getDueDiligenceStatement). The contract’s received weight moves by the landed weights, which may differ from the booked weight (no ' +
      'tolerance is enforced; open weight never goes below zero); once everything is booked and every shipment received the ' +
      'contract becomes arrived. ' +
      'The shipment is locked for the receipt: receiving it twice (or concurrently) is 409 `shipment_already_received`; a ' +
      'closed, canceled or defaulted contract receives nothing (409 `state_mismatch`). Retry with the same Idempotency-Key to ' +
      'get the first answer without a second receipt.',
    permission: 'sourcing.contract.write',
    feature,
    get: false,
    input: ReceiveContractShipment,
    output: ShipmentReceipt,
    errors: ['not_found', 'shipment_already_received', 'state_mismatch', 'duplicate', 'location_archived'],
    emits: [shipmentReceived, contractStatusChanged],
    async handler(ctx, input) {
      const shipment = (await repo.findShipment(ctx.tx, ctx.orgId, input.shipmentId, { forUpdate: true })) ??
        throwNotFound('shipment', input.shipmentId, 'shipmentId');
      if (shipment.status === 'received') {
        throw conflict('shipment_already_received', `Shipment ${shipment.reference} was received at ${shipment.receivedAt}.`, {
          receivedAt: shipment.receivedAt,
          errors: [{ path: 'shipmentId', message: 'already received' }],
        });
      }
      const contract = (await repo.findContractSummary(ctx.tx, ctx.orgId, shipment.contractId, { forUpdate: true }))!;
      requireNotEnded(contract, 'shipmentId');
      // Every id the input names is checked, also a receipt location every line overrides.
      if (input.locationId !== undefined) await requireReceivingLocation(ctx.tx, ctx.orgId, input.locationId, 'locationId');
      const contractLines = new Map((await repo.findLines(ctx.tx, ctx.orgId, contract.id)).map((l) => [l.id, l]));
      const receipts: greenService.GreenLotReceipt[] = input.lines.map((line, i) => {
        const cl = contractLines.get(line.contractLineId) ?? throwNotFound('contract line', line.contractLineId, `lines[${i}].contractLineId`);
        const costComponents: greenService.CostComponent[] = [];
        if (cl.fixationStatus === 'fixed' && cl.pricePerKg !== null) {
          costComponents.push({ bucket: 'price', amount: cl.pricePerKg, currency: contract.currency, basis: 'per_kg', description: `contract ${contract.contractNumber} line ${cl.lineNumber}` });
        }
        for (const bucket of ['freight', 'duty', 'carry'] as const) {
          const amount = line[bucket];
          if (amount !== undefined) costComponents.push({ bucket, amount, currency: contract.currency, basis: 'total', description: `shipment ${shipment.reference}` });
        }
        return {
          lot: {
            lotCode: line.lotCode,
            name: line.name ?? `${cl.origin ?? cl.quality ?? contract.contractNumber} (${contract.contractNumber}/${cl.lineNumber})`,
            state: 'green',
            producerId: cl.producerId ?? undefined,
            partnerId: contract.partnerId,
            supplierRef: contract.contractNumber,
            processMethod: cl.processMethod ?? undefined,
            harvestYear: cl.harvestYear ?? undefined,
            bagCount: line.bagCount ?? cl.bagCount ?? undefined,
            bagWeightKg: line.bagWeightKg ?? cl.bagWeightKg ?? undefined,
            unitCost: cl.fixationStatus === 'fixed' ? (cl.pricePerKg ?? undefined) : undefined,
            currency: cl.fixationStatus === 'fixed' && cl.pricePerKg !== null ? contract.currency : undefined,
            notes: line.notes,
          },
          weightKg: line.weightKg,
          locationId: line.locationId ?? input.locationId ?? shipment.destinationLocationId ?? null,
          costComponents,
          comment: `contract ${contract.contractNumber} shipment ${shipment.reference}`,
          paths: { lotCode: `lines[${i}].lotCode`, locationId: line.locationId ? `lines[${i}].locationId` : input.locationId ? 'locationId' : 'shipmentId' },
        };
      });
      const { lots } = await greenService.receiveGreenLots(ctx.tx, ctx.orgId, ctx.principal.credentialId, receipts);
      const received = input.lines.map((line, i) => ({ contractLineId: line.contractLineId, greenLotId: lots[i].id, weightKg: lots[i].openingKg }));
      const everythingShipped = grams(contract.position.unshippedKg) === 0n;
      const othersBooked = await repo.hasBookedShipments(ctx.tx, ctx.orgId, contract.id, shipment.id);
      const status: ContractStatus = everythingShipped && !othersBooked && COMMITTED_STATUSES.includes(contract.status) ? 'arrived' : contract.status;
      await repo.recordReceipt(ctx.tx, ctx.orgId, shipment.id, contract.id, received, status);
      // A receipt line naming plots (or producers) declares its lot's origin; others inherit their contract line's.
      for (const [i, line] of input.lines.entries()) {
        if (line.plotIds === undefined && line.producerIds === undefined) continue;
        await traceability.declareOrigin(
          ctx.tx,
          ctx.orgId,
          { kind: 'green_lot', id: lots[i].id },
          { plotIds: line.plotIds ?? [], producerIds: line.producerIds ?? [] },
          `lines[${i}].`,
        );
      }
      await lineageService.recordEdges<lineageService.NodeKind>(ctx.tx, ctx.orgId, [
        ...received.map((r) => ({ fromKind: 'contract' as const, fromId: contract.id, toKind: 'green_lot' as const, toId: r.greenLotId, weightKg: r.weightKg, groupId: shipment.id })),
        ...received.flatMap((r) => {
          const producerId = contractLines.get(r.contractLineId)!.producerId;
          return producerId ? [{ fromKind: 'producer' as const, fromId: producerId, toKind: 'green_lot' as const, toId: r.greenLotId, weightKg: r.weightKg }] : [];
        }),
      ]);
      const after = (await repo.findContractSummary(ctx.tx, ctx.orgId, contract.id))!;
      const receivedShipment = (await repo.findShipment(ctx.tx, ctx.orgId, shipment.id))!;
      await ctx.emit('sourcing.shipment.received', {
        shipment: receivedShipment,
        contract: after,
        lots: received.map((r, i) => ({ ...r, lotCode: lots[i].lotCode })),
      });
      if (status !== contract.status) await ctx.emit('sourcing.contract.status_changed', { contract: after, from: contract.status, to: status, cause: 'receipt' });
      return { shipment: receivedShipment, contract: after, lots };
    },
  }),

  defineOperation({
    name: 'sourcing.contract.listOpenPositions',
    summary: 'Committed and not yet received green coffee: per contract, per producer and origin, and in total.',
    description:
      'Contracts count while confirmed, partially_shipped, shipped or arrived with weight still to receive (drafts and pending ' +
      'contracts are not commitments; closed, canceled and defaulted ones no longer are). openKg = contracted − received (per ' +
      'line for byOrigin, never below zero); openFixedValue = what is still to receive on lines with a fixed price, at that ' +
      'price, per currency (unfixed lines have no value yet). One statement over the open contracts only, whatever the history.',
    permission: 'sourcing.contract.read',
    feature,
    get: true,
    input: ListOpenPositions,
    output: OpenPositions,
    errors: [],
    async handler(ctx) {
      return repo.openPositions(ctx.tx, ctx.orgId);
    },
  }),
];

// ---------------------------------------------------------------------------------------------------


function requireNotEnded(contract: repo.ContractSummary, path: string): void {
  if (ENDED_STATUSES.includes(contract.status)) {
    throw conflict('state_mismatch', `Contract ${contract.contractNumber} is ${contract.status}.`, { errors: [{ path, message: `contract is ${contract.status}` }] });
  }
}

async function requireReceivingLocation(q: Queryable, orgId: string, id: string, path: string): Promise<void> {
  const location = (await locationService.findLocation(q, orgId, id)) ?? throwNotFound('location', id, path);
  if (location.archivedAt) throw conflict('location_archived', `Location ${id} is archived and cannot receive coffee.`, { errors: [{ path, message: 'archived' }] });
}
