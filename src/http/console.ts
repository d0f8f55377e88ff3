import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ProblemError } from '../rpc/errors.js';
import { defineSurface } from './surface.js';

/**
 * The web console (web/), built by `npm ci` / `npm install` (the prepare script runs scripts/build-web.mjs) into
 * web/dist and served here at /app/. It is a static single-page app that talks to /rpc/v1/ and /stream/v1/ like
 * any other client; nothing here knows a credential. Hashed assets under /app/assets/ are cached for a year; the
 * page itself is revalidated every time so a new build is picked up at once.
 */
export const CONSOLE_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
};

/** Security headers for the console's pages: everything from this origin, nothing from anywhere else. */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

const Page = z.string().describe('The page (HTML), or the asset asked for.');

/** The console's page as the build writes it (the script's name changes with every build). */
const EXAMPLE_PAGE =
  '<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="utf-8" />\n    <title>Firstcrack console</title>\n    <script type="module" crossorigin src="/app/assets/index-Bk7F67cg.js"></script>\n  </head>\n  <body><div id="app"></div></body>\n</html>';

export const consoleSurfaces = [
  defineSurface({
    name: 'console.root',
    method: 'GET',
    path: '/app',
    tag: 'console',
    summary: 'The console’s address without its slash: a permanent redirect to /app/.',
    description: 'No credential.',
    credentials: ['none'],
    rate: [],
    answers: { 301: { description: 'Moved to `/app/` (Location).' } },
    errors: [],
    examples: { answers: {} },
    handler: async (_request, reply) => reply.redirect('/app/', 301),
  }),
  defineSurface({
    name: 'console.page',
    method: 'GET',
    path: '/app/*',
    tag: 'console',
    summary: 'The web console: a single-page app that signs in and calls /rpc/v1/ and /stream/v1/ like any client.',
    description:
      'Static files built from web/ by `npm ci` (or `npm run build:web`). Every path under /app/ that is not a file of the build answers the ' +
      'page (the app routes in the browser); hashed files under /app/assets/ are cached for a year, the page is revalidated on every load. ' +
      'No credential: the console signs in with a user login or an API key and sends it on each API call.',
    credentials: ['none'],
    rate: [],
    params: z.strictObject({ '*': z.string().describe('A page of the app, or an asset of the build.') }),
    answers: { 200: { description: 'The page, or the asset asked for.', contentType: 'text/html', schema: Page } },
    errors: ['route_not_found', 'console_not_built'],
    examples: { params: { '*': 'roasts/rb_01jq3k8m7v5x2n4p6r8t0w2y4a' }, answers: { 200: EXAMPLE_PAGE } },
    handler: async (request, reply, { deps }) => {
      const root = normalize(deps.consoleDist.endsWith(sep) ? deps.consoleDist : deps.consoleDist + sep);
      if (!existsSync(join(root, 'index.html'))) throw new ProblemError(503, 'console_not_built', 'The console is not built: run `npm run build:web` (npm ci builds it).');
      const rest = decodeURIComponent((request.params as { '*': string })['*'] ?? '');
      const file = normalize(join(root, rest));
      if (rest !== '' && file.startsWith(root) && existsSync(file) && statSync(file).isFile()) {
        const immutable = rest.startsWith('assets/');
        reply
          .type(TYPES[extname(file)] ?? 'application/octet-stream')
          .header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
          .header('X-Content-Type-Options', 'nosniff');
        return reply.send(readFileSync(file));
      }
      // A missing asset is a 404; any other path under /app/ is a page of the single-page app.
      if (rest.startsWith('assets/')) throw new ProblemError(404, 'route_not_found', `No console asset /app/${rest}.`);
      // Read per request (a few kB): a rebuild while the server runs is served at once.
      return reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').headers(PAGE_HEADERS).send(readFileSync(join(root, 'index.html')));
    },
  }),
];

declare module './surface.js' {
  interface SurfaceDeps {
    /** Where the console's build is served from (CONSOLE_DIST; tests point it elsewhere). */
    consoleDist: string;
  }
}
