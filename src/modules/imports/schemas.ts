import { z } from 'zod';
import { id, strict, text } from '../../rpc/schemas.js';
import { idOut, out, timeOut } from '../../rpc/outputs.js';

export const IMPORT_FORMATS = ['csv', 'xlsx'] as const;
export const IMPORT_STATUSES = ['queued', 'checking', 'writing', 'applied', 'refused', 'failed'] as const;

/** A spreadsheet as a JSON body can carry it: CSV as its text, XLSX base64-encoded (the roast-log importers' convention). */
const file = {
  format: z.enum(IMPORT_FORMATS),
  content: z.string().min(1).describe('CSV: the file’s text (UTF-8). XLSX: the file’s bytes, base64-encoded.'),
  fileName: text(255).optional(),
};

export const CheckImport = strict(file);

export const ApplyImport = strict({
  ...file,
  /** The caller's own key for this import; without one the file's SHA-256 is its key. */
  key: z.string().min(1).max(255).optional(),
});

export const ById = strict({ id: id() });

export const ColumnMapping = out({ column: z.string(), letter: z.string(), field: z.string().nullable() }).meta({ id: 'ImportColumnMapping' });

export const RowProblem = out({
  column: z.string().nullable(),
  cell: z.string().nullable(),
  field: z.string(),
  code: z.string(),
  message: z.string(),
}).meta({ id: 'ImportRowProblem' });

export const RowVerdict = out({
  row: z.number().int().min(1),
  valid: z.boolean(),
  creates: z.string().nullable(),
  problems: z.array(RowProblem),
}).meta({ id: 'ImportRowVerdict' });

export const ImportCheck = out({
  kind: z.string(),
  format: z.enum(IMPORT_FORMATS),
  fileHash: z.string().regex(/^[0-9a-f]{64}$/),
  mapping: z.array(ColumnMapping),
  rowsTotal: z.number().int().min(0),
  rowsValid: z.number().int().min(0),
  rowsInvalid: z.number().int().min(0),
  /** How many records applying the file would create: all of them when every row is valid (an apply is all or nothing), one per row, or for contracts one per contract number. */
  wouldCreate: z.number().int().min(0),
  rows: z.array(RowVerdict),
}).meta({ id: 'ImportCheck' });

export const Import = out({
  id: idOut,
  kind: z.string(),
  format: z.enum(IMPORT_FORMATS),
  fileName: z.string().nullable(),
  fileHash: z.string(),
  key: z.string().nullable(),
  status: z.enum(IMPORT_STATUSES),
  /** null until the file was read. */
  rowsTotal: z.number().int().min(0).nullable(),
  rowsChecked: z.number().int().min(0),
  created: z.number().int().min(0),
  problemCount: z.number().int().min(0),
  /** The first 100 problems, by row. */
  problems: z.array(RowProblem.extend({ row: z.number().int().min(1) })),
  mapping: z.array(ColumnMapping).nullable(),
  failureReason: z.string().nullable(),
  createdAt: timeOut,
  startedAt: timeOut.nullable(),
  completedAt: timeOut.nullable(),
  updatedAt: timeOut,
}).meta({ id: 'Import' });

export type ImportFormat = (typeof IMPORT_FORMATS)[number];
