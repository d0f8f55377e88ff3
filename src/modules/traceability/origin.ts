import type { Queryable } from '../../db/client.js';
import * as party from '../catalog/party/service.js';
import * as green from '../inventory/green/service.js';
import * as contracts from '../sourcing/contract/service.js';
import type { TraceEdge, TraceNode } from '../lineage/service.js';
import * as repo from './repository.js';
import type { OriginGapOutput, OriginOutput, OriginPlotOutput, OriginSubjectKind } from './schemas.js';

/**
 * Which plots a traced thing's coffee grew on, derived from the lineage graph when asked, never copied onto
 * descendants. The rule:
 *
 * - A **source** is a green lot of the graph that no other green lot of the graph flows into: where coffee
 *   entered the organization (an import, a shipment receipt, a sample transferred to inventory). Split
 *   children and merge targets are not sources: they inherit from the lots they came from.
 * - A source's plots are the first declaration found, in this order: its own (green_lot, also what its
 *   receipt line named), its contract line's (the line it was received against), its shipment's (the group
 *   of its contract → lot edge), its contract's, its sample's. A declaration names plots, or producers
 *   standing for all their plots. A contract's declaration is so the default for lines that name none.
 * - Without a declaration, the source's producers (producer → lot edges, and the lot's producerId) stand
 *   for all their plots.
 * - Every roasted lot, blend, product batch and order line downstream has the union of its sources' plots.
 *   A split child keeps all its parent's plots (the beans are not told apart).
 * - A source with nothing naming its plots, a producer with no plot recorded, and a walk cut at the depth
 *   limit are **gaps**, listed, never left out.
 */

interface Graph {
  nodes: Pick<TraceNode, 'kind' | 'id'>[];
  edges: Pick<TraceEdge, 'from' | 'to' | 'weightKg' | 'groupId'>[];
  depthLimitReached: boolean;
}

export interface SourceOrigin {
  greenLotId: string;
  lotCode: string | null;
  via: 'green_lot' | 'contract_line' | 'shipment' | 'contract' | 'sample' | 'producer' | null;
  plotIds: string[];
}

/**
 * `known.lots`: every green lot of the graph as the caller already read it (describeLots), so a caller that
 * needs them too (the EPCIS export) reads them once.
 */
export async function originOf(q: Queryable, orgId: string, graph: Graph, known: { lots?: Map<string, green.GreenLotFacts> } = {}): Promise<OriginOutput> {
  const kindOf = new Map(graph.nodes.map((n) => [n.id, n.kind]));
  const incoming = new Map<string, Graph['edges']>();
  for (const edge of graph.edges) {
    const list = incoming.get(edge.to);
    if (list) list.push(edge);
    else incoming.set(edge.to, [edge]);
  }
  const sourceIds = graph.nodes
    .filter((n) => n.kind === 'green_lot' && !(incoming.get(n.id) ?? []).some((e) => kindOf.get(e.from) === 'green_lot'))
    .map((n) => n.id)
    .sort();
  const lots = known.lots ?? new Map((await green.describeLots(q, orgId, sourceIds)).map((l) => [l.id, l]));

  // What stands upstream of each source: its shipment (the receipt's group), contract, sample and producers.
  const upstream = new Map(
    sourceIds.map((id) => {
      const edges = incoming.get(id) ?? [];
      const from = (kind: string) => edges.filter((e) => kindOf.get(e.from) === kind);
      const contractEdge = from('contract')[0];
      const producers = new Set(from('producer').map((e) => e.from));
      const lotProducer = lots.get(id)?.producerId;
      if (lotProducer) producers.add(lotProducer);
      return [id, { contract: contractEdge?.from, shipment: contractEdge?.groupId, sample: from('sample')[0]?.from, producers: [...producers].sort() }];
    }),
  );
  // The contract line each lot received from a contract was received against.
  const receivedFromContract = sourceIds.filter((id) => upstream.get(id)!.contract !== undefined);
  const contractLines = await contracts.receiptLinesOfLots(q, orgId, receivedFromContract);
  const subjects: { kind: OriginSubjectKind; id: string }[] = [];
  for (const [id, u] of upstream) {
    subjects.push({ kind: 'green_lot', id });
    const line = contractLines.get(id);
    if (line) subjects.push({ kind: 'contract_line', id: line });
    if (u.shipment) subjects.push({ kind: 'shipment', id: u.shipment });
    if (u.contract) subjects.push({ kind: 'contract', id: u.contract });
    if (u.sample) subjects.push({ kind: 'sample', id: u.sample });
  }
  const declarations = await repo.declarationsOf(q, orgId, subjects);

  const chosen = sourceIds.map((id) => {
    const u = upstream.get(id)!;
    const candidates: [NonNullable<SourceOrigin['via']>, string | undefined][] = [
      ['green_lot', id],
      ['contract_line', contractLines.get(id)],
      ['shipment', u.shipment],
      ['contract', u.contract],
      ['sample', u.sample],
    ];
    const found = candidates.map(([via, subject]) => [via, subject === undefined ? undefined : declarations.get(`${via}:${subject}`)] as const);
    const named = found.find(([, d]) => d && (d.plotIds.length > 0 || d.producerIds.length > 0));
    const statements = found.flatMap(([, d]) => d?.upstreamStatements ?? []);
    if (named) return { id, via: named[0], plotIds: named[1]!.plotIds, producerIds: named[1]!.producerIds, statements };
    return { id, via: u.producers.length > 0 ? ('producer' as const) : null, plotIds: [], producerIds: u.producers, statements };
  });

  const plots = await party.plotsOf(q, orgId, {
    plotIds: [...new Set(chosen.flatMap((c) => c.plotIds))],
    producerIds: [...new Set(chosen.flatMap((c) => c.producerIds))],
  });
  const producers = new Map((await party.describeProducers(q, orgId, [...new Set([...plots.map((p) => p.producerId), ...chosen.flatMap((c) => c.producerIds)])])).map((p) => [p.id, p]));
  const plotsByProducer = new Map<string, string[]>();
  for (const plot of plots) plotsByProducer.set(plot.producerId, [...(plotsByProducer.get(plot.producerId) ?? []), plot.id]);

  const gaps: OriginGapOutput[] = [];
  const sources: SourceOrigin[] = chosen.map((c) => {
    const lotCode = lots.get(c.id)?.lotCode ?? null;
    const ids = new Set<string>(c.plotIds);
    for (const producerId of c.producerIds) {
      const own = plotsByProducer.get(producerId) ?? [];
      if (own.length === 0) {
        const producer = producers.get(producerId)?.name ?? producerId;
        gaps.push({ reason: 'producer_without_plots', greenLotId: c.id, lotCode, producerId, message: `Green lot ${lotCode ?? c.id} comes from ${producer}, who has no plot recorded.` });
      }
      for (const plotId of own) ids.add(plotId);
    }
    if (c.via === null) gaps.push({ reason: 'unknown_origin', greenLotId: c.id, lotCode, message: `Nothing names the plots or producer green lot ${lotCode ?? c.id} came from.` });
    return { greenLotId: c.id, lotCode, via: c.via, plotIds: [...ids].sort() };
  });
  if (graph.depthLimitReached) gaps.push({ reason: 'depth_limit', message: 'The lineage is deeper than a trace walks: coffee beyond the limit is not accounted for.' });

  const used = new Set(sources.flatMap((s) => s.plotIds));
  const originPlots: OriginPlotOutput[] = plots
    .filter((p) => used.has(p.id))
    .map((p) => ({
      id: p.id,
      name: p.name,
      producerId: p.producerId,
      producerName: producers.get(p.producerId)?.name ?? p.producerId,
      country: producers.get(p.producerId)?.country ?? null,
      areaHa: p.areaHa,
      geometry: p.geometry,
    }));
  const statements = new Map<string, repo.UpstreamStatementRow>();
  for (const c of chosen) for (const s of c.statements) if (!statements.has(s.referenceNumber)) statements.set(s.referenceNumber, { referenceNumber: s.referenceNumber, verificationNumber: s.verificationNumber ?? null });
  return { plots: originPlots, sources, gaps, upstreamStatements: [...statements.values()].sort((a, b) => (a.referenceNumber < b.referenceNumber ? -1 : 1)) };
}
