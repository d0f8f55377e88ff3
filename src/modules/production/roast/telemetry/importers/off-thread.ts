import { offThread } from '../../../../../lib/off-thread.js';
import { ImportError, importRoastLog, type ImportedRoast } from './index.js';
import type { ParseOutcome } from './parse-task.js';

/**
 * A large export (hundreds of kB of CSV, XLS or Python literals) takes a fraction of a second of CPU to parse,
 * so it is parsed on a worker thread. Small logs parse in place, where a thread hand-off would cost more than
 * it saves.
 */
const IN_PLACE_BELOW_CHARS = 64 * 1024;

const parse = offThread<string, ParseOutcome>(import.meta.url, './parse-task');

/** importRoastLog, on a worker thread for large logs; throws ImportError for content that cannot be imported. */
export async function importRoastLogOffThread(content: string): Promise<ImportedRoast> {
  if (content.length < IN_PLACE_BELOW_CHARS) return importRoastLog(content);
  const outcome = await parse(content);
  if (!outcome.ok) throw new ImportError(outcome.message);
  return outcome.roast;
}
