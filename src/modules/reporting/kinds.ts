import QRCode from 'qrcode';
import type { Queryable } from '../../db/client.js';
import { notFound, invalidInput } from '../../rpc/errors.js';
import { grams, kgString, scaled } from '../../lib/grams.js';
import * as locations from '../catalog/location/service.js';
import * as machines from '../catalog/machine/service.js';
import * as cafe from '../cafe/service.js';
import * as cupping from '../quality/cupping/service.js';
import * as grading from '../quality/grading/service.js';
import * as green from '../inventory/green/service.js';
import * as roasted from '../inventory/roast/service.js';
import * as profiles from '../production/profile/service.js';
import * as roasting from '../production/roast/service.js';
import * as traceability from '../traceability/service.js';
import type { Block, ReportDocument } from './document.js';
import { csvLines } from './csv.js';
import { day, dayTime, decimalString, divRound, grouped } from './document.js';
import type { KindParameters, ReportKind } from './schemas.js';

/**
 * What each report kind does: its default title, the checks that need the database when it is asked for
 * (in generateReport's transaction, so a bad parameter is a 400 or 404 at once, not a failed report), and
 * what it gathers from one snapshot when the job renders it. Every read goes through the owning module's
 * service.
 */

export interface RenderContext {
  reportId: string;
  title: string;
  organizationName: string;
  generatedAt: string;
  /** The organization's time zone: the instants a report prints are in it. */
  timeZone: string;
}

export type Gathered = Omit<ReportDocument, 'reportId' | 'title' | 'organizationName' | 'generatedAt' | 'timeZone'>;

interface KindDefinition<K extends ReportKind> {
  defaultTitle(parameters: KindParameters<K>, now: Date): string;
  /** Resolves and checks the parameters against the organization's records; answers what the report stores. */
  prepare(q: Queryable, orgId: string, parameters: KindParameters<K>, now: Date): Promise<Record<string, unknown>>;
  gather(q: Queryable, orgId: string, parameters: Record<string, any>, context: RenderContext): Promise<Gathered>;
}

/** Detail tables longer than this go to the CSV only; the PDF keeps the summaries and says so. */
export const PDF_DETAIL_ROWS = 400;

const kg = (value: string) => grouped(value);

/** A valuation reads, values and writes its holdings this many at a time (see its gather). */
const VALUATION_CHUNK_ROWS = 1000;

const money = (cents: bigint) => grouped(decimalString(cents, 2));
const dayAfter = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString();
const rangeText = (p: { from: string; to: string }) => (p.from === p.to ? day(p.from) : `${day(p.from)} to ${day(p.to)}`);

async function locationNames(q: Queryable, orgId: string, ids: (string | null)[]): Promise<Map<string | null, { code: string; name: string }>> {
  const names = new Map<string | null, { code: string; name: string }>([[null, { code: '', name: 'Unassigned' }]]);
  for (const id of new Set(ids)) {
    if (id === null || names.has(id)) continue;
    const location = await locations.findLocation(q, orgId, id);
    names.set(id, location ? { code: location.code, name: location.name } : { code: id, name: id });
  }
  return names;
}

// ---------------------------------------------------------------------------------------------------
// inventory_valuation

const inventoryValuation: KindDefinition<'inventory_valuation'> = {
  defaultTitle: () => 'Inventory valuation',
  async prepare(q, orgId, p, now) {
    let before: string;
    let asOf: string;
    if (p.asOf === undefined) {
      asOf = now.toISOString();
      before = asOf;
    } else if (/^\d{4}-\d{2}-\d{2}$/.test(p.asOf)) {
      asOf = p.asOf;
      before = dayAfter(p.asOf);
      if (Date.parse(`${p.asOf}T00:00:00Z`) > now.getTime()) throw invalidInput([{ path: 'parameters.asOf', message: 'must not be in the future' }]);
    } else {
      asOf = new Date(p.asOf).toISOString();
      before = asOf;
      if (Date.parse(p.asOf) > now.getTime()) throw invalidInput([{ path: 'parameters.asOf', message: 'must not be in the future' }]);
    }
    // A date's stock is the stock at the end of that day, but never later than now.
    if (Date.parse(before) > now.getTime()) before = now.toISOString();
    const locationIds = p.locationIds ? [...new Set(p.locationIds)] : undefined;
    for (const [i, id] of (locationIds ?? []).entries()) {
      if (!(await locations.findLocation(q, orgId, id))) throw notFound('location', id, `parameters.locationIds[${i}]`);
    }
    return { asOf, before, ...(locationIds ? { locationIds } : {}) };
  },
  async gather(q, orgId, p, { timeZone }) {
    const before: string = p.before;
    const locationIds: string[] | undefined = p.locationIds;

    // The holdings stream through in chunks: each line is added to the sums, written to the CSV and kept
    // only while its detail table can still go in the PDF, so the process never holds every holding.
    interface Line { stock: 'green' | 'roasted'; locationId: string | null; lotId: string; lotCode: string; description: string; grams: bigint; currency: string | null; perKg: string | null; lossPct: string | null; cents: bigint | null; quarantined: boolean; missing?: string | null }
    interface Sum { green: bigint; roasted: bigint; uncosted: bigint; values: Map<string, bigint> }
    const emptySum = (): Sum => ({ green: 0n, roasted: 0n, uncosted: 0n, values: new Map() });
    const add = (sum: Sum, l: Line) => {
      if (l.stock === 'green') sum.green += l.grams;
      else sum.roasted += l.grams;
      if (l.cents === null) sum.uncosted += l.grams;
      else sum.values.set(l.currency!, (sum.values.get(l.currency!) ?? 0n) + l.cents);
    };
    const names = await locationNames(q, orgId, locationIds ?? []);
    const byLocation = new Map<string | null, Sum>();
    const total = emptySum();
    const byStock = { green: { sum: emptySum(), count: 0, kept: [] as Line[] }, roasted: { sum: emptySum(), count: 0, kept: [] as Line[] } };
    const currencySet = new Set<string>();
    let holdings = 0;
    let quarantinedGrams = 0n;
    const quarantinedCodes = new Set<string>();
    const written: Buffer[] = [];
    const take = async (chunk: Line[]) => {
      for (const [id, name] of await locationNames(q, orgId, chunk.map((l) => l.locationId).filter((id) => !names.has(id)))) names.set(id, name);
      const csvRows: (string | number | null)[][] = [];
      for (const l of chunk) {
        holdings += 1;
        if (l.currency) currencySet.add(l.currency);
        if (!byLocation.has(l.locationId)) byLocation.set(l.locationId, emptySum());
        add(byLocation.get(l.locationId)!, l);
        add(total, l);
        const stock = byStock[l.stock];
        add(stock.sum, l);
        stock.count += 1;
        if (stock.count <= PDF_DETAIL_ROWS) stock.kept.push(l);
        if (l.quarantined) {
          quarantinedGrams += l.grams;
          quarantinedCodes.add(l.lotCode);
        }
        const n = names.get(l.locationId)!;
        csvRows.push([l.stock, l.locationId, n.code || null, n.name, l.lotId, l.lotCode, l.description, kgString(l.grams), l.currency, l.perKg, l.lossPct, l.cents === null ? null : decimalString(l.cents, 2), l.quarantined ? 'true' : 'false', l.cents === null ? (l.missing ?? null) : null]);
      }
      written.push(Buffer.from(csvLines(csvRows), 'utf8'));
      // Lets the event loop serve requests between chunks: a large report must not stall the API it runs beside.
      await new Promise<void>((resolve) => setImmediate(resolve));
    };

    for await (const chunk of green.holdingsAt(q, orgId, before, locationIds, VALUATION_CHUNK_ROWS)) {
      await take(
        chunk.map((h) => {
          const g = grams(h.onHandKg);
          // value = kg × perKg = (g / 1000) × (units / 10^4), in cents × 100.
          const cents = h.landedCostPerKg === null ? null : divRound(g * scaled(h.landedCostPerKg, 4), 100_000n);
          return { stock: 'green', locationId: h.locationId, lotId: h.lotId, lotCode: h.lotCode, description: h.name, grams: g, currency: h.currency, perKg: h.landedCostPerKg, lossPct: null, cents, quarantined: h.quarantined, missing: h.landedCostPerKg === null ? 'green_not_costed' : null };
        }),
      );
    }
    const roastedHoldings = await roasted.holdingsAt(q, orgId, before, locationIds);
    const roastedCosts = await roasted.roastedLotCosts(q, orgId, roastedHoldings.map((h) => ({ id: h.lotId, openingKg: h.openingKg })));
    for (let from = 0; from < roastedHoldings.length; from += VALUATION_CHUNK_ROWS) {
      await take(
        roastedHoldings.slice(from, from + VALUATION_CHUNK_ROWS).map((h) => {
          // Roasted coffee at its own cost per kg: the green charged into it over its roasted weight (roasted.ROASTED_COST_RULE).
          const cost = roastedCosts.get(h.lotId)!;
          const g = grams(h.onHandKg);
          const cents = cost.perKg === null ? null : divRound(g * scaled(cost.perKg, 4), 100_000n);
          return { stock: 'roasted', locationId: h.locationId, lotId: h.lotId, lotCode: h.lotCode, description: h.form, grams: g, currency: cost.currency, perKg: cost.perKg, lossPct: h.weightLossPct, cents, quarantined: false, missing: cost.missing };
        }),
      );
    }

    const currencies = [...currencySet].sort();
    const label = (id: string | null) => {
      const n = names.get(id)!;
      return n.code ? `${n.name} (${n.code})` : n.name;
    };
    /** The detail tables name a location by its code alone (the summary above spells out its name). */
    const codeOf = (id: string | null) => names.get(id)!.code || names.get(id)!.name;
    const sumRow = (name: string, s: Sum) => [
      name,
      kg(kgString(s.green)),
      kg(kgString(s.roasted)),
      ...currencies.map((c) => money(s.values.get(c) ?? 0n)),
      kg(kgString(s.uncosted)),
    ];
    const orderedLocations = [...byLocation.keys()].sort((a, b) => (a === null ? -1 : b === null ? 1 : label(a).localeCompare(label(b))));

    const detailBlock = (stock: 'green' | 'roasted'): Block => {
      const { sum, count, kept: rows } = byStock[stock];
      const heading = stock === 'green' ? 'Green coffee by lot' : 'Roasted coffee by lot';
      const columns =
        stock === 'green'
          ? [{ label: 'Location', width: 1.2, nowrap: true }, { label: 'Lot', width: 1.4, nowrap: true }, { label: 'Name', width: 2.6 }, { label: 'On hand (kg)', width: 1.3, align: 'right' as const }, { label: 'Landed cost / kg', width: 1.4, align: 'right' as const }, { label: 'Value', width: 1.6, align: 'right' as const }]
          : [{ label: 'Location', width: 1.2, nowrap: true }, { label: 'Lot', width: 1.6, nowrap: true }, { label: 'Form', width: 1.1 }, { label: 'On hand (kg)', width: 1.3, align: 'right' as const }, { label: 'Cost / kg', width: 1.3, align: 'right' as const }, { label: 'Loss %', width: 0.9, align: 'right' as const }, { label: 'Value', width: 1.5, align: 'right' as const }];
      const toRow = (l: Line) => {
        const value = l.cents === null ? (l.missing === 'mixed_currencies' ? 'not costed (mixed currencies)' : 'not costed') : `${money(l.cents)} ${l.currency}`;
        const perKg = l.perKg ? `${grouped(l.perKg)} ${l.currency}` : '-';
        return stock === 'green'
          ? [codeOf(l.locationId), l.lotCode, l.quarantined ? `${l.description} - QUARANTINED` : l.description, kg(kgString(l.grams)), perKg, value]
          : [codeOf(l.locationId), l.lotCode, l.description, kg(kgString(l.grams)), perKg, l.lossPct ?? '-', value];
      };
      const totalValue = currencies.map((c) => `${money(sum.values.get(c) ?? 0n)} ${c}`).join(', ') || '-';
      const totals = [stock === 'green' ? ['Total', '', '', kg(kgString(sum.green)), '', totalValue] : ['Total', '', '', kg(kgString(sum.roasted)), '', '', totalValue]];
      if (count > PDF_DETAIL_ROWS) {
        return { type: 'paragraphs', heading, paragraphs: [`${count} holdings, ${kg(kgString(stock === 'green' ? sum.green : sum.roasted))} kg valued at ${totalValue}. The lot-by-lot detail is in this report's CSV file.`] };
      }
      return { type: 'table', heading, columns, rows: rows.map(toRow), totals, emptyText: 'No stock at this time.' };
    };

    const asOfText = /^\d{4}-\d{2}-\d{2}$/.test(p.asOf) ? `the end of ${day(p.asOf)} (UTC)` : dayTime(p.asOf, timeZone);
    const notices: string[] = [];
    if (total.uncosted > 0n) notices.push(`${kg(kgString(total.uncosted))} kg of the stock has no cost (no cost components on its green lot, or a roasted lot from green in more than one currency) and is counted in the weights but not in the values.`);
    if (quarantinedCodes.size > 0) {
      notices.push(`${kg(kgString(quarantinedGrams))} kg of green coffee was in quarantine at this time (${[...quarantinedCodes].join(', ')}; marked QUARANTINED below): counted in the weights and values, but it cannot be reserved, split, merged or roasted until released.`);
    }
    if (currencies.length > 1) notices.push(`Landed costs are recorded in ${currencies.join(' and ')}; values are totalled per currency, never converted.`);

    return {
      subtitle: `Green and roasted stock at ${asOfText}, valued at landed cost`,
      parameters: [
        ['Stock at', asOfText],
        ['Locations', locationIds ? locationIds.map((id) => label(id)).join(', ') : 'All locations, including unassigned stock'],
        ['Valuation', `Green: current landed cost per kg of each lot. Roasted: each lot's cost per kg, where ${roasted.ROASTED_COST_RULE}`],
      ],
      notices,
      blocks: [
        {
          type: 'table',
          heading: 'Summary by location',
          note: 'Weights are the sums of the ledger rows recorded up to the time above, not today\'s balances.',
          columns: [
            { label: 'Location', width: 3, nowrap: true },
            { label: 'Green (kg)', width: 1.5, align: 'right' },
            { label: 'Roasted (kg)', width: 1.5, align: 'right' },
            ...currencies.map((c) => ({ label: `Value (${c})`, width: 1.7, align: 'right' as const })),
            { label: 'Not costed (kg)', width: 1.4, align: 'right' },
          ],
          rows: orderedLocations.map((id) => sumRow(label(id), byLocation.get(id)!)),
          totals: [sumRow('Total', total)],
          emptyText: 'No stock at this time.',
        },
        detailBlock('green'),
        detailBlock('roasted'),
      ],
      csv: {
        columns: ['stock', 'location_id', 'location_code', 'location_name', 'lot_id', 'lot_code', 'description', 'on_hand_kg', 'currency', 'cost_per_kg', 'weight_loss_pct', 'value', 'quarantined', 'cost_missing'],
        rows: [],
        written,
      },
      summary: {
        asOf: p.asOf,
        holdings,
        greenKg: kgString(total.green),
        roastedKg: kgString(total.roasted),
        notCostedKg: kgString(total.uncosted),
        quarantinedKg: kgString(quarantinedGrams),
        values: currencies.map((c) => ({ currency: c, amount: decimalString(total.values.get(c) ?? 0n, 2) })),
        byLocation: orderedLocations.map((id) => {
          const s = byLocation.get(id)!;
          return { locationId: id, greenKg: kgString(s.green), roastedKg: kgString(s.roasted), values: currencies.map((c) => ({ currency: c, amount: decimalString(s.values.get(c) ?? 0n, 2) })) };
        }),
      },
    };
  },
};

// ---------------------------------------------------------------------------------------------------
// production_summary

interface Stats { batches: number; charge: bigint; drop: bigint; lossCharge: bigint; lossDrop: bigint; dtr: number[] }
const emptyStats = (): Stats => ({ batches: 0, charge: 0n, drop: 0n, lossCharge: 0n, lossDrop: 0n, dtr: [] });

function addBatch(s: Stats, b: roasting.CompletedBatch) {
  s.batches += 1;
  if (b.chargeWeightKg) s.charge += grams(b.chargeWeightKg);
  if (b.dropWeightKg) s.drop += grams(b.dropWeightKg);
  if (b.chargeWeightKg && b.dropWeightKg) {
    s.lossCharge += grams(b.chargeWeightKg);
    s.lossDrop += grams(b.dropWeightKg);
  }
  if (b.dtrPct !== null) s.dtr.push(b.dtrPct);
}

/** Weight loss over the batches with both weights: (charge − drop) / charge, 2 decimals. */
const lossPct = (s: Stats) => (s.lossCharge === 0n ? null : decimalString(divRound((s.lossCharge - s.lossDrop) * 10_000n, s.lossCharge), 2));

function dtrStats(values: number[]) {
  if (values.length === 0) return null;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = values.length > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1)) : 0;
  const r = (v: number) => (Math.round(v * 10) / 10).toFixed(1);
  return { n: values.length, mean: r(mean), min: r(Math.min(...values)), max: r(Math.max(...values)), sd: r(sd) };
}

const productionSummary: KindDefinition<'production_summary'> = {
  defaultTitle: (p) => `Production summary ${p.from} to ${p.to}`,
  async prepare(q, orgId, p) {
    if (p.locationId && !(await locations.findLocation(q, orgId, p.locationId))) throw notFound('location', p.locationId, 'parameters.locationId');
    return { ...p };
  },
  async gather(q, orgId, p, { timeZone }) {
    const batches = await roasting.completedBatchesBetween(q, orgId, `${p.from}T00:00:00Z`, dayAfter(p.to), p.locationId);
    // Each batch's roasted lot and its cost (roasted.ROASTED_COST_RULE); totals per currency over the costed batches.
    const outputs = await roasted.batchOutputs(q, orgId, batches.map((b) => b.id));
    const lotCosts = await roasted.roastedLotCosts(q, orgId, [...outputs.values()]);
    const costOf = (batchId: string) => {
      const lot = outputs.get(batchId);
      return lot ? lotCosts.get(lot.id)! : null;
    };
    const costTotals = new Map<string, { greenUnits: bigint; roastedGrams: bigint; batches: number }>();
    let notCosted = 0;
    for (const b of batches) {
      const cost = costOf(b.id);
      const lot = outputs.get(b.id);
      if (!cost || !lot || cost.perKg === null) {
        notCosted += 1;
        continue;
      }
      const t = costTotals.get(cost.currency!) ?? { greenUnits: 0n, roastedGrams: 0n, batches: 0 };
      t.greenUnits += scaled(cost.greenCost!, 4);
      t.roastedGrams += grams(lot.openingKg);
      t.batches += 1;
      costTotals.set(cost.currency!, t);
    }
    const costSummary = [...costTotals.entries()]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([currency, t]) => ({
        currency,
        batches: t.batches,
        greenCost: decimalString(t.greenUnits, 4),
        roastedKg: kgString(t.roastedGrams),
        // 4-decimal units × 1000 / grams = 4-decimal units per kg.
        perKg: decimalString(divRound(t.greenUnits * 1000n, t.roastedGrams), 4),
      }));
    const costText = (batchId: string) => {
      const cost = costOf(batchId);
      if (!cost) return 'no roasted lot';
      return cost.perKg === null ? `not costed (${cost.missing!.replaceAll('_', ' ')})` : `${grouped(cost.perKg)} ${cost.currency}`;
    };
    const profileNames = new Map<string | null, string>([[null, 'No profile']]);
    const machineNames = new Map<string | null, string>([[null, 'No machine']]);
    for (const b of batches) {
      if (b.profileId !== null && !profileNames.has(b.profileId)) {
        const profile = await profiles.findProfile(q, orgId, b.profileId);
        profileNames.set(b.profileId, profile ? `${profile.name} (${profile.code})` : b.profileId);
      }
      if (b.machineId !== null && !machineNames.has(b.machineId)) {
        const machine = await machines.findMachine(q, orgId, b.machineId);
        machineNames.set(b.machineId, machine ? `${machine.name} (${machine.code})` : b.machineId);
      }
    }
    const group = (key: (b: roasting.CompletedBatch) => string | null) => {
      const groups = new Map<string | null, Stats>();
      for (const b of batches) {
        if (!groups.has(key(b))) groups.set(key(b), emptyStats());
        addBatch(groups.get(key(b))!, b);
      }
      return groups;
    };
    const total = emptyStats();
    for (const b of batches) addBatch(total, b);
    const columns = [
      { label: 'Batches', width: 0.9, align: 'right' as const },
      { label: 'Green used (kg)', width: 1.4, align: 'right' as const },
      { label: 'Roasted (kg)', width: 1.4, align: 'right' as const },
      { label: 'Loss %', width: 0.9, align: 'right' as const },
      { label: 'DTR mean %', width: 1.1, align: 'right' as const },
      { label: 'DTR min-max %', width: 1.3, align: 'right' as const },
      { label: 'DTR sd', width: 0.8, align: 'right' as const },
    ];
    const statsRow = (name: string, s: Stats) => {
      const d = dtrStats(s.dtr);
      return [name, String(s.batches), kg(kgString(s.charge)), kg(kgString(s.drop)), lossPct(s) ?? '-', d?.mean ?? '-', d ? `${d.min}-${d.max}` : '-', d?.sd ?? '-'];
    };
    const groupBlock = (heading: string, first: string, names: Map<string | null, string>, groups: Map<string | null, Stats>): Block => ({
      type: 'table',
      heading,
      columns: [{ label: first, width: 2.8 }, ...columns],
      rows: [...groups.entries()].sort((a, b) => names.get(a[0])!.localeCompare(names.get(b[0])!)).map(([id, s]) => statsRow(names.get(id)!, s)),
      totals: [statsRow('Total', total)],
      emptyText: 'No batch was completed in this range.',
    });
    const batchRows = batches.map((b) => [
      b.batchNumber,
      dayTime(b.completedAt, timeZone),
      machineNames.get(b.machineId)!,
      profileNames.get(b.profileId)!,
      b.chargeWeightKg ? kg(b.chargeWeightKg) : '-',
      b.dropWeightKg ? kg(b.dropWeightKg) : '-',
      b.dtrPct === null ? '-' : b.dtrPct.toFixed(1),
      costText(b.id),
    ]);
    const d = dtrStats(total.dtr);
    const blocks: Block[] = [
      groupBlock('By profile', 'Profile', profileNames, group((b) => b.profileId)),
      groupBlock('By machine', 'Machine', machineNames, group((b) => b.machineId)),
      batches.length > PDF_DETAIL_ROWS
        ? { type: 'paragraphs', heading: 'Batches', paragraphs: [`${batches.length} batches; the batch-by-batch detail is in this report's CSV file.`] }
        : {
            type: 'table',
            heading: 'Batches',
            columns: [{ label: 'Batch', width: 1.6, nowrap: true }, { label: 'Completed', width: 1.9 }, { label: 'Machine', width: 1.9 }, { label: 'Profile', width: 1.9 }, { label: 'Charge (kg)', width: 1.1, align: 'right' }, { label: 'Drop (kg)', width: 1.1, align: 'right' }, { label: 'DTR %', width: 0.8, align: 'right' }, { label: 'Cost / roasted kg', width: 1.5, align: 'right' }],
            rows: batchRows,
            emptyText: 'No batch was completed in this range.',
          },
    ];
    return {
      subtitle: `Roast batches completed ${p.from === p.to ? 'on' : 'from'} ${rangeText(p as { from: string; to: string })} (UTC)`,
      parameters: [
        ['Range', `${rangeText(p as { from: string; to: string })} (UTC, inclusive)`],
        ['Location', p.locationId ? (await locationNames(q, orgId, [p.locationId])).get(p.locationId)!.name : 'All locations'],
        ['Figures', 'Green used = charge weights; loss = (charge - drop) / charge over batches with both weights; DTR = development time / total time'],
        ['Cost', `Per batch, its roasted lot's cost per kg, where ${roasted.ROASTED_COST_RULE}; per currency, the green cost of the costed batches / their roasted kg`],
      ],
      notices: notCosted > 0 ? [`${notCosted} of ${batches.length} batches have no cost (no roasted lot, a green lot without a landed cost, or green in more than one currency) and are left out of the cost totals.`] : [],
      blocks: [
        ...blocks,
        {
          type: 'table',
          heading: 'Cost of the roasted coffee',
          columns: [{ label: 'Currency', width: 1 }, { label: 'Batches', width: 1, align: 'right' }, { label: 'Green cost', width: 1.6, align: 'right' }, { label: 'Roasted (kg)', width: 1.5, align: 'right' }, { label: 'Cost / roasted kg', width: 1.6, align: 'right' }],
          rows: costSummary.map((c) => [c.currency, String(c.batches), grouped(c.greenCost), kg(c.roastedKg), grouped(c.perKg)]),
          emptyText: 'No batch in this range could be costed.',
        },
      ],
      csv: {
        columns: ['batch_id', 'batch_number', 'completed_at', 'machine_id', 'machine', 'profile_id', 'profile', 'charge_kg', 'drop_kg', 'weight_loss_pct', 'dtr_pct', 'roasted_lot_id', 'currency', 'green_cost', 'cost_per_roasted_kg', 'cost_missing'],
        rows: batches.map((b) => {
          const loss = b.chargeWeightKg && b.dropWeightKg ? decimalString(divRound((grams(b.chargeWeightKg) - grams(b.dropWeightKg)) * 10_000n, grams(b.chargeWeightKg)), 2) : null;
          const cost = costOf(b.id);
          return [
            b.id, b.batchNumber, b.completedAt, b.machineId, machineNames.get(b.machineId)!, b.profileId, profileNames.get(b.profileId)!, b.chargeWeightKg, b.dropWeightKg, loss, b.dtrPct === null ? null : b.dtrPct.toFixed(1),
            outputs.get(b.id)?.id ?? null, cost?.currency ?? null, cost?.greenCost ?? null, cost?.perKg ?? null, cost ? cost.missing : 'no_green_input',
          ];
        }),
      },
      summary: {
        batches: total.batches,
        greenConsumedKg: kgString(total.charge),
        roastedProducedKg: kgString(total.drop),
        weightLossPct: lossPct(total),
        dtr: d,
        cost: costSummary,
        notCostedBatches: notCosted,
      },
    };
  },
};

// ---------------------------------------------------------------------------------------------------
// traceability_certificate

const words = (value: string) => value.replaceAll('_', ' ');

const traceabilityCertificate: KindDefinition<'traceability_certificate'> = {
  defaultTitle: () => 'Traceability certificate',
  async prepare(q, orgId, p) {
    const certificate = await traceability.findCertificate(q, orgId, { certificateId: p.certificateId, roastedLotId: p.roastedLotId, orderLineId: p.orderLineId });
    if (!certificate) {
      const [path, what, id] = p.certificateId
        ? ['parameters.certificateId', 'certificate', p.certificateId]
        : p.roastedLotId
          ? ['parameters.roastedLotId', 'certificate of roasted lot', p.roastedLotId]
          : ['parameters.orderLineId', 'certificate of order line', p.orderLineId!];
      throw notFound(what, id, path);
    }
    return { ...p, certificateId: certificate.id };
  },
  async gather(q, orgId, p, { timeZone }) {
    const certificate = (await traceability.findCertificate(q, orgId, { certificateId: p.certificateId }))!;
    const s = certificate.snapshot;
    const path = traceability.certificatePath(certificate.token);
    const link = p.publicBaseUrl ? new URL(path, p.publicBaseUrl).toString() : path;
    const png = await QRCode.toBuffer(link, { type: 'png', errorCorrectionLevel: 'M', margin: 1, width: 360 });
    const facts: [string, string][] = [
      ['Roasted lot', s.roastedLot.lotCode],
      ['Roasted on', day(s.roastedLot.roastedAt, timeZone)],
      ['Form', words(s.roastedLot.form)],
      ['Weight loss', s.roastedLot.weightLossPct ? `${s.roastedLot.weightLossPct} %` : '-'],
      ['Certificate', certificate.id],
      ['Issued', dayTime(certificate.issuedAt, timeZone)],
    ];
    if (s.orderLine) facts.push(['Order line', `Order ${s.orderLine.orderNumber}, line ${s.orderLine.lineNumber}`], ['Customer', `${s.orderLine.customer.name} (${s.orderLine.customer.code})`]);
    if (s.fulfillment) facts.push(['Shipped', dayTime(s.fulfillment.shippedAt, timeZone)]);
    const notices = p.publicBaseUrl
      ? []
      : ['No publicBaseUrl was given, so the QR code holds the certificate page\'s path only; generate the report with parameters.publicBaseUrl (the service\'s public address) for a code a phone can open.'];
    const origin = (pr: (typeof s.producers)[number]) => [pr.subregion, pr.region, pr.country].filter(Boolean).join(', ') || '-';
    const altitude = (pr: (typeof s.producers)[number]) =>
      pr.altitudeMinM === null && pr.altitudeMaxM === null ? '-' : pr.altitudeMinM !== null && pr.altitudeMaxM !== null && pr.altitudeMinM !== pr.altitudeMaxM ? `${pr.altitudeMinM}-${pr.altitudeMaxM} m` : `${pr.altitudeMinM ?? pr.altitudeMaxM} m`;
    return {
      subtitle: `Where roasted lot ${s.roastedLot.lotCode} comes from, as recorded when the certificate was issued`,
      parameters: [
        ['Certificate', certificate.id],
        ['Roasted lot', s.roastedLot.lotCode],
        ...(s.orderLine ? ([['Order line', `Order ${s.orderLine.orderNumber}, line ${s.orderLine.lineNumber}`]] as [string, string][]) : []),
      ],
      notices,
      blocks: [
        { type: 'facts', heading: 'The coffee', facts },
        {
          type: 'qr',
          heading: 'Verify this certificate',
          png,
          caption: [
            'Scan the code or open the link to see this certificate online:',
            link,
            `Certificate token: ${certificate.token}`,
            'The chain below was frozen when the certificate was issued; later splits, merges or sales do not change it.',
          ],
        },
        {
          type: 'table',
          heading: 'Grown by',
          columns: [{ label: 'Producer', width: 2.2 }, { label: 'Kind', width: 1.2 }, { label: 'Origin', width: 2.2 }, { label: 'Altitude', width: 1.2 }, { label: 'Varieties', width: 2 }],
          rows: s.producers.map((pr) => [pr.name, words(pr.kind), origin(pr), altitude(pr), pr.varieties.join(', ') || '-']),
          emptyText: 'No producer is recorded for this coffee.',
        },
        {
          type: 'table',
          heading: 'Green coffee',
          columns: [{ label: 'Lot', width: 1.8, nowrap: true }, { label: 'Name', width: 2.2 }, { label: 'Process', width: 1.2 }, { label: 'Harvest', width: 0.9 }, { label: 'Varieties', width: 1.6 }, { label: 'Certifications', width: 1.4 }],
          rows: s.greenLots.map((g) => [g.lotCode, g.name, g.processMethod ? words(g.processMethod) : '-', g.harvestYear?.toString() ?? '-', g.varieties.join(', ') || '-', g.certifications.join(', ') || '-']),
          emptyText: 'No green lot is recorded for this coffee.',
        },
        {
          type: 'table',
          heading: 'Roasted',
          columns: [{ label: 'Batch', width: 2, nowrap: true }, { label: 'Roasted', width: 2.2 }, { label: 'Charge (kg)', width: 1.3, align: 'right' }, { label: 'Drop (kg)', width: 1.3, align: 'right' }, { label: 'Loss %', width: 1, align: 'right' }],
          rows: s.roastBatches.map((b) => [b.batchNumber, dayTime(b.completedAt ?? b.startedAt, timeZone), b.chargeWeightKg ? kg(b.chargeWeightKg) : '-', b.dropWeightKg ? kg(b.dropWeightKg) : '-', b.weightLossPct ?? '-']),
          emptyText: 'No roast batch is recorded for this coffee.',
        },
        { type: 'paragraphs', heading: 'Chain of custody', paragraphs: s.chain.steps.length ? s.chain.steps.map((step, i) => `${i + 1}. ${step}`) : ['No lineage is recorded beyond the roasted lot.'] },
      ],
      csv: {
        columns: ['stage', 'id', 'code', 'name', 'detail'],
        rows: [
          ['certificate', certificate.id, certificate.token, link, certificate.issuedAt],
          ...s.producers.map((pr) => ['producer', pr.id, pr.code, pr.name, origin(pr)]),
          ...s.greenLots.map((g) => ['green_lot', g.id, g.lotCode, g.name, [g.processMethod, g.harvestYear].filter(Boolean).join(' ')]),
          ...s.roastBatches.map((b) => ['roast_batch', b.id, b.batchNumber, b.completedAt ?? b.startedAt, `${b.chargeWeightKg ?? ''} -> ${b.dropWeightKg ?? ''} kg`]),
          ['roasted_lot', s.roastedLot.id, s.roastedLot.lotCode, s.roastedLot.roastedAt, s.roastedLot.form],
          ...(s.orderLine ? [['order_line', s.orderLine.id, `${s.orderLine.orderNumber}/${s.orderLine.lineNumber}`, s.orderLine.customer.name, s.orderLine.customer.code]] : []),
        ],
      },
      summary: {
        certificateId: certificate.id,
        token: certificate.token,
        verifyUrl: link,
        roastedLotCode: s.roastedLot.lotCode,
        producers: s.producers.length,
        greenLots: s.greenLots.length,
        roastBatches: s.roastBatches.length,
      },
    };
  },
};

// ---------------------------------------------------------------------------------------------------
// cafe_performance

const cafePerformance: KindDefinition<'cafe_performance'> = {
  defaultTitle: (p) => `Cafe performance ${p.from} to ${p.to}`,
  async prepare(q, orgId, p) {
    const siteIds = p.siteIds ? [...new Set(p.siteIds)] : undefined;
    for (const [i, id] of (siteIds ?? []).entries()) {
      if (!(await cafe.findSite(q, orgId, id))) throw notFound('cafe site', id, `parameters.siteIds[${i}]`);
    }
    return { from: p.from, to: p.to, ...(siteIds ? { siteIds } : {}) };
  },
  async gather(q, orgId, p, { timeZone }) {
    const sites = p.siteIds ? (await Promise.all((p.siteIds as string[]).map((id) => cafe.findSite(q, orgId, id)))).filter((s) => s !== undefined) : await cafe.allSites(q, orgId);
    const performances: { site: cafe.Site; perf: cafe.SitePerformance }[] = [];
    for (const site of sites) performances.push({ site, perf: await cafe.sitePerformance(q, orgId, site, p.from, p.to) });
    const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
    const totals = performances.reduce(
      (t, { perf }) => ({ shots: t.shots + perf.totals.shots, outside: t.outside + perf.totals.outsideTargetShots, channeling: t.channeling + perf.totals.channelingShots, sold: t.sold + perf.totals.saleShotEquivalents }),
      { shots: 0, outside: 0, channeling: 0, sold: 0 },
    );
    const share = (part: number, whole: number) => (whole > 0 ? part / whole : 0);
    const columns = [
      { label: 'Shots', width: 1, align: 'right' as const },
      { label: 'Outside target', width: 1.2, align: 'right' as const },
      { label: 'Failing', width: 0.9, align: 'right' as const },
      { label: 'Channeling', width: 1.1, align: 'right' as const },
      { label: 'Sold (shot eq.)', width: 1.3, align: 'right' as const },
      { label: 'Variance', width: 1, align: 'right' as const },
    ];
    const row = (name: string, f: { shots: number; outsideTargetShots: number; failingShare: number; channelingShots: number; saleShotEquivalents: number; variance: number }) => [
      name, String(f.shots), String(f.outsideTargetShots), pct(f.failingShare), String(f.channelingShots), String(f.saleShotEquivalents), String(f.variance),
    ];
    const totalFigures = { shots: totals.shots, outsideTargetShots: totals.outside, failingShare: share(totals.outside, totals.shots), channelingShots: totals.channeling, saleShotEquivalents: totals.sold, variance: totals.shots - totals.sold };
    const blocks: Block[] = [
      {
        type: 'table',
        heading: 'By site',
        note: 'Variance = shots pulled - sale shot-equivalents: positive, pulled but not sold; negative, sold but not reported by the machines. Days are each site\'s local days.',
        columns: [{ label: 'Site', width: 2.6 }, ...columns],
        rows: performances.map(({ site, perf }) => row(`${site.name} (${site.code})`, perf.totals)),
        totals: [row('Total', totalFigures)],
        emptyText: 'This organization has no cafe site.',
      },
    ];
    const days = performances.flatMap(({ site, perf }) => perf.days.map((d) => ({ site, d })));
    if (days.length <= PDF_DETAIL_ROWS) {
      for (const { site, perf } of performances) {
        blocks.push({ type: 'table', heading: `${site.name} (${site.code}) by day`, columns: [{ label: 'Day', width: 2.6 }, ...columns], rows: perf.days.map((d) => row(d.date, d)), totals: [row('Total', perf.totals)] });
      }
    } else {
      blocks.push({ type: 'paragraphs', heading: 'By day', paragraphs: [`${days.length} site-days; the day-by-day figures are in this report's CSV file.`] });
    }
    return {
      subtitle: `Bar performance ${p.from === p.to ? 'on' : 'from'} ${rangeText(p as { from: string; to: string })} (each site's local days), from the hourly rollups`,
      parameters: [
        ['Range', `${rangeText(p as { from: string; to: string })} (inclusive, local days)`],
        ['Sites', p.siteIds ? performances.map(({ site }) => `${site.name} (${site.code})`).join(', ') : 'All sites'],
      ],
      notices: [],
      blocks,
      csv: {
        columns: ['site_id', 'site_code', 'site_name', 'date', 'shots', 'outside_target_shots', 'failing_share', 'channeling_shots', 'sale_shot_equivalents', 'variance'],
        rows: days.map(({ site, d }) => [site.id, site.code, site.name, d.date, d.shots, d.outsideTargetShots, d.failingShare, d.channelingShots, d.saleShotEquivalents, d.variance]),
      },
      summary: { sites: performances.length, shots: totals.shots, outsideTargetShots: totals.outside, saleShotEquivalents: totals.sold, variance: totals.shots - totals.sold },
    };
  },
};

// ---------------------------------------------------------------------------------------------------
// quality_summary

const qualitySummary: KindDefinition<'quality_summary'> = {
  defaultTitle: (p) => `Quality summary ${p.from} to ${p.to}`,
  prepare: async (_q, _orgId, p) => ({ ...p }),
  async gather(q, orgId, p, { timeZone }) {
    const from = `${p.from}T00:00:00Z`;
    const to = dayAfter(p.to);
    const cups = await cupping.finalizedResultsBetween(q, orgId, from, to);
    const grades = await grading.gradingsBetween(q, orgId, from, to);
    const quarantines = await green.quarantinesBetween(q, orgId, from, to);
    const lotCodes = new Map((await green.describeLots(q, orgId, [...new Set(grades.flatMap((g) => (g.greenLotId ? [g.greenLotId] : [])))])).map((l) => [l.id, l.lotCode]));

    // Mean of the coffees' means, in hundredths, exact.
    const scored = cups.filter((c) => c.meanScore !== null);
    const meanOfMeans = scored.length ? decimalString(divRound(scored.reduce((a, c) => a + scaled(c.meanScore!, 2), 0n), BigInt(scored.length)), 2) : null;
    const spread = (c: (typeof cups)[number]) => (c.minScore && c.maxScore ? `${c.minScore}-${c.maxScore}` : '-');
    const byStandard = new Map<string, { pass: number; fail: number; notJudged: number }>();
    for (const g of grades) {
      const s = byStandard.get(g.standard) ?? { pass: 0, fail: 0, notJudged: 0 };
      if (g.result === 'pass') s.pass += 1;
      else if (g.result === 'fail') s.fail += 1;
      else s.notJudged += 1;
      byStandard.set(g.standard, s);
    }
    const gradeTotals = [...byStandard.values()].reduce((t, s) => ({ pass: t.pass + s.pass, fail: t.fail + s.fail, notJudged: t.notJudged + s.notJudged }), { pass: 0, fail: 0, notJudged: 0 });
    const started = quarantines.filter((l) => l.quarantinedAt && l.quarantinedAt >= from && l.quarantinedAt < to).length;
    const released = quarantines.filter((l) => l.releasedAt && l.releasedAt >= from && l.releasedAt < to).length;
    const open = quarantines.filter((l) => l.quarantined).length;

    const blocks: Block[] = [
      {
        type: 'table',
        heading: 'Cupping results',
        note: 'Each coffee of the sessions finalized in the range: the mean of the cuppers\' final scores, their standard deviation and range.',
        columns: [{ label: 'Session', width: 1.6, nowrap: true }, { label: 'Finalized', width: 1.7 }, { label: 'Coffee', width: 2.6 }, { label: 'Cuppers', width: 0.9, align: 'right' }, { label: 'Mean', width: 0.9, align: 'right' }, { label: 'SD', width: 0.7, align: 'right' }, { label: 'Min-max', width: 1.2, align: 'right' }],
        rows: cups.slice(0, PDF_DETAIL_ROWS).map((c) => [c.sessionNumber, dayTime(c.finalizedAt, timeZone), [c.refCode, c.refName].filter(Boolean).join(' ') || words(c.refKind), String(c.cupperCount ?? '-'), c.meanScore ?? '-', c.stddevScore ?? '-', spread(c)]),
        totals: [['Mean of means', '', `${scored.length} coffees`, '', meanOfMeans ?? '-', '', '']],
        emptyText: 'No cupping session was finalized in this range.',
      },
      {
        type: 'table',
        heading: 'Physical gradings',
        columns: [{ label: 'Standard', width: 2.4 }, { label: 'Graded', width: 1, align: 'right' }, { label: 'Passed', width: 1, align: 'right' }, { label: 'Failed', width: 1, align: 'right' }, { label: 'Not judged', width: 1.1, align: 'right' }],
        rows: [...byStandard.entries()].sort().map(([standard, s]) => [standard.toUpperCase().replace('_', ' '), String(s.pass + s.fail + s.notJudged), String(s.pass), String(s.fail), String(s.notJudged)]),
        totals: [['Total', String(grades.length), String(gradeTotals.pass), String(gradeTotals.fail), String(gradeTotals.notJudged)]],
        emptyText: 'No grading was recorded in this range.',
      },
      {
        type: 'table',
        heading: 'Quarantines',
        note: 'Green lots put in or released from quarantine in the range, and every lot in quarantine now (its latest quarantine).',
        columns: [{ label: 'Lot', width: 1.6, nowrap: true }, { label: 'Name', width: 2 }, { label: 'Reason', width: 2.4 }, { label: 'Since', width: 1.6 }, { label: 'Released', width: 1.6 }],
        rows: quarantines.map((l) => [l.lotCode, l.name, l.reason ?? '-', l.quarantinedAt ? dayTime(l.quarantinedAt, timeZone) : '-', l.releasedAt ? `${dayTime(l.releasedAt, timeZone)}${l.releaseReason ? `: ${l.releaseReason}` : ''}` : l.quarantined ? 'in quarantine' : '-']),
        totals: [['Total', '', `${started} quarantined and ${released} released in the range; ${open} in quarantine now`, '', '']],
        emptyText: 'No lot was quarantined in this range, and none is in quarantine.',
      },
    ];
    if (cups.length > PDF_DETAIL_ROWS) blocks.splice(1, 0, { type: 'paragraphs', heading: 'More cupping results', paragraphs: [`${cups.length - PDF_DETAIL_ROWS} more coffees are in this report's CSV file.`] });
    return {
      subtitle: `Cupping, grading and quarantines ${p.from === p.to ? 'on' : 'from'} ${rangeText(p as { from: string; to: string })} (UTC)`,
      parameters: [['Range', `${rangeText(p as { from: string; to: string })} (UTC, inclusive)`]],
      notices: [],
      blocks,
      csv: {
        columns: ['record', 'id', 'code', 'name', 'at', 'result', 'cuppers', 'mean_score', 'stddev_score', 'min_score', 'max_score'],
        rows: [
          ...cups.map((c) => ['cupping', c.sessionId, c.sessionNumber, [c.refCode, c.refName].filter(Boolean).join(' ') || c.refKind, c.finalizedAt, null, c.cupperCount, c.meanScore, c.stddevScore, c.minScore, c.maxScore]),
          ...grades.map((g) => ['grading', g.id, g.greenLotId ? (lotCodes.get(g.greenLotId) ?? g.greenLotId) : g.sampleId, g.standard, g.createdAt, g.result, null, null, null, null, null]),
          ...quarantines.map((l) => ['quarantine', l.lotId, l.lotCode, l.name, l.quarantinedAt, l.quarantined ? 'in_quarantine' : 'released', null, null, null, null, null]),
        ],
      },
      summary: {
        cupping: { coffees: cups.length, meanOfMeans },
        gradings: { total: grades.length, passed: gradeTotals.pass, failed: gradeTotals.fail, notJudged: gradeTotals.notJudged },
        quarantines: { started, released, inQuarantineNow: open },
      },
    };
  },
};

export const KINDS: { [K in ReportKind]: KindDefinition<K> } = {
  traceability_certificate: traceabilityCertificate,
  inventory_valuation: inventoryValuation,
  production_summary: productionSummary,
  quality_summary: qualitySummary,
  cafe_performance: cafePerformance,
};
