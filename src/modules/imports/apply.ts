import { z } from 'zod';
import type { Database, Queryable } from '../../db/client.js';
import { writeEvent } from '../../events/emit.js';
import type { BlobStore } from '../../blobs/store.js';
import { defineJob } from '../../jobs/define.js';
import { ProblemError } from '../../rpc/errors.js';
import { addRefusals, mapColumns, validateRows, type RowProblem, type RowVerdict } from './check.js';
import { KIND_BY_NAME, type Emit } from './kinds.js';
import * as repo from './repository.js';
import { readSheet } from './sheets.js';

/** Rows checked against the database per read transaction; progress is recorded after each. */
export const CHECK_CHUNK = 2_000;
/** Problems an import keeps (its problem count says how many there were). */
export const KEPT_PROBLEMS = 100;

const ApplyPayload = z.object({ orgId: z.string(), importId: z.string() }).strict();

/**
 * Applies an import: claims it (queued → checking), reads the stored file, checks every row as the dry run
 * does, in chunks of short read-only transactions that each record progress (rowsChecked of rowsTotal);
 * any problem refuses the whole file (status refused, the problems by row, nothing written). Otherwise all
 * rows are written through the owning module's service in ONE transaction that also marks the import
 * applied, so an applied import and its records stand or fall together. Imports run one at a time per
 * worker process.
 */
export const applyImportJob = defineJob({
  summary: 'Checks and applies a spreadsheet import, all rows in one transaction or none.',
  payload: ApplyPayload,
  retry: { limit: 1, delaySeconds: 10, backoff: false },
  timeoutSeconds: 30 * 60,
  concurrency: 1,
  handler: (ctx, { orgId, importId }) => applyImport(ctx.databases.service, ctx.blobs, orgId, importId, (work) => ctx.jobs.wake?.(work)),
});

/**
 * Embedded PGlite answers a statement without giving the event loop a turn, so a write of thousands of records
 * holds the process's HTTP server deaf for its whole length: the write yields a turn every YIELD_EVERY events
 * and before its events are written. Measured once on a loaded machine (10,000 green lots): the longest stretch
 * without a turn went from 58–71 s to 29 s (the rest is the lots' own insert, as before events were written).
 */
const YIELD_EVERY = 500;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The contract check the suite runs (FIRSTCRACK_CHECK_CONTRACT=1) holds imported records' events to their declared payloads too. */
const checkContract = () => process.env.FIRSTCRACK_CHECK_CONTRACT === '1';

/**
 * The emit an apply's write uses: each event written in the write's transaction (writeEvent: with the webhook
 * outbox's deliveries, committed or rolled back with the records), as a create operation's ctx.emit writes it.
 */
function emitterIn(tx: Queryable, orgId: string, queued: Promise<ReadonlySet<string>>[]): Emit {
  let emitted = 0;
  return async (event, data) => {
    if (++emitted % YIELD_EVERY === 0) await yieldToLoop();
    if (checkContract()) {
      const parsed = event.payload.safeParse(JSON.parse(JSON.stringify(data)));
      if (!parsed.success) throw new Error(`the ${event.type} payload of an imported record does not match its schema: ${parsed.error.message}`);
    }
    const written = await writeEvent(tx, orgId, event.type, data as Record<string, unknown>);
    if (queued.length === 0) queued.push(written.queued);
  };
}

export async function applyImport(db: Database, blobs: BlobStore, orgId: string, importId: string, wake: (work: string) => void = () => {}): Promise<void> {
  const claimed = await db.transaction((tx) => repo.startChecking(tx, orgId, importId), { orgId });
  if (!claimed) return;
  const kind = KIND_BY_NAME.get(claimed.kind)!;
  try {
    const bytes = await blobs.get(claimed.fileKey);
    if (!bytes) throw new Error(`the stored file ${claimed.fileKey} is missing`);
    const sheet = await readSheet(claimed.format, bytes);
    const mapped = mapColumns(kind, sheet.header);
    const { verdicts, valid } = validateRows(kind, mapped, sheet);
    const byRow = new Map(verdicts.map((v) => [v.row, v]));
    await db.transaction((tx) => repo.recordProgress(tx, orgId, importId, { rowsTotal: sheet.rows.length, rowsChecked: 0, mapping: mapped.mapping }), { orgId });
    for (let start = 0; start < valid.length; start += CHECK_CHUNK) {
      const chunk = valid.slice(start, start + CHECK_CHUNK);
      await db.transaction((tx) => addRefusals(tx, orgId, kind, mapped, chunk, byRow), { orgId, readOnly: true });
      const checked = Math.min(sheet.rows.length, Math.round(((start + chunk.length) / valid.length) * sheet.rows.length));
      await db.transaction((tx) => repo.recordProgress(tx, orgId, importId, { rowsTotal: sheet.rows.length, rowsChecked: checked }), { orgId });
    }
    if (valid.length === 0) await db.transaction((tx) => repo.recordProgress(tx, orgId, importId, { rowsTotal: sheet.rows.length, rowsChecked: sheet.rows.length }), { orgId });
    const invalid = verdicts.filter((v) => !v.valid);
    if (invalid.length > 0 || sheet.rows.length === 0) {
      const problems = rowProblems(invalid);
      const kept = sheet.rows.length === 0 ? [{ row: sheet.headerRow, column: null, cell: null, field: kind.uniqueField, code: 'invalid_input', message: 'the file holds no rows' }] : problems.slice(0, KEPT_PROBLEMS);
      await db.transaction((tx) => repo.markRefused(tx, orgId, importId, kept, Math.max(problems.length, kept.length)), { orgId });
      return;
    }
    await db.transaction((tx) => repo.markWriting(tx, orgId, importId), { orgId });
    const queued: Promise<ReadonlySet<string>>[] = [];
    await db.transaction(
      async (tx) => {
        queued.length = 0;
        const created = await kind.write(tx, orgId, claimed.credentialId, valid, emitterIn(tx, orgId, queued));
        await repo.markApplied(tx, orgId, importId, created);
        await yieldToLoop();
      },
      { orgId },
    );
    // Workers of this process take the webhook deliveries the events queued at once, not at their next poll.
    for (const work of queued.length ? await queued[0] : []) wake(work);
  } catch (error) {
    // A refusal found only while writing (a code taken meanwhile) or a file that cannot be read refuses the
    // import as a row problem would; anything else fails it with the reason.
    if (error instanceof ProblemError && error.status < 500) {
      const [first] = error.extensions.errors ?? [{ path: kind.uniqueField, message: error.message }];
      const problem = { row: 1, column: null, cell: null, field: first.path.split(/[.[]/)[0] || kind.uniqueField, code: error.code, message: `${error.message} (${first.message})` };
      await db.transaction((tx) => repo.markRefused(tx, orgId, importId, [problem], 1), { orgId });
      return;
    }
    await db.transaction((tx) => repo.markFailed(tx, orgId, importId, `The import could not be applied (${(error as Error).message}); nothing was written. Apply the file again.`), { orgId });
  }
}

export const rowProblems = (verdicts: RowVerdict[]): (RowProblem & { row: number })[] => verdicts.flatMap((v) => v.problems.map((p) => ({ row: v.row, ...p })));
