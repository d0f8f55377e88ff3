import { findOrganizationLetterhead } from '../../auth/organizations.js';
import type { Queryable } from '../../db/client.js';
import { defineOperation } from '../../rpc/define.js';
import { conflict, invalidInput, notFound, throwNotFound } from '../../rpc/errors.js';
import * as party from '../catalog/party/service.js';
import * as locations from '../catalog/location/service.js';
import * as green from '../inventory/green/service.js';
import * as roasted from '../inventory/roast/service.js';
import * as lineage from '../lineage/service.js';
import * as roasting from '../production/roast/service.js';
import * as contracts from '../sourcing/contract/service.js';
import * as samples from '../sourcing/sample/service.js';
import { epcisDocument, gtinFits, type IdentityScheme } from './epcis.js';
import { originOf } from './origin.js';
import * as repo from './repository.js';
import { declareOrigin } from './service.js';
import {
  DeclareOrigin,
  DueDiligenceStatement,
  EpcisDocument,
  ExportEpcis,
  GetDueDiligenceStatement,
  OperatorIdentity,
  OriginDeclaration,
  OriginSubject,
  SetOperatorIdentity,
  TRACE_DEPTH_LIMIT,
  type OperatorIdentityOutput,
  type OriginOutput,
} from './schemas.js';
import { strict } from '../../rpc/schemas.js';

const feature = 'core' as const;

/** What the EU information system takes per due diligence statement (its GeoJSON upload limit). */
export const GEOLOCATION_MAX_BYTES = 25 * 1024 * 1024;

const SUBJECT_WORDS = { green_lot: 'green lot', contract: 'contract', contract_line: 'contract line', shipment: 'shipment', sample: 'sample' } as const;

async function requireSubject(q: Queryable, orgId: string, subject: { kind: keyof typeof SUBJECT_WORDS; id: string }): Promise<void> {
  const found =
    subject.kind === 'green_lot'
      ? await green.findGreenLot(q, orgId, subject.id)
      : subject.kind === 'contract'
        ? await contracts.findContract(q, orgId, subject.id)
        : subject.kind === 'contract_line'
          ? await contracts.findContractLine(q, orgId, subject.id)
          : subject.kind === 'shipment'
            ? await contracts.findShipment(q, orgId, subject.id)
            : await samples.findSample(q, orgId, subject.id);
  if (!found) throwNotFound(SUBJECT_WORDS[subject.kind], subject.id, 'subject.id');
}

export async function operatorOf(q: Queryable, orgId: string): Promise<OperatorIdentityOutput> {
  const recorded = await repo.findOperator(q, orgId);
  if (recorded) return recorded;
  const { name } = await findOrganizationLetterhead(q, orgId);
  return { name, country: null, eori: null, gs1CompanyPrefix: null, gtins: {}, recorded: false };
}

export function identityScheme(publicUrl: string, orgId: string, operator: Pick<OperatorIdentityOutput, 'gs1CompanyPrefix' | 'gtins'>): IdentityScheme {
  return { publicUrl, orgId, gs1CompanyPrefix: operator.gs1CompanyPrefix, gtins: operator.gtins };
}

/**
 * The facts an EPCIS document needs beyond the graph, each table read once: the green lots (codes and where
 * they entered, also what originOf needs of them: pass `lots` on), roast batches, where the roasted lots are
 * kept, and the codes of the locations named.
 */
export async function epcisFacts(q: Queryable, orgId: string, nodes: { kind: string; id: string }[]) {
  const idsOf = (kind: string) => [...new Set(nodes.filter((n) => n.kind === kind).map((n) => n.id))];
  const lots = new Map((await green.describeLots(q, orgId, idsOf('green_lot'))).map((g) => [g.id, g]));
  const greenLots = [...lots.values()].map((g) => ({ id: g.id, lotCode: g.lotCode, enteredAtLocationId: g.enteredAtLocationId }));
  const roastBatches = await roasting.describeBatches(q, orgId, idsOf('roast_batch'));
  const roastedLotLocations = Object.fromEntries(await roasted.roastedLotLocations(q, orgId, idsOf('roasted_lot')));
  const locationIds = [...new Set([...greenLots.map((g) => g.enteredAtLocationId), ...roastBatches.map((b) => b.locationId), ...Object.values(roastedLotLocations)])];
  const labels = await locations.locationLabels(q, orgId, locationIds.filter((id) => id !== null));
  return { lots, facts: { greenLots, roastBatches, roastedLotLocations, locations: [...labels].map(([id, l]) => ({ id, code: l.code })) } };
}

type Graph = NonNullable<Awaited<ReturnType<typeof lineage.trace>>>;

/** Backward traces of several starts as one graph (a shipment's lots). */
function unionOf(graphs: Graph[]): Pick<Graph, 'nodes' | 'edges' | 'depthLimitReached'> {
  const nodes = new Map<string, Graph['nodes'][number]>();
  const edges = new Map<string, Graph['edges'][number]>();
  for (const g of graphs) {
    for (const n of g.nodes) if (!nodes.has(n.id)) nodes.set(n.id, n);
    for (const e of g.edges) edges.set(`${e.from}>${e.to}>${e.groupId ?? ''}>${e.createdAt}`, e);
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()], depthLimitReached: graphs.some((g) => g.depthLimitReached) };
}

const gramsOf = (kg: string | null) => (kg === null ? 0n : BigInt(Math.round(Number(kg) * 1000)));
const kgOf = (grams: bigint) => `${grams / 1000n}.${String(grams % 1000n).padStart(3, '0')}`;

export const originOperations = [
  defineOperation({
    name: 'inventory.green.declareOrigin',
    extension: true,
    summary: 'Name the plots (or producers) a green lot, contract, contract line, shipment or sample’s coffee came from, and the upstream due diligence statements.',
    description:
      'Replaces the subject’s declaration. `plotIds` name plots, `producerIds` producers standing for all their plots; ' +
      '`upstreamStatements` the reference and verification numbers of the EU due diligence statements the supplier or importer passed ' +
      'on. Nothing is copied downstream: splits, merges, roasts, blends and order lines inherit through lineage when asked ' +
      '(a lot’s own declaration first, then the contract line’s it was received against, its shipment’s, contract’s, sample’s, then ' +
      'its producer: a contract’s declaration is the default for its lines that name none). The subject, every plot and ' +
      'every producer must be this organization’s (404 naming the field).',
    permission: 'inventory.green.write',
    feature: 'inventory',
    get: false,
    input: DeclareOrigin,
    output: OriginDeclaration,
    errors: ['not_found'],
    async handler(ctx, input) {
      await requireSubject(ctx.tx, ctx.orgId, input.subject);
      return declareOrigin(ctx.tx, ctx.orgId, input.subject, input);
    },
  }),

  defineOperation({
    name: 'inventory.green.getOriginDeclaration',
    extension: true,
    summary: 'The origin declared for a green lot, contract, contract line, shipment or sample.',
    description: '404 when nothing was declared for it (or it is another organization’s).',
    permission: 'inventory.green.read',
    feature: 'inventory',
    get: true,
    input: OriginSubject,
    output: OriginDeclaration,
    errors: ['not_found'],
    async handler(ctx, subject) {
      const found = (await repo.declarationsOf(ctx.tx, ctx.orgId, [subject])).get(`${subject.kind}:${subject.id}`);
      return found ?? throwNotFound(`origin declaration of ${SUBJECT_WORDS[subject.kind]}`, subject.id);
    },
  }),

  defineOperation({
    name: 'catalog.party.setOperatorIdentity',
    extension: true,
    summary: 'Record the organization as an operator: name, country, EORI, and its GS1 Company Prefix and GTINs for EPCIS.',
    description:
      'Replaces what was recorded. Each GTIN must be a GTIN-14 with its check digit under `gs1CompanyPrefix` (after the indicator ' +
      'digit), else 400 naming it; GTINs need the prefix. With a prefix, EPCIS exports identify the site by its GLN (the prefix, zero ' +
      'location reference) and lots of a kind with a GTIN as GS1 Digital Link URIs.',
    permission: 'catalog.party.write',
    feature,
    get: false,
    input: SetOperatorIdentity,
    output: OperatorIdentity,
    errors: [],
    async handler(ctx, input) {
      for (const [kind, gtin] of Object.entries(input.gtins)) {
        if (gtin === undefined) continue;
        if (!input.gs1CompanyPrefix) throw invalidInput([{ path: `gtins.${kind}`, message: 'needs gs1CompanyPrefix' }]);
        if (!gtinFits(gtin, input.gs1CompanyPrefix)) {
          throw invalidInput([{ path: `gtins.${kind}`, message: `must carry its check digit and sit under the company prefix ${input.gs1CompanyPrefix}` }]);
        }
      }
      return repo.upsertOperator(ctx.tx, ctx.orgId, input);
    },
  }),

  defineOperation({
    name: 'catalog.party.getOperatorIdentity',
    extension: true,
    summary: 'The organization’s operator identity (its name and nothing else while none is recorded).',
    description: '`recorded` is false until setOperatorIdentity was called.',
    permission: 'catalog.party.read',
    feature,
    get: true,
    input: strict({}),
    output: OperatorIdentity,
    errors: [],
    async handler(ctx) {
      return operatorOf(ctx.tx, ctx.orgId);
    },
  }),

  defineOperation({
    name: 'traceability.getDueDiligenceStatement',
    extension: true,
    summary: 'The data of an EU due diligence statement for a received shipment, a green lot or an order line, with its geolocation as GeoJSON.',
    description:
      'Operator, activity (import for green coffee received, domestic for roasted coffee placed on the market), HS 0901 with its ' +
      'subheading and description, net mass, countries of production, the upstream statements’ reference and verification numbers, ' +
      'and `geolocation`: the GeoJSON FeatureCollection the EU information system takes, one Feature per plot with ProducerName, ' +
      'ProducerCountry (ISO 3166-1 alpha-2), ProductionPlace and, for points, Area (hectares). Plots are derived through lineage. ' +
      'Coffee whose plots are unknown is listed in `gaps` (and `complete` is false), never left out. A geolocation over 25 MB is ' +
      '409 `geolocation_too_large`; a shipment not yet received is 409 `state_mismatch`; 404 when the subject is not this organization’s.',
    permission: 'traceability.read',
    feature,
    get: true,
    input: GetDueDiligenceStatement,
    output: DueDiligenceStatement,
    errors: ['not_found', 'state_mismatch', 'geolocation_too_large'],
    async handler(ctx, { kind, id }) {
      const q = ctx.tx;
      const backward = (start: { kind: 'green_lot' | 'order_line'; id: string }) => lineage.trace(q, ctx.orgId, 'backward', start, TRACE_DEPTH_LIMIT);
      let graph: Pick<Graph, 'nodes' | 'edges' | 'depthLimitReached'>;
      let label: string;
      let netMassKg: string;
      if (kind === 'shipment') {
        const shipment = (await contracts.findShipment(q, ctx.orgId, id)) ?? throwNotFound('shipment', id);
        if (shipment.status !== 'received') {
          throw conflict('state_mismatch', `Shipment ${shipment.reference} is ${shipment.status}; a statement is made for what was received.`, {
            errors: [{ path: 'id', message: `shipment is ${shipment.status}` }],
          });
        }
        graph = unionOf((await Promise.all(shipment.lots.map((l) => backward({ kind: 'green_lot', id: l.greenLotId })))).filter((g) => g !== undefined));
        label = `Shipment ${shipment.reference}`;
        netMassKg = shipment.receivedKg ?? '0.000';
      } else if (kind === 'green_lot') {
        const lot = (await green.findGreenLot(q, ctx.orgId, id)) ?? throwNotFound('green lot', id);
        graph = (await backward({ kind, id }))!;
        label = `Green lot ${lot.lotCode}`;
        netMassKg = lot.openingKg;
      } else {
        graph = (await backward({ kind, id })) ?? throwNotFound('order line', id);
        label = graph.nodes[0].label ?? id;
        netMassKg = kgOf(graph.edges.filter((e) => e.to === id).reduce((t, e) => t + gramsOf(e.weightKg), 0n));
      }
      const origin = await originOf(q, ctx.orgId, graph);
      const operator = await operatorOf(q, ctx.orgId);
      return dueDiligenceStatement({ kind, id, label }, operator, origin, netMassKg);
    },
  }),

  defineOperation({
    name: 'traceability.exportEpcis',
    extension: true,
    summary: 'A trace (backward or forward) as a GS1 EPCIS 2.0 JSON-LD document.',
    description:
      'Events: an ObjectEvent commissioning each green lot where it entered (its plots as ilmd), a TransformationEvent per split or ' +
      'merge of green lots, per roast batch (green lots in, roasted lots out, kg) and per blend, an AggregationEvent per product ' +
      'batch packed, and an ObjectEvent shipping per fulfilment (the order as a `po` business transaction). Each carries eventTime, ' +
      'eventTimeZoneOffset (the organization’s time zone), bizStep and disposition from the CBV, readPoint and bizLocation. ' +
      'Identifiers are GS1 Digital Link URIs when the organization set a GS1 Company Prefix (see setOperatorIdentity), else stable ' +
      'URIs under the service’s own address (FIRSTCRACK_PUBLIC_URL). 404 when the start is not this organization’s.',
    cost: 5,
    permission: 'traceability.read',
    feature,
    get: true,
    input: ExportEpcis,
    output: EpcisDocument,
    errors: ['not_found'],
    async handler(ctx, { direction, kind, id }) {
      const graph = (await lineage.trace(ctx.tx, ctx.orgId, direction, { kind, id }, TRACE_DEPTH_LIMIT)) ?? throwNotFound(kind.replaceAll('_', ' '), id);
      // Plots attach where coffee entered: forward from a lot, those are found walking back from it.
      const originGraph = direction === 'backward' || kind === 'producer' ? graph : (await lineage.trace(ctx.tx, ctx.orgId, 'backward', { kind, id }, TRACE_DEPTH_LIMIT))!;
      // Every green lot of both walks read once, for the document and for the origin alike.
      const { lots, facts } = await epcisFacts(ctx.tx, ctx.orgId, originGraph === graph ? graph.nodes : [...graph.nodes, ...originGraph.nodes]);
      const origin = await originOf(ctx.tx, ctx.orgId, originGraph, { lots });
      // Forward, the start stands for everything upstream of it.
      const sources = originGraph === graph ? origin.sources : kind === 'green_lot' ? [{ greenLotId: id, plotIds: origin.plots.map((p) => p.id) }] : [];
      const operator = await operatorOf(ctx.tx, ctx.orgId);
      const { timeZone } = await findOrganizationLetterhead(ctx.tx, ctx.orgId);
      return epcisDocument({
        ids: identityScheme(ctx.services.config.publicUrl, ctx.orgId, operator),
        timeZone,
        creationDate: new Date().toISOString(),
        nodes: graph.nodes,
        edges: graph.edges,
        ...facts,
        sources,
        plots: origin.plots,
      });
    },
  }),
];

/** The statement's data from a subject's origin; refuses a geolocation the EU system would not take. */
export function dueDiligenceStatement(
  subject: { kind: 'shipment' | 'green_lot' | 'order_line'; id: string; label: string },
  operator: OperatorIdentityOutput,
  origin: OriginOutput,
  netMassKg: string,
) {
  const roasted = subject.kind === 'order_line';
  const gaps = [...origin.gaps];
  for (const plot of origin.plots) {
    if (plot.country === null && !gaps.some((g) => g.reason === 'producer_without_country' && g.producerId === plot.producerId)) {
      gaps.push({ reason: 'producer_without_country', producerId: plot.producerId, message: `Producer ${plot.producerName} has no country: ProducerCountry cannot be given.` });
    }
  }
  const geolocation = {
    type: 'FeatureCollection' as const,
    features: origin.plots.map((plot) => ({
      type: 'Feature' as const,
      properties: {
        ProducerName: plot.producerName,
        ProducerCountry: plot.country ?? '',
        ProductionPlace: plot.name,
        ...(plot.geometry.type === 'Point' ? { Area: plot.areaHa } : {}),
      },
      geometry: plot.geometry,
    })),
  };
  const geolocationBytes = Buffer.byteLength(JSON.stringify(geolocation));
  if (geolocationBytes > GEOLOCATION_MAX_BYTES) {
    throw conflict('geolocation_too_large', `The geolocation of ${subject.label} is ${geolocationBytes} bytes; the EU information system takes at most 25 MB per statement.`, {
      geolocationBytes,
    });
  }
  return {
    subject,
    operator,
    activityType: roasted ? ('domestic' as const) : ('import' as const),
    commodity: roasted
      ? { hsCode: '0901' as const, hsSubheading: '090121' as const, description: 'Coffee, roasted, not decaffeinated' }
      : { hsCode: '0901' as const, hsSubheading: '090111' as const, description: 'Coffee, not roasted, not decaffeinated' },
    netMassKg,
    countriesOfProduction: [...new Set(origin.plots.map((p) => p.country).filter((c) => c !== null))].sort(),
    upstreamStatements: origin.upstreamStatements,
    geolocation,
    geolocationBytes,
    gaps,
    complete: gaps.length === 0 && origin.plots.length > 0,
  };
}
