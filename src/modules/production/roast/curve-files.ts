import type { FileFamily } from '../../../http/signed-files.js';
import { safeFilename } from '../../../http/signed-files.js';
import { joinText } from '../../../streaming/curve-text.js';
import type { Curve } from './telemetry/curve.js';
import type { MetricsOptions } from './telemetry/metrics.js';
import type { LogDetails } from './telemetry/importers/index.js';
import * as repo from './repository.js';
import type { CurveFormat } from './schemas.js';

/**
 * A completed batch's curve as files, through signed links from getRoastCurveLink (src/http/signed-files.ts):
 * GET /files/v1/curves/{batchId}.json (the full-fidelity curve), .alog and .csv (Artisan exports of it).
 */
export const CURVE_EXTENSIONS = { full: 'json', alog: 'alog', csv: 'csv' } as const satisfies Record<CurveFormat, string>;
type CurveExtension = (typeof CURVE_EXTENSIONS)[CurveFormat];

/**
 * The full-fidelity copy completion stores: every sample and event as received (from the bridge, or as the
 * importer read the file), and for an import the log's own settings its metrics were computed with and its details.
 */
export interface FullCurve extends Curve {
  batchId: string;
  settings?: MetricsOptions;
  /** An imported log's texts, sampling interval and special events, for its exports. */
  details?: LogDetails;
}

/**
 * The full curve's file: JSON of `full`. With `text` (the samples and events as JSON arrays, cut from the
 * posts a live batch received: src/streaming/curve-text.ts) the arrays are copied in rather than serialised
 * again from the objects, which they equal.
 */
export function encodeFullCurve(full: FullCurve, text?: { samples: readonly Buffer[]; events: readonly Buffer[] }): string | Buffer {
  if (!text) return JSON.stringify(full);
  const { batchId, samples: _samples, events: _events, ...rest } = full;
  const tail = JSON.stringify(rest).slice(1); // `}`, or `"settings":…}`
  return joinText([`{"batchId":${JSON.stringify(batchId)},"samples":`, text.samples, ',"events":', text.events, tail === '}' ? tail : `,${tail}`]);
}

/** Where a batch's curve files live in the blob store: the full curve is written at completion, exports when linked. */
export const curveFileKey = (orgId: string, batchId: string, extension: CurveExtension) => `curves/${orgId}/${batchId}.${extension}`;

export const curveFiles: FileFamily<CurveExtension> = {
  base: '/files/v1/curves',
  idPattern: 'rb_[0-9a-z]{1,60}',
  files: {
    json: { purpose: 'roast-curve.json', contentType: 'application/json' },
    alog: { purpose: 'roast-curve.alog', contentType: 'text/plain; charset=utf-8' },
    // Artisan's "CSV" export is tab-separated.
    csv: { purpose: 'roast-curve.csv', contentType: 'text/tab-separated-values; charset=utf-8' },
  },
  async locate(db, orgId, batchId, extension) {
    const batch = await db.transaction((tx) => repo.findBatch(tx, orgId, batchId), { orgId, readOnly: true });
    if (!batch || batch.state !== 'completed') return null;
    return { key: curveFileKey(orgId, batchId, extension), filename: curveFilename(batch, extension) };
  },
  gone: 'This roast curve is no longer available.',
  doc: {
    operationId: 'production.roast.downloadRoastCurveFile',
    summary: 'A completed batch’s full-fidelity curve (.json) or its Artisan export (.alog, .csv), through a signed link from production.roast.getRoastCurveLink; no credential.',
    file: '`<batch id>.json`, `<batch id>.alog` or `<batch id>.csv`.',
    issuer: 'getRoastCurveLink',
  },
};

/** `<batch number>-<id>.<extension>`. */
export const curveFilename = (batch: { id: string; batchNumber: string }, extension: CurveExtension) =>
  safeFilename(batch.batchNumber, batch.id, extension, 'roast');
