// The layering of src/, checked in `npm test` (test/module-boundaries.test.ts runs this configuration):
//
// - no import circles anywhere (type-only imports count: a circle of types is still a knot to untie);
// - the platform (the folders below, app.ts and services.ts) imports no module: modules plug in through
//   their manifests, which src/modules/index.ts lists and createApp takes;
// - a module imports another module only through its seams: service.ts (its rule-checked commands and
//   reads), schemas.ts (input shapes and shared value types), events.ts (the event definitions it owns,
//   which another module's operation may emit) and module.ts (its manifest). Test support (*.test.ts,
//   testing.ts, tenancy.cases.ts) may also use another module's testing.ts and tenancy.cases.ts, whose
//   fixtures go through the HTTP interface. A namespace's examples.ts (src/modules/catalog/examples.ts:
//   the API reference's examples of the operations of every module under it, data only) is named by
//   those modules' manifests.
//
// A module is a folder under src/modules holding a module.ts, with everything under it up to another
// module's folder (production/roast/telemetry belongs to production/roast).
const { readdirSync, statSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const PLATFORM = ['rpc', 'http', 'db', 'jobs', 'events', 'auth', 'ratelimit', 'blobs', 'crypto', 'lib', 'streaming'];
const SEAMS = ['service', 'schemas', 'events', 'module'];
const TEST_SUPPORT = '(\\.test|testing|tenancy\\.cases)\\.ts$';

/** The module folders under `root` (src/modules), longest first so a pattern matches the innermost one. */
function moduleFolders(root) {
  const found = [];
  const walk = (dir, rel) => {
    if (rel && existsSync(join(dir, 'module.ts'))) found.push(rel);
    for (const name of readdirSync(dir)) if (statSync(join(dir, name)).isDirectory()) walk(join(dir, name), rel ? `${rel}/${name}` : name);
  };
  if (existsSync(root)) walk(root, '');
  return found.sort((a, b) => b.length - a.length);
}

const modules = moduleFolders(join(process.cwd(), 'src', 'modules')).join('|');
const SEAM = `^src/modules/(${modules})/(${SEAMS.join('|')})\\.ts$`;
/** A namespace's examples, which the manifests of the modules under it name (data, importing only schemas). */
const NAMESPACE_EXAMPLES = '^src/modules/[a-z-]+/examples\\.ts$';
/** A module's test support, in its folder or under it. */
const TEST_SEAM = `^src/modules/(${modules})/[a-z/-]*(testing|tenancy\\.cases)\\.ts$`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Import circles are not allowed anywhere in src/.', from: {}, to: { circular: true } },
    {
      name: 'platform-imports-no-module',
      severity: 'error',
      comment: 'The platform never imports a module: modules plug in through their manifests (src/modules/index.ts).',
      from: { path: [`^src/(${PLATFORM.join('|')})/`, '^src/(app|services)\\.ts$'] },
      to: { path: '^src/modules/' },
    },
    {
      name: 'module-through-seams',
      severity: 'error',
      comment: 'A module imports another module only through its service.ts, schemas.ts, events.ts or module.ts.',
      from: { path: `^src/modules/(${modules})/`, pathNot: TEST_SUPPORT },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', SEAM, NAMESPACE_EXAMPLES] },
    },
    {
      name: 'module-test-support-through-seams',
      severity: 'error',
      comment: 'Test support may also use another module’s testing.ts and tenancy.cases.ts, never its repository or other files.',
      from: { path: `^src/modules/(${modules})/.*${TEST_SUPPORT}` },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', SEAM, TEST_SEAM, NAMESPACE_EXAMPLES] },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  },
};
