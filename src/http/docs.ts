import type { buildOpenApi } from '../rpc/openapi.js';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** Escaped prose with its `code spans` rendered as code. */
const prose = (s: string) => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** A readable API reference rendered from the OpenAPI document, with no script and no external assets. */
export function renderDocsPage(doc: ReturnType<typeof buildOpenApi>): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/rpc/v1/')) continue; // the telemetry paths are described in /openapi.json
    const post = (item as { post: { tags: string[]; summary: string; description: string; requestBody: { content: { 'application/json': { schema: unknown } } } } }).post;
    const get = (item as { get?: unknown }).get;
    const section = `<section id="${escape(path)}">
  <h3><code>${escape(path.replace('/rpc/v1/', ''))}</code> <span class="m">POST${get ? ' · GET' : ''}</span></h3>
  <p>${prose(post.summary)}</p><p class="meta">${prose(post.description)}</p>
  <details><summary>Input schema</summary><pre>${escape(JSON.stringify(post.requestBody.content['application/json'].schema, null, 2))}</pre></details>
</section>`;
    const tag = post.tags[0];
    byTag.set(tag, [...(byTag.get(tag) ?? []), section]);
  }
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
