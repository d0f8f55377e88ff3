import type { CredentialResolver } from '../auth/credentials.js';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { EventDefinition } from '../events/define.js';
import type { EventsWrittenHook } from '../events/emit.js';
import type { JobCatalog } from '../jobs/define.js';
import type { LeasedWorkCatalog } from '../jobs/leased-work.js';
import type { FileFamily } from '../http/signed-files.js';
import type { Surface, SurfaceAuthenticators, SurfaceDeps } from '../http/surface.js';
import type { OperationExamples } from './examples.js';
import type { ModuleServices, Operation, Services } from './define.js';

/**
 * What a module brings to the service, declared once in its folder's `module.ts`. The list of modules
 * (src/modules/index.ts) is the only place that names them; the registry, the event and job catalogs, the
 * services, the HTTP surfaces and the table-ownership check are all read off these manifests
 * (src/rpc/registry.ts), so a module plugs in by its manifest and one line in that list.
 */
export interface ModuleManifest {
  /** Its folder under src/modules (`production/roast`): its files are the ones under it, up to another manifest's folder. */
  name: string;
  operations?: readonly Operation[];
  /** The event types it owns (its events.ts). Every type an operation emits is owned by exactly one module. */
  events?: readonly EventDefinition[];
  /** Its queue jobs, by queue name (src/jobs/define.ts). */
  jobs?: JobCatalog;
  /** Its work leased from its own tables, by name (src/jobs/leased-work.ts). */
  leasedWork?: LeasedWorkCatalog;
  /**
   * Runs with every transaction's events before it commits, in that transaction (the webhook outbox);
   * `wakes` names the work this process's workers take at once after a commit for which it queued some.
   */
  onEventsWritten?: { hook: EventsWrittenHook; wakes?: string };
  /**
   * The tables and views its migrations create. Only its own SQL names them; what it needs of another
   * module's records it asks that module's service (test/module-boundaries.test.ts).
   */
  tables: readonly string[];
  /** Its stored files served through signed links (src/http/signed-files.ts). */
  files?: readonly FileFamily[];
  /**
   * Removes what it keeps for organization `orgId` outside the database and the blob store (live state in Redis
   * or on disk) when the organization is purged; answers how many items it removed. Idempotent.
   */
  purgeOrganization?(orgId: string, services: Services): Promise<number>;
  /** Builds its services for one process (its live stores), declared in ModuleServices; each is closed with the process. */
  services?(config: Config): ModuleServiceInstances;
  /** Its HTTP surfaces beside /rpc/v1, each declared once beside its work (defineSurface, src/http/surface.ts). */
  surfaces?: readonly Surface[];
  /**
   * Example requests and answers for the API reference, by operation name (its namespace's examples.ts,
   * which may cover other modules' operations too); the registry keeps those of operations it serves.
   */
  examples?: OperationExamples;
  /** Starts what its surfaces need in one app (per-app state: a channel, an authorization server); closed with the app. */
  start?(ctx: ModuleContext): ModuleRuntime | Promise<ModuleRuntime>;
}

/** Services a manifest builds: part of ModuleServices, each closeable. */
export type ModuleServiceInstances = { [Name in keyof ModuleServices]?: ModuleServices[Name] & { close(): Promise<void> } };

export interface ModuleContext {
  config: Config;
  /** The service database (row-level security per organization). */
  db: Database;
  services: Services;
  /**
   * Every credential resolver of the app: the API keys' and those modules add. Filled as modules start,
   * complete before the server takes a request; read it at request time, not at start.
   */
  resolvers: readonly CredentialResolver[];
  /** The URL the service is reached at (FIRSTCRACK_BASE_URL, or the address it listens on once it does). */
  baseUrl(): string;
  /** Settings the app was started with for a module (tests move clocks and heartbeats), by name. */
  settings: Readonly<Record<string, unknown>>;
}

/** What a started module gives the surface mount (src/http/surface.ts SurfaceMount). */
export interface ModuleRuntime {
  /** Its part of what surface handlers reach (SurfaceDeps, which it extends by declaration merging). */
  deps?: Partial<SurfaceDeps>;
  /** Credentials it issues, which every surface then accepts (the identity module's tokens). */
  resolvers?: CredentialResolver[];
  /** The authentication of the credential kinds it resolves outside the bearer chain. */
  authenticators?: SurfaceAuthenticators;
  /** What the module's tests reach in a running app (the identity module's key rotation). */
  handle?: unknown;
  close?(): void | Promise<void>;
}

export const defineModule = (manifest: ModuleManifest): ModuleManifest => manifest;
