import { ImportError, importRoastLog, type ImportedRoast } from './index.js';

/** A parse on a worker thread: an unreadable log is an answer (its message), anything else a failure. */
export type ParseOutcome = { ok: true; roast: ImportedRoast } | { ok: false; message: string };

export default function parse(content: string): ParseOutcome {
  try {
    return { ok: true, roast: importRoastLog(content) };
  } catch (error) {
    if (error instanceof ImportError) return { ok: false, message: error.message };
    throw error;
  }
}
