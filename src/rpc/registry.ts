import type { CatalogEvent, EventDefinition } from '../events/define.js';
import { onEventsWritten } from '../events/emit.js';
import { PLATFORM_JOBS } from '../jobs/catalog.js';
import type { JobCatalog } from '../jobs/define.js';
import type { LeasedWorkCatalog } from '../jobs/leased-work.js';
import type { FileFamily } from '../http/signed-files.js';
import type { Surface } from '../http/surface.js';
import type { Operation } from './define.js';
import type { OperationExamples } from './examples.js';
import type { ModuleManifest } from './module.js';

/** Everything the service is made of, read off the modules' manifests (src/modules/index.ts lists them). */
export interface Registry {
  modules: readonly ModuleManifest[];
  /** Every operation the service answers. The HTTP layer, OpenAPI document and conformance tests read this. */
  operations: readonly Operation[];
  byName: ReadonlyMap<string, Operation>;
  /**
   * The event catalog, read off the operations' declarations: each type declared once (one definition
   * object, owned by one module and shared by every operation that emits it), with its payload schema and
   * its emitters. Webhooks' listEventTypes, the event feed and the OpenAPI document serve it.
   */
  eventCatalog: ReadonlyMap<string, CatalogEvent>;
  /** The job queue's catalog: the platform's jobs and every module's. */
  jobs: JobCatalog;
  leasedWork: LeasedWorkCatalog;
  /** Stored files served through signed links. */
  files: readonly FileFamily[];
  /** The modules' HTTP surfaces beside /rpc/v1 (the app adds the platform's, src/http/surfaces.ts). */
  surfaces: readonly Surface[];
  /** The operations' examples for the API reference, each from its operation's module. */
  examples: OperationExamples;
}

/**
 * Builds the registry from the manifests, refusing what would be ambiguous: a module named twice, an
 * operation, job or leased work defined twice, a table with two owners, an event type declared twice or
 * emitted without its module listing it. Registers the modules' event hooks in this process.
 */
export function buildRegistry(modules: readonly ModuleManifest[]): Registry {
  const unique = <T>(what: string, entries: [string, T][]): Map<string, T> => {
    const map = new Map<string, T>();
    for (const [key, value] of entries) {
      if (map.has(key)) throw new Error(`${what} ${key} is defined twice`);
      map.set(key, value);
    }
    return map;
  };
  unique('Module', modules.map((m) => [m.name, m]));
  unique('Table', modules.flatMap((m) => m.tables.map((t) => [t, m.name] as [string, string])));
  const operations = modules.flatMap((m) => m.operations ?? []);
  const byName = unique('Operation', operations.map((op) => [op.name, op]));
  const owned = unique('Event type', modules.flatMap((m) => (m.events ?? []).map((e) => [e.type, e] as [string, EventDefinition])));
  const jobs = Object.fromEntries(unique('Job', [...Object.entries(PLATFORM_JOBS), ...modules.flatMap((m) => Object.entries(m.jobs ?? {}))]));
  const leasedWork = Object.fromEntries(unique('Leased work', modules.flatMap((m) => Object.entries(m.leasedWork ?? {}))));
  for (const m of modules) if (m.onEventsWritten) onEventsWritten(m.onEventsWritten.hook, m.onEventsWritten.wakes);
  // A namespace's examples.ts may be named by several of its modules' manifests; an example is kept when its operation is served.
  const examples = Object.fromEntries(modules.flatMap((m) => Object.entries(m.examples ?? {})).filter(([name]) => byName.has(name)));
  unique('Surface', modules.flatMap((m) => (m.surfaces ?? []).map((s) => [s.name, s] as [string, Surface])));
  return {
    modules,
    operations,
    byName,
    eventCatalog: eventCatalogOf(operations, owned),
    jobs,
    leasedWork,
    files: modules.flatMap((m) => m.files ?? []),
    surfaces: modules.flatMap((m) => m.surfaces ?? []),
    examples,
  };
}

function eventCatalogOf(operations: readonly Operation[], owned: ReadonlyMap<string, EventDefinition>): ReadonlyMap<string, CatalogEvent> {
  const catalog = new Map<string, CatalogEvent>();
  for (const op of operations) {
    for (const definition of op.emits) {
      const declared = owned.get(definition.type);
      if (!declared) throw new Error(`Event ${definition.type}, emitted by ${op.name}, is in no module's manifest; list it in its module's events`);
      if (declared !== definition) throw new Error(`Event ${definition.type} is declared twice; declare it once and list that definition`);
      const entry = catalog.get(definition.type);
      if (entry) entry.emittedBy.push(op.name);
      else catalog.set(definition.type, { ...definition, emittedBy: [op.name] });
    }
  }
  return new Map([...catalog.entries()].sort(([a], [b]) => a.localeCompare(b)));
}
