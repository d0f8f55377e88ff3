import { defineOperation } from '../../../rpc/define.js';
import { conflict, invalidInput, throwNotFound } from '../../../rpc/errors.js';
import { pageOut } from '../../../rpc/outputs.js';
import { grams } from '../../../lib/grams.js';
import * as partyService from '../../catalog/party/service.js';
import * as greenService from '../../inventory/green/service.js';
import * as lineageService from '../../lineage/service.js';
import * as contractService from '../contract/service.js';
import * as repo from './repository.js';
import {
  ARRIVED_STATUSES,
  ById,
  CreateSample,
  ListSamples,
  SAMPLE_TRANSITIONS,
  Sample,
  SampleTransfer,
  TransferSampleToInventory,
  UpdateSampleStatus,
} from './schemas.js';
import { sampleApproved, sampleCreated, sampleRejected, sampleStatusChanged, sampleTransferred } from './events.js';

const feature = 'samples' as const;

export const sampleOperations = [
  defineOperation({
    name: 'sourcing.sample.createSample',
    summary: 'Record a sample (status requested): offer, pre-shipment, arrival, type, spot, production or competition.',
    description:
      'Links are checked to be this organization’s (404 naming the field): partnerId, producerId, contractId, contractLineId. ' +
      'A contractLineId must belong to contractId when both are given (400 naming contractLineId); alone it names its contract. ' +
      'With a contract, partnerId defaults to the contract’s partner, and with a contract line producerId to the line’s producer. ' +
      'Sample numbers are unique per organization (409 `duplicate`). A sample is evaluated, not stocked: it holds no inventory ' +
      'until transferSampleToInventory.',
    permission: 'sourcing.sample.write',
    feature,
    get: false,
    input: CreateSample,
    output: Sample,
    errors: ['not_found', 'duplicate'],
    emits: [sampleCreated],
    async handler(ctx, input) {
      const q = ctx.tx;
      let { partnerId, producerId, contractId } = input;
      if (partnerId && !(await partyService.findPartner(q, ctx.orgId, partnerId))) throwNotFound('partner', partnerId, 'partnerId');
      if (producerId && !(await partyService.findProducer(q, ctx.orgId, producerId))) throwNotFound('producer', producerId, 'producerId');
      if (contractId) {
        const contract = (await contractService.findContract(q, ctx.orgId, contractId)) ?? throwNotFound('contract', contractId, 'contractId');
        partnerId ??= contract.partnerId;
      }
      if (input.contractLineId) {
        const line = (await contractService.findContractLine(q, ctx.orgId, input.contractLineId)) ?? throwNotFound('contract line', input.contractLineId, 'contractLineId');
        if (contractId && line.contractId !== contractId) {
          throw invalidInput([{ path: 'contractLineId', message: `is not a line of contract ${contractId}` }]);
        }
        if (!contractId) {
          contractId = line.contractId;
          partnerId ??= (await contractService.findContract(q, ctx.orgId, contractId))!.partnerId;
        }
        producerId ??= line.producerId ?? undefined;
      }
      const sample = await repo.insertSample(q, ctx.orgId, ctx.principal.credentialId, { ...input, partnerId, producerId, contractId });
      await ctx.emit('sourcing.sample.created', { sample });
      return sample;
    },
  }),

  defineOperation({
    name: 'sourcing.sample.getSample',
    summary: 'A sample with its status, decision and the green lot it became.',
    description: 'Another organization’s sample answers 404 like a missing one.',
    permission: 'sourcing.sample.read',
    feature,
    get: true,
    input: ById,
    output: Sample,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findSample(ctx.tx, ctx.orgId, id)) ?? throwNotFound('sample', id, 'id');
    },
  }),

  defineOperation({
    name: 'sourcing.sample.listSamples',
    summary: 'Samples, oldest first.',
    description:
      'Filters: `sampleType`, `status`, `partnerId`, `producerId`, `contractId`, `transferred` (became a green lot), `q` ' +
      '(case-insensitive search in sample number and name).',
    permission: 'sourcing.sample.read',
    feature,
    get: true,
    input: ListSamples,
    output: pageOut(Sample),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listSamples(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'sourcing.sample.updateSampleStatus',
    summary: 'Move a sample along its transition table; approving or rejecting stamps the decision.',
    description:
      'Allowed moves: requested → in_transit or received; in_transit → received; received → roasted or cupped; roasted → ' +
      'cupped; cupped → approved or rejected; approved ↔ rejected (a revised decision); any status → archived; nothing leaves ' +
      'archived. Anything else, the current status included, is 409 `invalid_state_transition` naming from and to. approved ' +
      'and rejected stamp the decision time and keep `decisionNotes` (accepted only with them); an archived sample keeps its ' +
      'decision. `trackingNumbers` replace the list. A contract’s sample_approval milestone points to its approved ' +
      'pre-shipment sample.',
    permission: 'sourcing.sample.approve',
    feature,
    get: false,
    input: UpdateSampleStatus,
    output: Sample,
    errors: ['not_found', 'invalid_state_transition'],
    emits: [sampleStatusChanged, sampleApproved, sampleRejected],
    async handler(ctx, { id, status, decisionNotes, trackingNumbers }) {
      const current = (await repo.findSample(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('sample', id, 'id');
      const allowed = SAMPLE_TRANSITIONS[current.status];
      if (!allowed.includes(status)) {
        throw conflict('invalid_state_transition', `A sample cannot move from ${current.status} to ${status}.`, {
          from: current.status,
          to: status,
          allowed,
          errors: [{ path: 'status', message: allowed.length ? `from ${current.status} only ${allowed.join(', ')}` : `${current.status} is final` }],
        });
      }
      const sample = await repo.updateStatus(ctx.tx, ctx.orgId, id, { status, decisionNotes, trackingNumbers });
      await ctx.emit('sourcing.sample.status_changed', { sample, from: current.status, to: status });
      if (status === 'approved') await ctx.emit('sourcing.sample.approved', { sample });
      if (status === 'rejected') await ctx.emit('sourcing.sample.rejected', { sample });
      return sample;
    },
  }),

  defineOperation({
    name: 'sourcing.sample.transferSampleToInventory',
    summary: 'Turn a sample into a green lot with the sample’s provenance.',
    description:
      'The lot is created through the green inventory: its weight booked as a `receive` ledger row at `locationId` (or the ' +
      'unassigned balance; an archived location is 409 `location_archived`), with the sample’s producer and partner, ' +
      'supplierRef = the sample number, and lineage sample → lot (and contract → sample for a contract’s sample, producer → lot), ' +
      'so the lot’s trace shows the sample and contract. The sample shows the lot (greenLotId). Only a sample that has arrived ' +
      '(received or later) can be transferred (409 `state_mismatch`); a second transfer is 409 `sample_already_transferred`; ' +
      'the weight cannot exceed the sample’s recorded weight (400 naming weightKg). Lot codes are unique (409 `duplicate`).',
    permission: 'sourcing.sample.write',
    feature,
    get: false,
    input: TransferSampleToInventory,
    output: SampleTransfer,
    errors: ['not_found', 'sample_already_transferred', 'state_mismatch', 'duplicate', 'location_archived'],
    emits: [sampleTransferred],
    async handler(ctx, { id, lotCode, weightKg, locationId }) {
      const current = (await repo.findSample(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('sample', id, 'id');
      if (current.greenLotId) {
        throw conflict('sample_already_transferred', `Sample ${current.sampleNumber} was transferred to green lot ${current.greenLotId}.`, {
          greenLotId: current.greenLotId,
          errors: [{ path: 'id', message: 'already transferred' }],
        });
      }
      if (!ARRIVED_STATUSES.includes(current.status)) {
        throw conflict('state_mismatch', `Sample ${current.sampleNumber} is ${current.status}; only a sample that has arrived can become a lot.`, {
          errors: [{ path: 'id', message: `sample is ${current.status}` }],
        });
      }
      if (current.weightKg !== null && grams(weightKg) > grams(current.weightKg)) {
        throw invalidInput([{ path: 'weightKg', message: `at most the sample's ${current.weightKg} kg` }]);
      }
      const { lots } = await greenService.receiveGreenLots(ctx.tx, ctx.orgId, ctx.principal.credentialId, [
        {
          lot: {
            lotCode,
            name: current.name,
            state: 'green',
            producerId: current.producerId ?? undefined,
            partnerId: current.partnerId ?? undefined,
            supplierRef: current.sampleNumber,
            notes: `from ${current.sampleType} sample ${current.sampleNumber}`,
          },
          weightKg,
          locationId: locationId ?? null,
          costComponents: [],
          comment: `sample ${current.sampleNumber}`,
          paths: { lotCode: 'lotCode', locationId: 'locationId' },
        },
      ]);
      const [lot] = lots;
      const edges: lineageService.NewLineageEdge<lineageService.NodeKind>[] = [
        { fromKind: 'sample', fromId: id, toKind: 'green_lot', toId: lot.id, weightKg: lot.openingKg },
      ];
      if (current.contractId) edges.push({ fromKind: 'contract', fromId: current.contractId, toKind: 'sample', toId: id, weightKg: null });
      if (current.producerId) edges.push({ fromKind: 'producer', fromId: current.producerId, toKind: 'green_lot', toId: lot.id, weightKg: lot.openingKg });
      await lineageService.recordEdges(ctx.tx, ctx.orgId, edges);
      const sample = await repo.markTransferred(ctx.tx, ctx.orgId, id, lot.id);
      await ctx.emit('sourcing.sample.transferred', { sample, greenLotId: lot.id, lotCode: lot.lotCode, weightKg: lot.openingKg });
      return { sample, lot };
    },
  }),
];

