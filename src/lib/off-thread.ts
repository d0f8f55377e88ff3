import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';

/**
 * CPU-bound work (parsing a large roast log or telemetry post, rendering a report) runs on worker threads,
 * off the event loop: there it would hold up every other request of the process for as long as it computes.
 * One pool serves every kind of task, so the process never runs more such threads than it has cores to spare
 * (one is left to the event loop).
 */
let pool: Piscina | undefined;
/** The module of the task whose thread is kept started, if one is. */
let startedModule: string | undefined;

function workers(started?: { module: string }): Piscina {
  pool ??= new Piscina({
    maxThreads: Math.max(1, Math.min(4, availableParallelism() - 1)),
    // Idle threads end, so an idle process (or a finished test) holds none, except a server's one (below).
    minThreads: started ? 1 : 0,
    // A thread loads this module as it starts (other tasks name their own).
    filename: started?.module,
    idleTimeout: 2_000,
  });
  return pool;
}

/**
 * A server process starts one thread now, with `task`'s module loaded, and keeps it: large telemetry posts
 * then never wait for a thread to start or the module to load, and what the thread and module take in memory
 * is part of the server's footprint from the start, not a step when the first large post arrives. An
 * idle thread holds no process open.
 */
export function keepWorkerThreadStarted(task: OffThreadTask<never, unknown>): void {
  if (pool && startedModule === task.module) return;
  if (pool) throw new Error('keepWorkerThreadStarted must be called before the pool is first used');
  startedModule = task.module;
  workers(task);
}

/** A task run on a worker thread; `module` is the file it runs. */
export interface OffThreadTask<I, O> {
  (input: I): Promise<O>;
  readonly module: string;
}

/**
 * A function that runs `task` (the default export of the module `taskPath`, relative to `callerUrl`) on a
 * worker thread. Its input and answer cross the thread boundary by structured clone (a Buffer arrives as a
 * Uint8Array); what the task throws rejects the call.
 */
export function offThread<I, O>(callerUrl: string, taskPath: string): OffThreadTask<I, O> {
  // The task file in whichever form the caller runs (TypeScript under tsx, JavaScript built).
  const module = new URL(`${taskPath}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl).href;
  return Object.assign((input: I): Promise<O> => workers().run(input, { filename: module }), { module });
}
