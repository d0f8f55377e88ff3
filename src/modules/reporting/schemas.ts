import { z } from 'zod';
import { date, dateTime, id, name, page, strict, url } from '../../rpc/schemas.js';
import { idOut, out, timeOut } from '../../rpc/outputs.js';
import { linkLifetime } from '../../http/signed-files.js';

export const REPORT_KINDS = ['traceability_certificate', 'inventory_valuation', 'production_summary', 'quality_summary', 'cafe_performance'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const REPORT_STATUSES = ['queued', 'rendering', 'ready', 'failed'] as const;

/** Longest range a summary covers: ten years of days. */
const MAX_RANGE_DAYS = 3660;

const range = {
  /** First day, UTC, inclusive. */
  from: date,
  /** Last day, UTC, inclusive. */
  to: date,
};
const checkRange = (value: { from: string; to: string }, ctx: z.RefinementCtx) => {
  if (value.to < value.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
  else if ((Date.parse(value.to) - Date.parse(value.from)) / 86_400_000 >= MAX_RANGE_DAYS) ctx.addIssue({ code: 'custom', path: ['to'], message: `the range may span at most ${MAX_RANGE_DAYS} days` });
};

/** Each kind's parameters: strict (an unknown field is a 400 naming it), validated at generateReport. */
export const KIND_PARAMETERS = {
  traceability_certificate: strict({
    /** An issued certificate; or the newest one of a roasted lot and/or an order line. */
    certificateId: id().optional(),
    roastedLotId: id().optional(),
    orderLineId: id().optional(),
    /** The service's public address, e.g. https://roast.example.com: the QR code links the certificate's page under it. */
    publicBaseUrl: url.optional(),
  }).superRefine((value, ctx) => {
    if (!value.certificateId && !value.roastedLotId && !value.orderLineId) {
      ctx.addIssue({ code: 'custom', path: ['certificateId'], message: 'name a certificateId, a roastedLotId or an orderLineId' });
    }
  }),
  inventory_valuation: strict({
    /** The stock as it stood at the end of this day (UTC), or at this instant; default: now. Not in the future. */
    asOf: z.union([date, dateTime], { error: 'must be a date (YYYY-MM-DD) or a date-time with an offset' }).optional(),
    /** Only stock at these locations (default: everywhere, the unassigned balance included). */
    locationIds: z.array(id()).min(1).max(100).optional(),
  }),
  production_summary: strict({ ...range, locationId: id().optional() }).superRefine(checkRange),
  quality_summary: strict({ ...range }).superRefine(checkRange),
  cafe_performance: strict({ ...range, siteIds: z.array(id()).min(1).max(100).optional() }).superRefine(checkRange),
} satisfies Record<ReportKind, z.ZodType>;

export type KindParameters<K extends ReportKind> = z.output<(typeof KIND_PARAMETERS)[K]>;

/** A kind's request: its own parameters, so the document and the typed client know each kind's. */
const generate = <K extends ReportKind, P extends z.ZodType>(kind: K, parameters: P) =>
  strict({
    kind: z.literal(kind),
    title: name.optional(),
    // Absent is {}: a kind whose parameters are all optional needs none, the others name what is missing.
    parameters: parameters.prefault({} as z.input<P>),
  }).meta({ id: `Generate_${kind}` });

export const GenerateReport = z.discriminatedUnion(
  'kind',
  [
    generate('traceability_certificate', KIND_PARAMETERS.traceability_certificate),
    generate('inventory_valuation', KIND_PARAMETERS.inventory_valuation),
    generate('production_summary', KIND_PARAMETERS.production_summary),
    generate('quality_summary', KIND_PARAMETERS.quality_summary),
    generate('cafe_performance', KIND_PARAMETERS.cafe_performance),
  ],
  { error: `must be one of ${REPORT_KINDS.join(', ')}` },
);

export const ById = strict({ id: id() });

export const GetDownloadUrl = strict({
  id: id(),
  expiresInSeconds: linkLifetime,
});

export const ReportFilter = strict({
  kind: z.enum(REPORT_KINDS).optional(),
  status: z.enum(REPORT_STATUSES).optional(),
  /** Reports generated on or after this day (UTC). */
  createdFrom: date.optional(),
  /** Reports generated on or before this day (UTC). */
  createdTo: date.optional(),
});
export type ReportFilterInput = z.output<typeof ReportFilter>;
export const ListReports = strict({ filter: ReportFilter.default({}), page });

export const Report = out({
  id: idOut,
  kind: z.enum(REPORT_KINDS),
  title: z.string(),
  /** The parameters as validated, with defaults filled in (e.g. inventory_valuation's asOf). */
  parameters: z.record(z.string(), z.unknown()),
  /** queued → rendering → ready, or failed. */
  status: z.enum(REPORT_STATUSES),
  /** Why rendering failed, in words a person can act on; null unless failed. */
  failureReason: z.string().nullable(),
  /** The report's totals as printed (kind-specific figures); null until ready. */
  summary: z.record(z.string(), z.unknown()).nullable(),
  /** Sizes of the rendered files; null until ready. */
  files: out({ pdfBytes: z.number().int().nonnegative(), csvBytes: z.number().int().nonnegative() }).nullable(),
  createdAt: timeOut,
  startedAt: timeOut.nullable(),
  completedAt: timeOut.nullable(),
  updatedAt: timeOut,
}).meta({ id: 'Report' });

export const DownloadLinks = out({
  reportId: idOut,
  /** When both links stop working (410 from the service; S3 refuses an expired presigned URL itself). */
  expiresAt: timeOut,
  /** `service`: the service's own signed link, relative to its address; `s3`: an absolute S3 presigned URL. */
  signedBy: z.enum(['service', 's3']),
  pdfUrl: z.string(),
  csvUrl: z.string(),
}).meta({ id: 'ReportDownloadLinks' });


