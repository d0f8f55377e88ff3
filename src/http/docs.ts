import { z } from 'zod';
import { buildOpenApi } from '../rpc/openapi.js';
import type { Registry } from '../rpc/registry.js';
import { defineSurface, type Surface } from './surface.js';

declare module './surface.js' {
  interface SurfaceDeps {
    /** Every surface the server mounts, which the document describes with the operations. */
    surfaces: readonly Surface[];
    /** The modules' operations, events and examples the document describes. */
    registry: Registry;
  }
}

/** The document and its page, built once per list of surfaces (they never change while a process runs). */
const built = new WeakMap<readonly Surface[], { document: ReturnType<typeof buildOpenApi>; page: string }>();
function documentOf({ surfaces, registry }: { surfaces: readonly Surface[]; registry: Registry }) {
  let entry = built.get(surfaces);
  if (!entry) {
    const document = buildOpenApi(registry, surfaces);
    entry = { document, page: renderDocsPage(document) };
    built.set(surfaces, entry);
  }
  return entry;
}

export const docsSurfaces = [
  defineSurface({
    name: 'docs.openapi',
    method: 'GET',
    path: '/openapi.json',
    tag: 'docs',
    summary: 'This document: the OpenAPI 3.1 description of every operation, surface and event.',
    description: 'No credential. Built from the declarations of operations, surfaces and events, so it cannot drift from what is served.',
    credentials: ['none'],
    rate: [],
    answers: { 200: { description: 'The OpenAPI document.', schema: z.looseObject({ openapi: z.literal('3.1.0') }) } },
    errors: [],
    examples: { answers: { 200: { openapi: '3.1.0', info: { title: 'Firstcrack API', version: '1.0.0' }, paths: {} } } },
    handler: async (_request, reply, { deps }) => reply.send(documentOf(deps).document),
  }),
  defineSurface({
    name: 'docs.reference',
    method: 'GET',
    path: '/docs',
    tag: 'docs',
    summary: 'The API reference as one HTML page, rendered from this document, with no script and no external asset.',
    description: 'No credential.',
    credentials: ['none'],
    rate: [],
    answers: { 200: { description: 'The reference page.', contentType: 'text/html', schema: z.string() } },
    errors: [],
    examples: { answers: { 200: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Firstcrack API reference</title>…' } },
    handler: async (_request, reply, { deps }) => reply.type('text/html; charset=utf-8').send(documentOf(deps).page),
  }),
];

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** Escaped prose with its `code spans` rendered as code. */
const prose = (s: string) => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** A readable API reference rendered from the OpenAPI document, with no script and no external assets. */
export function renderDocsPage(doc: ReturnType<typeof buildOpenApi>): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/rpc/v1/')) continue; // the other surfaces follow, rendered by surfaceSections
    const post = (item as { post: RpcOperation }).post;
    const get = (item as { get?: unknown }).get;
    const problems = Object.entries(post.responses)
      .filter(([status]) => Number(status) >= 400)
      .map(([status, answer]) => `<li><strong>${escape(status)}</strong> ${prose(answer.description).replaceAll('\n', '<br>')}</li>`)
      .join('');
    const section = `<section id="${escape(path)}">
  <h3><code>${escape(path.replace('/rpc/v1/', ''))}</code> <span class="m">POST${get ? ' · GET' : ''}</span></h3>
  <p>${prose(post.summary)}</p><p class="meta">${prose(post.description).replaceAll('\n\n', '</p><p class="meta">')}</p>
  <details><summary>Input schema</summary>${schemaBlock(post.requestBody.content['application/json'].schema)}</details>
  <details><summary>Answer schema</summary>${schemaBlock(post.responses['200'].content!['application/json'].schema)}</details>
  <details><summary>Example</summary><h4>Input</h4>${mediaExamples(post.requestBody.content)}<h4>Answer</h4>${mediaExamples(post.responses['200'].content)}</details>
  <details><summary>Problems it can answer</summary><ul>${problems}</ul></details>
</section>`;
    const tag = post.tags[0];
    byTag.set(tag, [...(byTag.get(tag) ?? []), section]);
  }
  for (const [tag, sections] of surfaceSections(doc.paths)) byTag.set(tag, [...(byTag.get(tag) ?? []), ...sections]);
  byTag.set(
    'Events',
    Object.entries(doc.webhooks as Record<string, { post: { summary: string; description: string; requestBody: { content: Record<string, MediaType> } } }>).map(
      ([type, { post }]) => `<section id="event-${escape(type)}"><h3><code>${escape(type)}</code></h3><p>${prose(post.summary)}</p><p class="meta">${prose(post.description)}</p>
  <details><summary>Envelope and payload</summary>${schemaBlock(post.requestBody.content['application/json'].schema)}</details></section>`,
    ),
  );
  byTag.set(
    'Schemas',
    Object.entries(doc.components.schemas as Record<string, unknown>).map(
      ([name, schema]) => `<section id="${escape(`schema-${name}`)}"><h3><code>${escape(name)}</code></h3>${schemaBlock(schema)}</section>`,
    ),
  );
  const nav = [...byTag.keys()].map((t) => `<a href="#${escape(t)}">${escape(t)}</a>`).join(' ');
  const body = [...byTag.entries()].map(([t, s]) => `<h2 id="${escape(t)}">${escape(t)}</h2>${s.join('\n')}`).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info.title)} reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#2b1d14}
code,pre{font-family:ui-monospace,monospace}pre{background:#f6f1ec;padding:.75rem;overflow:auto;font-size:13px}
h2{border-bottom:2px solid #6f4e37;margin-top:2.5rem}.m{font-size:12px;color:#6f4e37}.meta{color:#555}nav a{margin-right:.6rem}</style></head>
<body><h1>${escape(doc.info.title)}</h1><p>${prose(doc.info.description)}</p>
<p>Authenticate with <code>Authorization: Bearer &lt;API key&gt;</code>. Machine-readable: <a href="/openapi.json">/openapi.json</a>.</p>
<nav>${nav}</nav>${body}</body></html>`;
}

interface RpcOperation {
  tags: string[];
  summary: string;
  description: string;
  requestBody: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; content?: Record<string, MediaType> }>;
}

/** A schema as JSON, its references to named schemas linked to their sections. */
function schemaBlock(schema: unknown): string {
  return `<pre>${escape(JSON.stringify(schema, null, 2)).replace(
    /&quot;#\/components\/schemas\/([A-Za-z0-9_]+)&quot;/g,
    (_, name: string) => `&quot;<a href="#schema-${name}">#/components/schemas/${name}</a>&quot;`,
  )}</pre>`;
}

interface MediaType {
  schema?: unknown;
  example?: unknown;
}
interface SurfaceOperation {
  tags: string[];
  summary: string;
  description: string;
  parameters?: { name: string; in: string; required?: boolean; description?: string }[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; content?: Record<string, MediaType> }>;
}

const LONG_EXAMPLE = 800;
const exampleText = (example: unknown) => (typeof example === 'string' ? example : JSON.stringify(example, null, 2));

function mediaExamples(content: Record<string, MediaType> | undefined): string {
  return Object.entries(content ?? {})
    .filter(([, media]) => media.example !== undefined)
    .map(([type, media]) => {
      const text = exampleText(media.example);
      const pre = `<pre title="${escape(type)}">${escape(text)}</pre>`;
      // A whole page or image as example would bury the answers listed after it: those open on demand.
      return text.length > LONG_EXAMPLE ? `<details><summary>Example (${escape(type)})</summary>${pre}</details>` : pre;
    })
    .join('');
}

/**
 * The paths that are not RPC operations (health, telemetry ingest and stream, stream tickets, public pages):
 * each method with its parameters, payload and answers, and their examples, grouped by tag.
 */
function surfaceSections(paths: Record<string, unknown>): Map<string, string[]> {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(paths)) {
    if (path.startsWith('/rpc/v1/')) continue;
    for (const [method, operation] of Object.entries(item as Record<string, SurfaceOperation>)) {
      const parameters = (operation.parameters ?? [])
        .map((p) => `<li><code>${escape(p.name)}</code> (${escape(p.in)}${p.required ? ', required' : ''})${p.description ? ` ${prose(p.description)}` : ''}</li>`)
        .join('');
      const request = operation.requestBody ? `<h4>Payload</h4>${mediaExamples(operation.requestBody.content)}` : '';
      const answers = Object.entries(operation.responses)
        .map(([status, answer]) => `<li><strong>${escape(status)}</strong> ${prose(answer.description)}${mediaExamples(answer.content)}</li>`)
        .join('');
      const section = `<section id="${escape(`${method.toUpperCase()} ${path}`)}">
  <h3><code>${escape(path)}</code> <span class="m">${escape(method.toUpperCase())}</span></h3>
  <p>${prose(operation.summary)}</p><p class="meta">${prose(operation.description)}</p>
  ${parameters ? `<h4>Parameters</h4><ul>${parameters}</ul>` : ''}${request}<h4>Answers</h4><ul>${answers}</ul>
</section>`;
      const tag = operation.tags[0];
      byTag.set(tag, [...(byTag.get(tag) ?? []), section]);
    }
  }
  return byTag;
}
