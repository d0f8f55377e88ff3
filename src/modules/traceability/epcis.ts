/**
 * A trace as a GS1 EPCIS 2.0 JSON-LD document (EPCIS and CBV 2.0, https://ref.gs1.org/standards/epcis/),
 * built from the lineage graph alone plus the few facts its nodes' records hold, so a live trace and a
 * certificate's frozen chain answer the same events:
 *
 * - ObjectEvent ADD, bizStep commissioning, disposition active: each source green lot at its receipt, with
 *   its plots as `ilmd` (and cbvmda:countryOfOrigin).
 * - TransformationEvent, bizStep repackaging: each split or merge of green lots (edges of one change).
 * - TransformationEvent, bizStep commissioning, disposition active: each roast batch (green lots in, roasted
 *   lots out, kilograms) and each blend (roasted lots in, the blend lot out); transformationID the batch/blend.
 * - AggregationEvent ADD, bizStep packing, disposition in_progress: each product batch (what was packed into it).
 * - ObjectEvent OBSERVE, bizStep shipping, disposition in_transit: each fulfilment (the edges into order
 *   lines recorded by one shipment), with the order as a `po` business transaction and the customer as
 *   owning-party destination.
 *
 * Where: each event's bizLocation is the organization's own location where it happened, and its readPoint
 * the same place (a roast's, the machine): a green lot's commissioning where it was received (its first
 * ledger row's location), a split or merge where the lot it made was put, a roast where the batch was
 * roasted, a blend, a packing and a shipment where the roasted coffee going into it was kept. Where nothing
 * names a location (coffee booked to no location, a certificate frozen before locations were recorded), the
 * organization's site stands for it.
 *
 * Identifiers: GS1 Digital Link URIs when the organization set a GS1 Company Prefix (lots of a kind with a
 * GTIN as /01/{gtin}/10/{lot}; the organization's site as its GLN /414/{gln}, a location as that GLN with
 * its code as extension, /414/{gln}/254/{code}); everything else stable URIs under the service's own
 * address: {publicUrl}/id/{organization}/{kind}/{id}.
 */

import { offsetSecondsAt } from '../../lib/time-zones.js';

export const EPCIS_CONTEXT = 'https://ref.gs1.org/standards/epcis/epcis-context.jsonld';
const GS1_RESOLVER = 'https://id.gs1.org';

export interface IdentityScheme {
  publicUrl: string;
  orgId: string;
  gs1CompanyPrefix: string | null;
  gtins: Partial<Record<string, string>>;
}

export interface EpcisPlot {
  id: string;
  name: string;
  producerName: string;
  country: string | null;
  areaHa: number;
}

export interface EpcisInput {
  ids: IdentityScheme;
  /** IANA zone the events' offsets are given in. */
  timeZone: string;
  creationDate: string;
  nodes: { kind: string; id: string; label: string | null; orderId?: string; customerId?: string }[];
  edges: { from: string; to: string; weightKg: string | null; groupId?: string; createdAt: string }[];
  /** enteredAtLocationId: where the lot entered the organization (absent in certificates frozen before it was recorded). */
  greenLots: { id: string; lotCode: string; enteredAtLocationId?: string | null }[];
  roastBatches: { id: string; batchNumber: string; machineId: string | null; locationId?: string | null; startedAt: string; completedAt: string | null }[];
  /** Where each roasted lot of the trace is kept (lots without a location absent). */
  roastedLotLocations?: Record<string, string>;
  /** The codes of the locations named, which a GS1 identifier carries as its GLN extension. */
  locations?: { id: string; code: string }[];
  /** Source green lots and the plots named for them. */
  sources: { greenLotId: string; plotIds: string[] }[];
  plots: EpcisPlot[];
}

/** GS1 Application Identifiers 10 (batch/lot) and 254 (GLN extension): up to 20 characters of GS1's set 82. */
const AI10 = /^[!"%-?A-Z_a-z]{1,20}$/;

/** Appends the GS1 mod-10 check digit. */
export function withCheckDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  return digits + String((10 - (sum % 10)) % 10);
}

/** Whether a GTIN-14's last digit is its check digit and it sits under the company prefix (after the indicator digit). */
export function gtinFits(gtin: string, companyPrefix: string): boolean {
  return withCheckDigit(gtin.slice(0, 13)) === gtin && gtin.slice(1).startsWith(companyPrefix);
}

export function identifiers(ids: IdentityScheme) {
  const own = (kind: string, id: string) => `${ids.publicUrl}/id/${ids.orgId}/${kind.replaceAll('_', '-')}/${encodeURIComponent(id)}`;
  const gln = ids.gs1CompanyPrefix ? withCheckDigit(ids.gs1CompanyPrefix.padEnd(12, '0')) : null;
  return {
    lot(kind: string, id: string, lotCode: string | null): string {
      const gtin = ids.gs1CompanyPrefix ? ids.gtins[kind] : undefined;
      return gtin && lotCode && AI10.test(lotCode) ? `${GS1_RESOLVER}/01/${gtin}/10/${encodeURIComponent(lotCode)}` : own(kind, id);
    },
    site: () => (gln ? `${GS1_RESOLVER}/414/${gln}` : `${ids.publicUrl}/id/${ids.orgId}/site`),
    /** A location of the organization: its GLN with the code as extension (AI 254) when both fit, else its own URI. */
    location(id: string, code: string | undefined): string {
      return gln && code !== undefined && AI10.test(code) ? `${GS1_RESOLVER}/414/${gln}/254/${encodeURIComponent(code)}` : own('location', id);
    },
    own,
  };
}

/**
 * "+01:00": the zone's offset from UTC at that time, from the zone's wall clock (lib/time-zones.ts, one kept
 * formatter per zone). Asking Intl for a `longOffset` name instead cost about 2 ms a call, which per event
 * was most of an export's time (bench/README.md, EPCIS export).
 */
export function timeZoneOffset(time: string, timeZone: string): string {
  const minutes = Math.round(offsetSecondsAt(Date.parse(time), timeZone) / 60);
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const kg = (weight: string | null) => (weight === null ? undefined : Number(weight));

export function epcisDocument(input: EpcisInput) {
  const ids = identifiers(input.ids);
  const kindOf = new Map(input.nodes.map((n) => [n.id, n]));
  const lotCodes = new Map<string, string | null>([
    ...input.greenLots.map((g) => [g.id, g.lotCode] as const),
    // A roasted lot's label is its lot code; blend lots and product batches have no row, so no code.
    ...input.nodes.filter((n) => n.kind === 'roasted_lot').map((n) => [n.id, n.label] as const),
  ]);
  const uri = (id: string) => {
    const node = kindOf.get(id);
    const kind = node?.kind ?? 'thing';
    return ['green_lot', 'roasted_lot', 'blend_lot', 'product_batch'].includes(kind) ? ids.lot(kind, id, lotCodes.get(id) ?? null) : ids.own(kind, id);
  };
  const site = { id: ids.site() };
  const codes = new Map((input.locations ?? []).map((l) => [l.id, l.code]));
  const enteredAt = new Map(input.greenLots.map((g) => [g.id, g.enteredAtLocationId ?? null]));
  const roastedAt = new Map(input.roastBatches.map((b) => [b.id, b.locationId ?? null]));
  const keptAt = new Map(Object.entries(input.roastedLotLocations ?? {}));
  const when = (time: string) => ({ eventTime: time, eventTimeZoneOffset: timeZoneOffset(time, input.timeZone) });
  const quantity = (id: string, weightKg: number | undefined) =>
    weightKg === undefined ? { epcClass: uri(id) } : { epcClass: uri(id), quantity: Math.round(weightKg * 1000) / 1000, uom: 'KGM' };
  const summed = (edges: EpcisInput['edges'], end: 'from' | 'to') => {
    const totals = new Map<string, number | undefined>();
    for (const e of edges) {
      const w = kg(e.weightKg);
      const before = totals.get(e[end]);
      totals.set(e[end], w === undefined ? before : (before ?? 0) + w);
    }
    return [...totals].map(([id, w]) => quantity(id, w));
  };
  const latest = (edges: EpcisInput['edges']) => edges.reduce((t, e) => (e.createdAt > t ? e.createdAt : t), edges[0].createdAt);
  const into = new Map<string, EpcisInput['edges']>();
  const outOf = new Map<string, EpcisInput['edges']>();
  for (const e of input.edges) {
    push(into, e.to, e);
    push(outOf, e.from, e);
  }
  const plots = new Map(input.plots.map((p) => [p.id, p]));
  const events: Record<string, unknown>[] = [];

  // The location a node's coffee was at: its own for lots and batches, else (a batch or roasted lot booked
  // to no location, a blend, a packing) that of what went into it.
  const placeIds = new Map<string, string | null>();
  const placeOf = (id: string): string | null => {
    if (placeIds.has(id)) return placeIds.get(id)!;
    placeIds.set(id, null); // a cycle in the lineage ends here
    const kind = kindOf.get(id)?.kind;
    let place = kind === 'green_lot' ? (enteredAt.get(id) ?? null) : kind === 'roast_batch' ? (roastedAt.get(id) ?? null) : kind === 'roasted_lot' ? (keptAt.get(id) ?? null) : null;
    if (place === null && kind !== 'green_lot') {
      for (const e of into.get(id) ?? []) if ((place = placeOf(e.from)) !== null) break;
    }
    placeIds.set(id, place);
    return place;
  };
  /** readPoint and bizLocation: the first of the nodes with a known location, else the site. */
  const at = (nodeIds: string[], readPoint?: { id: string }) => {
    const place = nodeIds.map(placeOf).find((p) => p !== null);
    const where = place ? { id: ids.location(place, codes.get(place)) } : site;
    return { readPoint: readPoint ?? where, bizLocation: where };
  };

  // Commissioning: each source green lot, at its receipt (its first edge), with its plots.
  for (const source of input.sources) {
    const entering = into.get(source.greenLotId) ?? [];
    const leaving = outOf.get(source.greenLotId) ?? [];
    const time = [...entering, ...leaving].reduce<string | null>((t, e) => (t === null || e.createdAt < t ? e.createdAt : t), null) ?? input.creationDate;
    const weight = entering.map((e) => kg(e.weightKg)).find((w) => w !== undefined);
    const lotPlots = source.plotIds.map((id) => plots.get(id)).filter((p) => p !== undefined);
    const countries = [...new Set(lotPlots.map((p) => p.country).filter((c) => c !== null))].sort();
    events.push({
      type: 'ObjectEvent',
      ...when(time),
      action: 'ADD',
      quantityList: [quantity(source.greenLotId, weight)],
      bizStep: 'commissioning',
      disposition: 'active',
      ...at([source.greenLotId]),
      ilmd: {
        ...(countries.length > 0 ? { 'cbvmda:countryOfOrigin': countries.length === 1 ? countries[0] : countries } : {}),
        'fc:plots': lotPlots.map((p) => ({ id: ids.own('plot', p.id), name: p.name, producer: p.producerName, country: p.country, areaHa: p.areaHa })),
        ...(lotPlots.length === 0 ? { 'fc:originGap': 'no plot is known for this lot' } : {}),
      },
    });
  }

  // Splits and merges: green → green edges, one event per change (its group, else its target lot).
  const greenChanges = new Map<string, EpcisInput['edges']>();
  for (const e of input.edges) {
    if (kindOf.get(e.from)?.kind !== 'green_lot' || kindOf.get(e.to)?.kind !== 'green_lot') continue;
    const key = e.groupId ?? e.to;
    push(greenChanges, key, e);
  }
  for (const [key, edges] of greenChanges) {
    events.push({
      type: 'TransformationEvent',
      ...when(latest(edges)),
      inputQuantityList: summed(edges, 'from'),
      outputQuantityList: summed(edges, 'to'),
      transformationID: ids.own('green_change', key),
      bizStep: 'repackaging',
      disposition: 'active',
      ...at([...new Set(edges.map((e) => e.to))]),
    });
  }

  // Roasts.
  for (const batch of input.roastBatches) {
    const inputs = into.get(batch.id) ?? [];
    const outputs = outOf.get(batch.id) ?? [];
    if (inputs.length === 0 || outputs.length === 0) continue;
    events.push({
      type: 'TransformationEvent',
      ...when(batch.completedAt ?? batch.startedAt),
      inputQuantityList: summed(inputs, 'from'),
      outputQuantityList: summed(outputs, 'to'),
      transformationID: ids.own('roast_batch', batch.id),
      bizStep: 'commissioning',
      disposition: 'active',
      ...at([batch.id], batch.machineId ? { id: ids.own('machine', batch.machineId) } : undefined),
      'fc:batchNumber': batch.batchNumber,
    });
  }

  for (const node of input.nodes) {
    const inputs = into.get(node.id) ?? [];
    if (inputs.length === 0) continue;
    if (node.kind === 'blend_lot') {
      const total = inputs.every((e) => e.weightKg !== null) ? inputs.reduce((t, e) => t + Number(e.weightKg), 0) : undefined;
      events.push({
        type: 'TransformationEvent',
        ...when(latest(inputs)),
        inputQuantityList: summed(inputs, 'from'),
        outputQuantityList: [quantity(node.id, total)],
        transformationID: ids.own('blend_lot', node.id),
        bizStep: 'commissioning',
        disposition: 'active',
        ...at([node.id]),
      });
    } else if (node.kind === 'product_batch') {
      events.push({
        type: 'AggregationEvent',
        ...when(latest(inputs)),
        parentID: uri(node.id),
        childQuantityList: summed(inputs, 'from'),
        action: 'ADD',
        bizStep: 'packing',
        disposition: 'in_progress',
        ...at([node.id]),
      });
    }
  }

  // Shipping: the edges into order lines recorded by one fulfilment (their group), else each line's own.
  const shipments = new Map<string, EpcisInput['edges']>();
  for (const e of input.edges) {
    if (kindOf.get(e.to)?.kind !== 'order_line') continue;
    const key = e.groupId ?? e.to;
    push(shipments, key, e);
  }
  for (const [, edges] of shipments) {
    const lines = [...new Set(edges.map((e) => e.to))].map((id) => kindOf.get(id)!);
    const orders = [...new Set(lines.map((l) => l.orderId).filter((o) => o !== undefined))];
    const customers = [...new Set(lines.map((l) => l.customerId).filter((c) => c !== undefined))];
    events.push({
      type: 'ObjectEvent',
      ...when(latest(edges)),
      action: 'OBSERVE',
      quantityList: summed(edges, 'from'),
      bizStep: 'shipping',
      disposition: 'in_transit',
      ...at([...new Set(edges.map((e) => e.from))]),
      ...(orders.length > 0 ? { bizTransactionList: orders.map((o) => ({ type: 'po', bizTransaction: ids.own('order', o) })) } : {}),
      ...(customers.length > 0 ? { destinationList: customers.map((c) => ({ type: 'owning_party', destination: ids.own('customer', c) })) } : {}),
    });
  }

  events.sort((a, b) => (a.eventTime as string).localeCompare(b.eventTime as string));
  return {
    '@context': [EPCIS_CONTEXT, { fc: `${input.ids.publicUrl}/ns/epcis#` }],
    type: 'EPCISDocument' as const,
    schemaVersion: '2.0' as const,
    creationDate: input.creationDate,
    epcisBody: { eventList: events },
  };
}
