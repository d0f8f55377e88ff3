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

export const GenerateReport = strict({
  kind: z.enum(REPORT_KINDS),
  title: name.optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
}).superRefine((value, ctx) => {
  const parsed = KIND_PARAMETERS[value.kind].safeParse(value.parameters ?? {});
  if (parsed.success) return;
  for (const issue of parsed.error.issues) {
    ctx.addIssue({ ...issue, path: ['parameters', ...issue.path] } as z.core.$ZodRawIssue);
  }
});

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


