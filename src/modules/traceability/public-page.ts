import type { FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { z } from 'zod';
import { defineSurface, type Surface, type SurfaceDeps } from '../../http/surface.js';
import { ProblemError } from '../../rpc/errors.js';
import { TOKEN_PATTERN, certificatePath, findCertificateByToken, type PublicCertificate } from './repository.js';
import { epcisDocument, type EpcisInput } from './epcis.js';
import { EpcisDocument, type CertificateSnapshotOutput } from './schemas.js';

/**
 * The certificate's public page, GET /c/{token}, and its QR code at /c/{token}/qr.svg and /c/{token}/qr.png:
 * no credential, outside /rpc/v1/, readable on a phone, with no script and no external asset. The token is
 * the only key; an unknown token and a malformed one get the same plain 404 page. The guard chain takes
 * every caller as anonymous and counts it per client address (the `public_pages` budget: the API's is per
 * credential, and there is none here); failures are the same problems as elsewhere, shown as HTML pages.
 */

const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  // The token is in the URL: never send it to the map site or anywhere else a link leads.
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Robots-Tag': 'noindex, nofollow',
};

// ---------------------------------------------------------------------------------------------------
// Rendering. Everything shown comes from the certificate's frozen snapshot, escaped.

/** The parts of a snapshot (getRoastedLotTraceability's answer at issue time) the page shows. */
interface Snapshot {
  roastedLot: { id: string; lotCode: string; form: string; roastedAt: string; weightLossPct: string | null };
  roastBatches: { id: string; batchNumber: string; startedAt: string | null; completedAt: string | null }[];
  /** Absent from certificates issued before cupping existed. */
  cupScores?: { kind: string; id: string; meanScore: string | null; cupperCount: number }[];
  greenLots: { id: string; lotCode: string; name: string; varieties: string[]; processMethod: string | null; harvestYear: number | null; certifications: string[]; producerId: string | null }[];
  producers: {
    id: string;
    name: string;
    kind: string;
    country: string | null;
    region: string | null;
    subregion: string | null;
    altitudeMinM: number | null;
    altitudeMaxM: number | null;
    latitude: number | null;
    longitude: number | null;
    varieties: string[];
    processMethods: string[];
  }[];
  /** Absent from certificates issued before plots existed. */
  origin?: { plots: PagePlot[]; gaps: { message: string }[] };
  /** Absent from certificates issued before EPCIS. */
  epcisIdentity?: unknown;
}

interface PagePlot {
  id: string;
  name: string;
  producerName: string;
  areaHa: number;
  geometry: { type: 'Point'; coordinates: [number, number] } | { type: 'Polygon'; coordinates: [number, number][][] };
}

/**
 * The plots drawn from their geometry as a small SVG map, with no tile server: an equirectangular
 * projection around the plots' mean latitude (shapes keep their proportions at a farm's scale), fitted
 * into the frame. Polygons are outlines, points dots.
 */
export function plotMap(plots: PagePlot[]): string {
  if (plots.length === 0) return '';
  const positions = plots.flatMap((p) => (p.geometry.type === 'Point' ? [p.geometry.coordinates] : p.geometry.coordinates[0]));
  const meanLat = positions.reduce((t, [, lat]) => t + lat, 0) / positions.length;
  const stretch = Math.cos((meanLat * Math.PI) / 180);
  const xs = positions.map(([lon]) => lon * stretch);
  const ys = positions.map(([, lat]) => -lat);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const [width, height, pad] = [320, 200, 16];
  // A single point (or plots in one spot) still gets a frame about 200 m across.
  const span = Math.max(maxX - minX, maxY - minY, 0.002);
  const scale = Math.min((width - 2 * pad) / Math.max(maxX - minX, span * 0.5), (height - 2 * pad) / Math.max(maxY - minY, span * 0.5));
  const [cx, cy] = [(minX + maxX) / 2, (minY + maxY) / 2];
  const at = ([lon, lat]: [number, number]) => `${(width / 2 + (lon * stretch - cx) * scale).toFixed(1)} ${(height / 2 + (-lat - cy) * scale).toFixed(1)}`;
  const shapes = plots.map((p) => {
    const title = `<title>${escapeHtml(`${p.name} (${p.producerName}), ${p.areaHa} ha`)}</title>`;
    if (p.geometry.type === 'Point') {
      const [x, y] = at(p.geometry.coordinates).split(' ');
      return `<circle cx="${x}" cy="${y}" r="5" fill="#6f4e37">${title}</circle>`;
    }
    return `<path d="M${p.geometry.coordinates[0].map(at).join('L')}Z" fill="#c8a27a" fill-opacity=".5" stroke="#6f4e37" stroke-width="1.5">${title}</path>`;
  });
  return `<svg class="map" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" role="img" aria-label="Map of the plots the coffee grew on"><rect width="${width}" height="${height}" fill="#f3ebe1"/>${shapes.join('')}</svg>`;
}

function plotsSection(s: Snapshot): string {
  if (!s.origin || (s.origin.plots.length === 0 && s.origin.gaps.length === 0)) return '';
  const items = s.origin.plots.map((p) => `<li>${escapeHtml(p.name)} · ${escapeHtml(p.producerName)} · ${escapeHtml(String(p.areaHa))} ha</li>`);
  const gaps = s.origin.gaps.map((g) => `<li>${escapeHtml(g.message)}</li>`);
  return `<h2>Grown on</h2><div class="step">${plotMap(s.origin.plots)}<ul class="plots">${items.join('')}</ul>${gaps.length ? `<p class="note">Not known:</p><ul class="plots">${gaps.join('')}</ul>` : ''}</div>`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const day = (isoTime: string) => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(isoTime));

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
const countryName = (code: string) => {
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
};

const words = (value: string) => value.replaceAll('_', ' ');
const sentence = (value: string) => value.charAt(0).toUpperCase() + value.slice(1);

function fact(label: string, value: string | null | undefined): string {
  return value ? `<div class="fact"><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>` : '';
}

function altitude(min: number | null, max: number | null): string | null {
  if (min === null && max === null) return null;
  if (min !== null && max !== null && min !== max) return `${min}–${max} m above sea level`;
  return `${min ?? max} m above sea level`;
}

function mapLink(latitude: number | null, longitude: number | null): string {
  if (latitude === null || longitude === null) return '';
  const position = `${Math.abs(latitude).toFixed(4)}° ${latitude >= 0 ? 'N' : 'S'}, ${Math.abs(longitude).toFixed(4)}° ${longitude >= 0 ? 'E' : 'W'}`;
  const href = `https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=12/${latitude}/${longitude}`;
  return `<div class="fact"><dt>Location</dt><dd>${escapeHtml(position)} · <a href="${escapeHtml(href)}" rel="noreferrer noopener" target="_blank">Open map</a></dd></div>`;
}

function producerCard(p: Snapshot['producers'][number]): string {
  const place = [p.subregion, p.region, p.country && countryName(p.country)].filter(Boolean).join(', ');
  return `<li class="step"><h3>${escapeHtml(p.name)}</h3><p class="kind">${escapeHtml(sentence(words(p.kind)))}</p><dl>
${fact('Region', place)}${fact('Altitude', altitude(p.altitudeMinM, p.altitudeMaxM))}${fact('Process', p.processMethods.map(words).join(', '))}${fact('Varieties', p.varieties.join(', '))}${mapLink(p.latitude, p.longitude)}
</dl></li>`;
}

/** "86.25 (5 cuppers)": the record's published cup score, if it has one. */
function cupScore(s: Snapshot, kind: string, id: string): string | undefined {
  const score = s.cupScores?.find((c) => c.kind === kind && c.id === id);
  if (!score?.meanScore) return undefined;
  return `${score.meanScore} (${score.cupperCount} ${score.cupperCount === 1 ? 'cupper' : 'cuppers'})`;
}

function greenLotCard(s: Snapshot, g: Snapshot['greenLots'][number]): string {
  return `<li class="step"><h3>${escapeHtml(g.name)}</h3><p class="kind">Green coffee lot ${escapeHtml(g.lotCode)}</p><dl>
${fact('Process', g.processMethod && words(g.processMethod))}${fact('Varieties', g.varieties.join(', '))}${fact('Harvest', g.harvestYear?.toString())}${fact('Certifications', g.certifications.join(', '))}${fact('Cup score', cupScore(s, 'green_lot', g.id))}
</dl></li>`;
}

function roastCard(s: Snapshot, b: Snapshot['roastBatches'][number]): string {
  const roastedAt = b.completedAt ?? b.startedAt;
  return `<li class="step"><h3>Roast batch ${escapeHtml(b.batchNumber)}</h3><dl>${fact('Roasted on', roastedAt && day(roastedAt))}${fact('Cup score', cupScore(s, 'roast_batch', b.id))}</dl></li>`;
}

export function renderCertificatePage(certificate: PublicCertificate, token: string): string {
  const s = certificate.snapshot as Snapshot;
  const section = (title: string, items: string[]) => (items.length ? `<h2>${escapeHtml(title)}</h2><ol class="journey">${items.join('\n')}</ol>` : '');
  return page(
    `${s.roastedLot.lotCode} · Traceability certificate`,
    `<header><p class="brand">${escapeHtml(certificate.organizationName)}</p><h1>Where this coffee comes from</h1>
<p class="lead">Roasted lot <strong>${escapeHtml(s.roastedLot.lotCode)}</strong>, roasted on <strong>${escapeHtml(day(s.roastedLot.roastedAt))}</strong>.</p></header>
<main>
${section('Grown by', s.producers.map(producerCard))}
${plotsSection(s)}
${section('Green coffee', s.greenLots.map((g) => greenLotCard(s, g)))}
${section('Roasted', s.roastBatches.map((b) => roastCard(s, b)))}
<h2>Your coffee</h2><ol class="journey"><li class="step"><h3>Roasted lot ${escapeHtml(s.roastedLot.lotCode)}</h3><dl>
${fact('Roasted on', day(s.roastedLot.roastedAt))}${fact('Form', words(s.roastedLot.form))}${fact('Cup score', cupScore(s, 'roasted_lot', s.roastedLot.id))}</dl></li></ol>
<section class="certificate"><h2>Certificate</h2><dl>${fact('Certificate', certificate.id)}${fact('Issued on', day(certificate.issuedAt))}</dl>
<p class="note">This record was frozen when the certificate was issued.</p>
${s.epcisIdentity ? `<p><a href="${certificatePath(token)}/epcis.jsonld">Supply chain events (GS1 EPCIS 2.0)</a></p>` : ''}
<img class="qr" src="${certificatePath(token)}/qr.svg" width="200" height="200" alt="QR code linking to this certificate"></section>
</main>`,
  );
}

const NOT_FOUND_PAGE = messagePage('Certificate not found', 'This link does not lead to a certificate. Check that the whole address was copied.');
const TOO_MANY_PAGE = messagePage('Too many requests', 'Please wait a moment and try again.');
const FAILED_PAGE = messagePage('Something went wrong', 'The certificate could not be shown just now. Please try again later.');

/** What a person sees for a problem: the page names what happened in words, without the problem's internals. */
/** The documentation's example page: the page itself, rendered from a small certificate. */
const EXAMPLE_SNAPSHOT: Snapshot = {
  roastedLot: { id: 'rl_01', lotCode: 'R-2026-0312-01', form: 'whole_bean', roastedAt: '2026-03-12T08:40:00.000Z', weightLossPct: '14.20' },
  roastBatches: [{ id: 'rb_01', batchNumber: 'B-0412', startedAt: '2026-03-12T08:26:00.000Z', completedAt: '2026-03-12T08:40:00.000Z' }],
  cupScores: [{ kind: 'green_lot', id: 'gl_01', meanScore: '87.25', cupperCount: 4 }],
  greenLots: [{ id: 'gl_01', lotCode: 'ETH-GER-24', name: 'Ethiopia Gerba', varieties: ['74110', 'Heirloom'], processMethod: 'washed', harvestYear: 2025, certifications: ['organic'], producerId: 'prod_01' }],
  producers: [
    {
      id: 'prod_01', name: 'Gerba Cooperative', kind: 'cooperative', country: 'ET', region: 'Sidama', subregion: 'Bensa',
      altitudeMinM: 1900, altitudeMaxM: 2200, latitude: null, longitude: null, varieties: ['74110', 'Heirloom'], processMethods: ['washed'],
    },
  ],
};
const EXAMPLE_PAGE = renderCertificatePage(
  { id: 'cert_01jq3k8m7v5x2n4p6r8t0w2y4a', organizationName: 'My roastery', snapshot: EXAMPLE_SNAPSHOT, issuedAt: '2026-03-14T09:00:00.000Z' },
  'Xq3v9TzL0bWmR7cK2pYf4A',
);
/** Shortened: the real code draws every module. */
const EXAMPLE_QR_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 37 37" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h37v37H0z"/><path stroke="#000000" d="M2 2.5h7m1 0h1…"/></svg>';

function problemPage(problem: ProblemError): string {
  if (problem.status === 404) return NOT_FOUND_PAGE;
  if (problem.status === 429) return TOO_MANY_PAGE;
  return FAILED_PAGE;
}

function messagePage(title: string, text: string): string {
  return page(title, `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main>`);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#2b1d14;background:#faf6f1}
header,main{max-width:40rem;margin:0 auto;padding:1rem 1.25rem}header{padding-top:1.5rem}
h1{font-size:1.6rem;line-height:1.2;margin:.25rem 0 .5rem}h2{font-size:1.1rem;margin:1.75rem 0 .5rem;color:#6f4e37;text-transform:uppercase;letter-spacing:.04em}
h3{font-size:1.1rem;margin:0}.brand{margin:0;font-weight:600;color:#6f4e37}.lead{margin:0}
.journey{list-style:none;margin:0;padding:0 0 0 1rem;border-left:3px solid #c8a27a}
.step{position:relative;background:#fff;border-radius:.6rem;padding:.85rem 1rem;margin:0 0 .75rem;box-shadow:0 1px 3px rgba(43,29,20,.12)}
.step::before{content:"";position:absolute;left:-1.45rem;top:1.1rem;width:.75rem;height:.75rem;border-radius:50%;background:#6f4e37}
.kind{margin:.1rem 0 .4rem;color:#7a6455;font-size:.9rem}
dl{margin:0}.fact{display:flex;flex-wrap:wrap;gap:0 .5rem;padding:.15rem 0}dt{font-weight:600;min-width:7.5rem}dd{margin:0;overflow-wrap:anywhere}
a{color:#6f4e37}.certificate{margin-top:1.5rem}.note{color:#7a6455;font-size:.9rem}
.map{display:block;width:100%;height:auto;border-radius:.4rem;margin:.25rem 0 .5rem}.plots{margin:.25rem 0;padding-left:1.2rem}
.qr{display:block;width:12.5rem;max-width:100%;height:auto;margin:1rem auto;background:#fff;padding:.5rem;border-radius:.4rem}
</style></head><body>${body}</body></html>`;
}

// ---------------------------------------------------------------------------------------------------
// The surfaces.

/** The certificate the request names; 404 when the token is malformed or unknown, alike. */
async function certificateFor(request: FastifyRequest, deps: SurfaceDeps) {
  const token = (request.params as { token: string }).token;
  const certificate = TOKEN_PATTERN.test(token) ? await findCertificateByToken(deps.db, token) : undefined;
  if (!certificate) throw new ProblemError(404, 'not_found', 'No certificate has this token.');
  return { certificate, pageUrl: `${request.protocol}://${request.host}${certificatePath(token)}`, token };
}

// A certificate never changes once issued.
const CACHE_ISSUED = 'public, max-age=3600';

const EXAMPLE_TOKEN = 'q3Vx8KpL2mN7RtY4wZb9Ce';

/** What the page and its QR codes share: the token, the budget, the headers and the refusals shown as pages. */
const pageSurface = (
  surface: Pick<Surface, 'name' | 'path' | 'summary' | 'description' | 'handler'> & {
    answer: { contentType: string; description: string; example: string | object; schema?: z.ZodType };
  },
) =>
  defineSurface({
    name: surface.name,
    method: 'GET',
    path: surface.path,
    tag: 'public pages',
    summary: surface.summary,
    description: surface.description,
    credentials: ['none'],
    rate: [{ budget: 'public_pages', per: 'address' }],
    params: z.strictObject({ token: z.string().regex(TOKEN_PATTERN).describe('The certificate’s public token, as `issueCertificate` answered it.') }),
    answers: {
      200: { description: surface.answer.description, contentType: surface.answer.contentType, schema: surface.answer.schema ?? z.string() },
      404: { description: 'No certificate has this token (a malformed token answers the same). The page reveals nothing more.', contentType: 'text/html', schema: z.string() },
      429: { description: 'Too many requests from this client address; see Retry-After.', contentType: 'text/html', schema: z.string() },
    },
    errors: ['not_found'],
    examples: { params: { token: EXAMPLE_TOKEN }, answers: { 200: surface.answer.example, 404: NOT_FOUND_PAGE, 429: TOO_MANY_PAGE } },
    replyHeaders: SECURITY_HEADERS,
    // The one problem mapping, shown to a person: a page saying what happened, never a stack or a token.
    renderProblem: (problem: ProblemError, reply: FastifyReply) =>
      void reply.headers(problem.headers).code(problem.status).header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(problemPage(problem)),
    handler: surface.handler,
  });

export const certificatePageSurfaces = [
  pageSurface({
    name: 'traceability.publicCertificatePage',
    path: '/c/:token',
    summary: 'The certificate’s public page: where the coffee of a roasted lot comes from, for anyone holding the link or QR code.',
    description:
      'No credential: the token is the only key. An HTML page readable on a phone, with no script and no external asset, showing the ' +
      'chain frozen when the certificate was issued (producers, green lots, roast batches, the roasted lot) and the organization’s name; ' +
      'customers and quantities are never shown. Cacheable for an hour: a certificate never changes once issued.',
    answer: { contentType: 'text/html', description: 'The page.', example: EXAMPLE_PAGE },
    async handler(request, reply, { deps }) {
      const found = await certificateFor(request, deps);
      return reply.header('Cache-Control', CACHE_ISSUED).type('text/html; charset=utf-8').send(renderCertificatePage(found.certificate, found.token));
    },
  }),
  pageSurface({
    name: 'traceability.publicCertificateEpcis',
    path: '/c/:token/epcis.jsonld',
    summary: 'The certificate’s chain as a GS1 EPCIS 2.0 JSON-LD document.',
    description:
      'Built from the chain frozen at issue (as traceability.exportEpcis builds a live trace): green lots commissioned with their ' +
      'plots, roasts and blends as transformations, packing and shipping. Customers are not named: order lines and customers are ' +
      'left out of the public document. Same credential rule, budget and 404 as the page; 404 too for a certificate issued before EPCIS.',
    answer: {
      contentType: 'application/ld+json',
      description: 'The EPCIS document.',
      schema: EpcisDocument,
      example: { '@context': ['https://ref.gs1.org/standards/epcis/epcis-context.jsonld'], type: 'EPCISDocument', schemaVersion: '2.0', creationDate: '2026-03-14T09:00:00.000Z', epcisBody: { eventList: [] } },
    },
    async handler(request, reply, { deps }) {
      const found = await certificateFor(request, deps);
      const document = certificateEpcis(found.certificate);
      if (!document) throw new ProblemError(404, 'not_found', 'This certificate was issued before EPCIS documents existed.');
      return reply.header('Cache-Control', CACHE_ISSUED).type('application/ld+json').send(JSON.stringify(document));
    },
  }),
  pageSurface({
    name: 'traceability.publicCertificateQrSvg',
    path: '/c/:token/qr.svg',
    summary: 'The QR code of the certificate’s page, as SVG.',
    description: 'Encodes the page’s absolute address (`https://<host>/c/{token}`). Same credential rule, budget and 404 as the page.',
    answer: { contentType: 'image/svg+xml', description: 'The QR code.', example: EXAMPLE_QR_SVG },
    async handler(request, reply, { deps }) {
      const found = await certificateFor(request, deps);
      const svg = await QRCode.toString(found.pageUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
      return reply.header('Cache-Control', CACHE_ISSUED).type('image/svg+xml').send(svg);
    },
  }),
  pageSurface({
    name: 'traceability.publicCertificateQrPng',
    path: '/c/:token/qr.png',
    summary: 'The QR code of the certificate’s page, as a 512-pixel PNG for print.',
    description: 'Encodes the page’s absolute address. Same credential rule, budget and 404 as the page.',
    answer: { contentType: 'image/png', description: 'The QR code (binary PNG; the example is its first bytes, base64).', example: 'iVBORw0KGgoAAAANSUhEUgAAAgAAAAIA' },
    async handler(request, reply, { deps }) {
      const found = await certificateFor(request, deps);
      const png = await QRCode.toBuffer(found.pageUrl, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 512 });
      return reply.header('Cache-Control', CACHE_ISSUED).type('image/png').send(png);
    },
  }),
];

/**
 * The EPCIS document of a certificate's frozen chain; undefined for one issued before EPCIS. Public: the
 * chain stops at the roasted lot (a certificate's snapshot walks backward from it), so no customer is named.
 */
export function certificateEpcis(certificate: PublicCertificate) {
  const s = certificate.snapshot as CertificateSnapshotOutput;
  if (!s.epcisIdentity || !s.origin) return undefined;
  const identity = s.epcisIdentity;
  const input: EpcisInput = {
    ids: { publicUrl: identity.publicUrl, orgId: identity.organizationId, gs1CompanyPrefix: identity.gs1CompanyPrefix, gtins: identity.gtins },
    timeZone: identity.timeZone,
    creationDate: certificate.issuedAt,
    nodes: s.chain.nodes.filter((n) => n.kind !== 'order_line'),
    edges: s.chain.edges,
    greenLots: s.greenLots,
    roastBatches: s.roastBatches,
    sources: s.origin.sources,
    plots: s.origin.plots,
  };
  return epcisDocument(input);
}
