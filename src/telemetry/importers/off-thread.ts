import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { ImportError, importRoastLog, type ImportedRoast } from './index.js';
import type { ParseOutcome } from './parse-task.js';

/**
 * Roast logs are parsed off the event loop: a large export (hundreds of kB of CSV, XLS or Python
 * literals) takes a fraction of a second of CPU, which on the loop would hold up every other request of
 * the process. Small logs parse in place, where a thread hand-off would cost more than it saves.
 */
const IN_PLACE_BELOW_CHARS = 64 * 1024;

let pool: Piscina | undefined;

function parsers(): Piscina {
  // The task file beside this one, in whichever form this one runs (TypeScript under tsx, JavaScript built).
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  pool ??= new Piscina({
    filename: new URL(`./parse-task${extension}`, import.meta.url).href,
    maxThreads: Math.max(1, Math.min(4, availableParallelism() - 1)),
    // Idle threads end, so an idle process (or a finished test) holds none.
    minThreads: 0,
    idleTimeout: 2_000,
  });
  return pool;
}

/** importRoastLog, on a worker thread for large logs; throws ImportError for content that cannot be imported. */
export async function importRoastLogOffThread(content: string): Promise<ImportedRoast> {
  if (content.length < IN_PLACE_BELOW_CHARS) return importRoastLog(content);
  const outcome: ParseOutcome = await parsers().run(content);
  if (!outcome.ok) throw new ImportError(outcome.message);
  return outcome.roast;
}
