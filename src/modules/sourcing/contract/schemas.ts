import { z } from 'zod';
import { code, currency, date, dateTime, decimal, id, kg, money, page, strict, text } from '../../../rpc/schemas.js';
import { currencyOut, dateOut, decimalOut, idOut, kgOut, out, timeOut } from '../../../rpc/outputs.js';
import { GreenLotWithBalances } from '../../inventory/green/schemas.js';

export const CONTRACT_STATUSES = ['draft', 'pending', 'confirmed', 'partially_shipped', 'shipped', 'arrived', 'closed', 'canceled', 'defaulted'] as const;
export type ContractStatus = (typeof CONTRACT_STATUSES)[number];
export const PRICE_TYPES = ['fixed', 'differential', 'to_be_fixed', 'formula'] as const;
export const INCOTERMS = ['EXW', 'FCA', 'FAS', 'FOB', 'CFR', 'CIF', 'CPT', 'CIP', 'DAP', 'DPU', 'DDP'] as const;
export const MILESTONE_KINDS = [
  'contract_signed', 'fixation', 'shipment', 'vessel_departure', 'vessel_arrival', 'customs_clearance', 'warehouse_receipt', 'sample_approval', 'payment',
] as const;
export type MilestoneKind = (typeof MILESTONE_KINDS)[number];
export const FIXATION_STATUSES = ['fixed', 'unfixed'] as const;
export const SHIPMENT_STATUSES = ['booked', 'received'] as const;

/**
 * Contract statuses: the moves updateContractStatus allows (anything else is 409 invalid_state_transition naming
 * from and to). The chain moves one step at a time; canceled and defaulted end any open contract; nothing leaves
 * closed, canceled or defaulted.
 */
export const CONTRACT_TRANSITIONS: Record<ContractStatus, readonly ContractStatus[]> = {
  draft: ['pending', 'canceled', 'defaulted'],
  pending: ['confirmed', 'canceled', 'defaulted'],
  confirmed: ['partially_shipped', 'canceled', 'defaulted'],
  partially_shipped: ['shipped', 'canceled', 'defaulted'],
  shipped: ['arrived', 'canceled', 'defaulted'],
  arrived: ['closed', 'canceled', 'defaulted'],
  closed: [],
  canceled: [],
  defaulted: [],
};
/** Statuses in which a contract is a commitment: its unreceived weight is an open position. */
export const COMMITTED_STATUSES: readonly ContractStatus[] = ['confirmed', 'partially_shipped', 'shipped', 'arrived'];
/** Statuses a shipment may be booked in. */
export const SHIPPABLE_STATUSES: readonly ContractStatus[] = ['confirmed', 'partially_shipped'];
/** Statuses that end a contract: no shipment, receipt or milestone may follow. */
export const ENDED_STATUSES: readonly ContractStatus[] = ['closed', 'canceled', 'defaulted'];

const label = text(200);
const positiveKg = kg({ positive: true });

/**
 * One contracted coffee: where it comes from (a producer of the organization and/or an origin description),
 * what it is (quality), how much (weightKg; bags optional) and its price per kilogram: an outright
 * `pricePerKg`, or a `differentialPerKg` against a named `market` (e.g. "ICE KC") that is `unfixed` until the
 * price is fixed (then `pricePerKg` holds the fixed price). `currency` defaults to the contract's, and must
 * equal it (one currency per contract; no FX).
 */
export const ContractLineInput = strict({
  producerId: id('producerId').optional(),
  origin: label.optional(),
  quality: text(500).optional(),
  processMethod: text(100).optional(),
  harvestYear: z.number().int().min(1900).max(2200).optional(),
  weightKg: positiveKg,
  pricePerKg: money.optional(),
  differentialPerKg: decimal({ scale: 4, max: 1e9, allowNegative: true }).optional(),
  market: text(100).optional(),
  /** Default: fixed when pricePerKg is given, else unfixed. fixed needs pricePerKg. */
  fixationStatus: z.enum(FIXATION_STATUSES).optional(),
  currency: currency.optional(),
  bagCount: z.number().int().min(0).max(1_000_000).optional(),
  bagWeightKg: positiveKg.optional(),
});

export const CreateContract = strict({
  contractNumber: code,
  partnerId: id('partnerId'),
  /** Default: the partner's default currency (400 when it has none). */
  currency: currency.optional(),
  priceType: z.enum(PRICE_TYPES).default('fixed'),
  incoterm: z.enum(INCOTERMS).optional(),
  contractDate: date.optional(),
  paymentTermsDays: z.number().int().min(0).max(3650).optional(),
  notes: text(4000).optional(),
  lines: z.array(ContractLineInput).min(1).max(500),
}).superRefine((input, ctx) => {
  input.lines.forEach((line, i) => {
    const at = (field: string) => ['lines', i, field];
    if (line.producerId === undefined && line.origin === undefined) ctx.addIssue({ code: 'custom', path: at('origin'), message: 'a line needs a producerId or an origin' });
    if ((line.differentialPerKg === undefined) !== (line.market === undefined)) {
      ctx.addIssue({ code: 'custom', path: at(line.market === undefined ? 'market' : 'differentialPerKg'), message: 'differentialPerKg and market go together' });
    }
    if (line.fixationStatus === 'fixed' && line.pricePerKg === undefined) ctx.addIssue({ code: 'custom', path: at('pricePerKg'), message: 'required when fixationStatus is fixed' });
    if (input.priceType === 'fixed' && line.pricePerKg === undefined) ctx.addIssue({ code: 'custom', path: at('pricePerKg'), message: 'required on a fixed-price contract' });
    if (input.priceType === 'differential' && line.differentialPerKg === undefined) {
      ctx.addIssue({ code: 'custom', path: at('differentialPerKg'), message: 'required on a differential contract' });
    }
    if (input.priceType === 'fixed' && line.fixationStatus === 'unfixed') ctx.addIssue({ code: 'custom', path: at('fixationStatus'), message: 'a fixed-price contract has fixed lines' });
    if (line.currency !== undefined && input.currency !== undefined && line.currency !== input.currency) {
      ctx.addIssue({ code: 'custom', path: at('currency'), message: `must be the contract's currency ${input.currency}` });
    }
  });
});
export type CreateContractInput = z.output<typeof CreateContract>;

export const UpdateContractStatus = strict({ id: id(), status: z.enum(CONTRACT_STATUSES) });
export const ById = strict({ id: id() });

export const ContractFilter = strict({
  status: z.enum(CONTRACT_STATUSES).optional(),
  partnerId: id('partnerId').optional(),
  /** Committed (confirmed … arrived) with weight still to receive. */
  open: z.boolean().optional(),
  /** Case-insensitive search in the contract number. */
  q: z.string().trim().min(1).max(100).optional(),
});
export const ListContracts = strict({ filter: ContractFilter.default({}), page });
export type ContractFilterInput = z.output<typeof ContractFilter>;

export const CreateContractShipment = strict({
  contractId: id('contractId'),
  reference: text(100).trim().min(1),
  weightKg: positiveKg,
  vessel: label.optional(),
  carrier: label.optional(),
  containerNumber: text(50).optional(),
  portOfLoading: label.optional(),
  portOfDischarge: label.optional(),
  etd: date.optional(),
  eta: date.optional(),
  destinationLocationId: id('destinationLocationId').optional(),
}).superRefine((input, ctx) => {
  if (input.etd && input.eta && input.eta < input.etd) ctx.addIssue({ code: 'custom', path: ['eta'], message: 'must not be before etd' });
});
export type CreateContractShipmentInput = z.output<typeof CreateContractShipment>;

export const ShipmentFilter = strict({
  contractId: id('contractId').optional(),
  status: z.enum(SHIPMENT_STATUSES).optional(),
});
export const ListContractShipments = strict({ filter: ShipmentFilter.default({}), page });
export type ShipmentFilterInput = z.output<typeof ShipmentFilter>;

/**
 * One green lot to create from the shipment: the contract line it delivers, its lot code and landed weight,
 * and optional lot facts and landed costs (freight, duty, carry: amounts for the whole lot in the contract's
 * currency). locationId overrides the receipt's.
 */
export const ReceiptLineInput = strict({
  contractLineId: id('contractLineId'),
  lotCode: code,
  weightKg: positiveKg,
  name: text(200).trim().min(1).optional(),
  locationId: id('locationId').optional(),
  bagCount: z.number().int().min(0).max(1_000_000).optional(),
  bagWeightKg: positiveKg.optional(),
  freight: money.optional(),
  duty: money.optional(),
  carry: money.optional(),
  notes: text(4000).optional(),
  /**
   * The plots the lot's coffee grew on, or producers standing for all their plots: recorded as the lot's own
   * origin declaration (as inventory.green.declareOrigin would). Without them the lot inherits its contract
   * line's declaration, else its shipment's or contract's.
   */
  plotIds: z.array(id('plotId')).max(5000).optional(),
  producerIds: z.array(id('producerId')).max(500).optional(),
});

export const ReceiveContractShipment = strict({
  shipmentId: id('shipmentId'),
  /** Where the lots arrive; default: the shipment's destination, else the unassigned balance. */
  locationId: id('locationId').optional(),
  lines: z.array(ReceiptLineInput).min(1).max(500),
}).superRefine((input, ctx) => {
  const seen = new Set<string>();
  input.lines.forEach((line, i) => {
    if (seen.has(line.lotCode)) ctx.addIssue({ code: 'custom', path: ['lines', i, 'lotCode'], message: 'named twice in this receipt' });
    seen.add(line.lotCode);
  });
});
export type ReceiveContractShipmentInput = z.output<typeof ReceiveContractShipment>;

export const CreateContractMilestone = strict({
  contractId: id('contractId'),
  kind: z.enum(MILESTONE_KINDS),
  dueAt: dateTime,
  notes: text(4000).optional(),
});

export const MilestoneFilter = strict({
  contractId: id('contractId').optional(),
  kind: z.enum(MILESTONE_KINDS).optional(),
  /** Due at or after this time. */
  dueFrom: dateTime.optional(),
  /** Due before this time. */
  dueTo: dateTime.optional(),
  /** true: not completed and due before now; false: the others. */
  overdue: z.boolean().optional(),
  completed: z.boolean().optional(),
});
export const ListContractMilestones = strict({ filter: MilestoneFilter.default({}) });
export type MilestoneFilterInput = z.output<typeof MilestoneFilter>;

export const ListOpenPositions = strict({});

// ---------------------------------------------------------------------------------------------------
// Answers

const money4 = decimalOut;

export const ContractPosition = out({
  /** The sum of the lines. */
  totalKg: kgOut,
  /** Booked on shipments. */
  shippedKg: kgOut,
  /** Landed as green lots by receipts. */
  receivedKg: kgOut,
  /** Committed and not yet received: total − received (never below zero). */
  openKg: kgOut,
  /** Not yet booked on a shipment: total − shipped. */
  unshippedKg: kgOut,
  /** Weight on lines whose price is fixed, and its value (weight × price per kg). */
  fixedKg: kgOut,
  fixedValue: money4,
  /** Value at the fixed prices of what is still to receive on fixed lines (never below zero). */
  openFixedValue: money4,
}).meta({ id: 'ContractPosition' });

export const ContractLine = out({
  id: idOut,
  lineNumber: z.number().int(),
  producerId: idOut.nullable(),
  origin: z.string().nullable(),
  quality: z.string().nullable(),
  processMethod: z.string().nullable(),
  harvestYear: z.number().int().nullable(),
  weightKg: kgOut,
  pricePerKg: money4.nullable(),
  differentialPerKg: money4.nullable(),
  market: z.string().nullable(),
  fixationStatus: z.enum(FIXATION_STATUSES),
  currency: currencyOut,
  bagCount: z.number().int().nullable(),
  bagWeightKg: kgOut.nullable(),
  receivedKg: kgOut,
  openKg: kgOut,
}).meta({ id: 'ContractLine' });

const contractFields = {
  id: idOut,
  contractNumber: z.string(),
  partnerId: idOut,
  currency: currencyOut,
  priceType: z.enum(PRICE_TYPES),
  incoterm: z.enum(INCOTERMS).nullable(),
  contractDate: dateOut.nullable(),
  paymentTermsDays: z.number().int().nullable(),
  notes: z.string().nullable(),
  status: z.enum(CONTRACT_STATUSES),
  statusChangedAt: timeOut,
  position: ContractPosition,
  createdAt: timeOut,
  updatedAt: timeOut,
};

export const ContractSummary = out(contractFields).meta({ id: 'ContractSummary' });
export const Contract = out({ ...contractFields, lines: z.array(ContractLine) }).meta({ id: 'Contract' });

export const ShipmentLot = out({ contractLineId: idOut, greenLotId: idOut, weightKg: kgOut }).meta({ id: 'ContractShipmentLot' });

export const Shipment = out({
  id: idOut,
  contractId: idOut,
  reference: z.string(),
  weightKg: kgOut,
  vessel: z.string().nullable(),
  carrier: z.string().nullable(),
  containerNumber: z.string().nullable(),
  portOfLoading: z.string().nullable(),
  portOfDischarge: z.string().nullable(),
  etd: dateOut.nullable(),
  eta: dateOut.nullable(),
  destinationLocationId: idOut.nullable(),
  status: z.enum(SHIPMENT_STATUSES),
  receivedAt: timeOut.nullable(),
  /** What the receipt landed (its lots' opening weights); null until received. */
  receivedKg: kgOut.nullable(),
  /** The green lots the receipt created, one per received line. */
  lots: z.array(ShipmentLot),
  createdAt: timeOut,
}).meta({ id: 'ContractShipment' });

export const ShipmentReceipt = out({
  shipment: Shipment,
  contract: ContractSummary,
  lots: z.array(GreenLotWithBalances),
}).meta({ id: 'ContractShipmentReceipt' });

export const Milestone = out({
  id: idOut,
  contractId: idOut,
  contractNumber: z.string(),
  kind: z.enum(MILESTONE_KINDS),
  dueAt: timeOut,
  notes: z.string().nullable(),
  completedAt: timeOut.nullable(),
  /** The credential that completed it. */
  completedBy: idOut.nullable(),
  /** sample_approval: the approved pre-shipment sample it points to. */
  sampleId: idOut.nullable(),
  /** Not completed and due before now. */
  overdue: z.boolean(),
  createdAt: timeOut,
}).meta({ id: 'ContractMilestone' });

export const MilestoneList = out({
  items: z.array(Milestone),
  /** Unpaged: always null. */
  nextCursor: z.null(),
  /** True when more than the 1000 soonest due matched: narrow the filter. */
  truncated: z.boolean(),
});

const OpenValue = out({ currency: currencyOut, openFixedValue: money4 });

export const OpenPositions = out({
  /** Each committed contract with weight still to receive, oldest first. */
  contracts: z.array(
    out({
      contractId: idOut,
      contractNumber: z.string(),
      partnerId: idOut,
      status: z.enum(CONTRACT_STATUSES),
      currency: currencyOut,
      totalKg: kgOut,
      receivedKg: kgOut,
      openKg: kgOut,
      openFixedValue: money4,
    }),
  ),
  /** The same open weight by producer and origin description (as the lines name them). */
  byOrigin: z.array(
    out({ producerId: idOut.nullable(), origin: z.string().nullable(), currency: currencyOut, openKg: kgOut, openFixedValue: money4 }),
  ),
  totals: out({ contracts: z.number().int(), openKg: kgOut, byCurrency: z.array(OpenValue) }),
}).meta({ id: 'OpenPositions' });
