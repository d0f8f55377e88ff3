import { createHash } from 'node:crypto';
import { defineOperation, type Operation } from '../../rpc/define.js';
import { invalidInput, throwNotFound } from '../../rpc/errors.js';
import { applyImportJob } from './apply.js';
import { checkSheet } from './check.js';
import { IMPORT_KINDS, type ImportKind } from './kinds.js';
import * as repo from './repository.js';
import { ApplyImport, ById, CheckImport, Import, ImportCheck, type ImportFormat } from './schemas.js';
import { readSheet } from './sheets.js';

/** Where an import's file is kept in the blob store. */
export const importFileKey = (orgId: string, importId: string, format: ImportFormat) => `imports/${orgId}/${importId}.${format}`;

/** The file's bytes: CSV as UTF-8 text, XLSX from base64 (400 naming content when it is not base64). */
function fileBytes(format: ImportFormat, content: string): Buffer {
  if (format === 'csv') return Buffer.from(content, 'utf8');
  if (!/^[A-Za-z0-9+/\r\n]*={0,2}\s*$/.test(content)) throw invalidInput([{ path: 'content', message: 'an XLSX file is sent base64-encoded' }]);
  return Buffer.from(content, 'base64');
}

const FILE_DOC =
  '`format` csv (the text, UTF-8; `,` `;` or tab separated) or xlsx (base64; the first worksheet). The first non-empty row names the ' +
  'columns, matched to the fields leniently (case, spaces, `_` and `-` ignored, and common synonyms); `mapping` shows which column fills ' +
  'which field (null: not read). Rows are numbered as a spreadsheet shows them (the header is row 1). ';

/** The flat layout of a kind whose records have lines. */
const GROUP_DOC = (kind: ImportKind) => {
  const lineFields = kind.fields.filter((f) => f.line).map((f) => `\`${f.field}\``).join(', ');
  return (
    ` One row per line: rows with the same \`${kind.uniqueField}\` are one record (they need not be adjacent); its own columns ` +
    `are repeated on each of its rows or given on its first row only (a row giving another value is a problem at that cell); ` +
    `the line columns (${lineFields}) fill \`${kind.group!.lines}[i]\` in row order. A problem of a line names its row; one of the ` +
    `record names the record's first row, and refuses all its rows.`
  );
};

/** The three operations of one kind: dry run, apply, and the applied import's status. */
function kindOperations(kind: ImportKind): Operation[] {
  const fields = kind.fields.map((f) => `\`${f.field}\``).join(', ');
  return [
    defineOperation({
      name: `${kind.namespace}.check${kind.noun}Import`,
      summary: `Dry run of a spreadsheet of ${kind.kind.replace('_', ' ')}: every row’s verdict and what applying it would create; nothing is written.`,
      description:
        FILE_DOC +
        `Each row is validated with \`${kind.operation}\`’s input schema (its fields: ${fields}) and checked as that operation would ` +
        `(a code already used, a location unknown or archived, a code repeated in the file); each problem names the row, the column, the ` +
        `cell and the problem code and message the operation would answer. Each valid row creates ${kind.creates}.` +
        (kind.group ? GROUP_DOC(kind) : ''),
      permission: kind.writePermission,
      feature: kind.feature,
      get: false,
      extension: true,
      // A file of thousands of rows is checked in one call.
      cost: 10,
      input: CheckImport,
      output: ImportCheck,
      errors: [],
      async handler(ctx, input) {
        const bytes = fileBytes(input.format, input.content);
        const sheet = await readSheet(input.format, bytes);
        const { mapping, verdicts, rowsValid, valid } = await checkSheet(ctx.tx, ctx.orgId, kind, sheet);
        return {
          kind: kind.kind,
          format: input.format,
          fileHash: createHash('sha256').update(bytes).digest('hex'),
          mapping,
          rowsTotal: verdicts.length,
          rowsValid,
          rowsInvalid: verdicts.length - rowsValid,
          // Records, not rows: a contract of three lines is one.
          wouldCreate: rowsValid === verdicts.length ? valid.length : 0,
          rows: verdicts,
        };
      },
    }),

    defineOperation({
      name: `${kind.namespace}.apply${kind.noun}Import`,
      summary: `Apply a spreadsheet of ${kind.kind.replace('_', ' ')}: all rows in one transaction or none, in the background; poll ${kind.namespace}.get${kind.noun}Import.`,
      description:
        FILE_DOC +
        'The import answers at once (status queued); a job checks every row as the dry run does, recording progress (`rowsChecked` of ' +
        '`rowsTotal`), then writes them all in one transaction (status applied, `created`), or writes nothing when any row has a problem ' +
        '(status refused, `problems` naming rows and columns, the first 100). Idempotent: the same `key`, or without one the same file ' +
        '(its SHA-256), answers the import already standing for it (queued, running or applied) and writes nothing more; a refused or ' +
        'failed import does not stand, so the corrected file (or the same key) can be applied again. Each created record emits ' +
        `the events \`${kind.operation}\` emits (${kind.emits.map((e) => `\`${e.type}\``).join(', ')}), written in the same transaction, so webhook ` +
        'subscribers see imported records as created ones.' +
        (kind.group ? GROUP_DOC(kind) : ''),
      permission: kind.writePermission,
      feature: kind.feature,
      get: false,
      extension: true,
      cost: 10,
      input: ApplyImport,
      output: Import,
      errors: [],
      // Emitted by the apply job, in the transaction writing the records, once per created record.
      emits: kind.emits,
      async handler(ctx, input) {
        const bytes = fileBytes(input.format, input.content);
        const id = repo.newImportId();
        const fileKey = importFileKey(ctx.orgId, id, input.format);
        const { record, existing } = await repo.insertImport(ctx.tx, ctx.orgId, {
          id,
          kind: kind.kind,
          format: input.format,
          fileName: input.fileName ?? null,
          fileKey,
          fileHash: createHash('sha256').update(bytes).digest('hex'),
          callerKey: input.key ?? null,
          credentialId: ctx.principal.credentialId,
        });
        if (!existing) {
          await ctx.services.blobs.put(fileKey, bytes, input.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
          await ctx.enqueue(applyImportJob, { orgId: ctx.orgId, importId: id });
        }
        return repo.publicImport(record);
      },
    }),

    defineOperation({
      name: `${kind.namespace}.get${kind.noun}Import`,
      summary: `An import of ${kind.kind.replace('_', ' ')} and its progress; poll until it is applied, refused or failed.`,
      description:
        'status queued → checking (`rowsChecked` of `rowsTotal` so far) → writing → applied (`created` records), or refused (`problems` by row ' +
        'and column; nothing was written) or failed (`failureReason`; nothing was written). Another organization’s import is a 404 like a missing one.',
      permission: kind.readPermission,
      feature: kind.feature,
      get: true,
      extension: true,
      input: ById,
      output: Import,
      errors: ['not_found'],
      async handler(ctx, { id }) {
        const found = (await repo.findImport(ctx.tx, ctx.orgId, id, kind.kind)) ?? throwNotFound('import', id);
        return repo.publicImport(found);
      },
    }),
  ];
}

export const importOperations: Operation[] = IMPORT_KINDS.flatMap(kindOperations);
