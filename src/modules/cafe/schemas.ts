import { z } from 'zod';
import { code, date, dateTime, id, name, page, strict, timezone } from '../../rpc/schemas.js';
import { dateOut, idOut, out, timeOut } from '../../rpc/outputs.js';
import { MAX_SHOT_WINDOW_HOURS, MAX_PERFORMANCE_DAYS } from './targets.js';

export const MACHINE_KINDS = ['espresso_machine', 'grinder', 'batch_brewer', 'water_system'] as const;

const label = z.string().trim().min(1).max(120);
const grams = (max: number) => z.number().min(0).max(max);

/** A site's shot target; every field optional on input (the defaults of targets.ts fill the rest). */
export const ShotTargetInput = strict({
  doseG: z.number().min(5).max(30).optional(),
  doseToleranceG: z.number().min(0).max(5).optional(),
  ratioMin: z.number().min(0.5).max(5).optional(),
  ratioMax: z.number().min(0.5).max(5).optional(),
  timeMinS: z.number().min(5).max(120).optional(),
  timeMaxS: z.number().min(5).max(120).optional(),
  channelingBelowS: z.number().min(1).max(120).optional(),
})
  .refine((t) => t.ratioMin === undefined || t.ratioMax === undefined || t.ratioMin <= t.ratioMax, { message: 'ratioMin must not exceed ratioMax', path: ['ratioMax'] })
  .refine((t) => t.timeMinS === undefined || t.timeMaxS === undefined || t.timeMinS <= t.timeMaxS, { message: 'timeMinS must not exceed timeMaxS', path: ['timeMaxS'] });

export const ShotTarget = out({
  doseG: z.number(),
  doseToleranceG: z.number(),
  ratioMin: z.number(),
  ratioMax: z.number(),
  timeMinS: z.number(),
  timeMaxS: z.number(),
  channelingBelowS: z.number(),
}).meta({ id: 'CafeShotTarget' });

export const CreateSite = strict({
  name,
  code,
  locationId: id('locationId').optional(),
  timezone: timezone.optional(),
  shotTarget: ShotTargetInput.optional(),
});

export const Site = out({
  id: idOut,
  code: z.string(),
  name: z.string(),
  locationId: idOut.nullable(),
  timezone: z.string(),
  shotTarget: ShotTarget,
  createdAt: timeOut,
}).meta({ id: 'CafeSite' });

export const ListSites = strict({ page });

export const RegisterMachine = strict({
  siteId: id('siteId'),
  name,
  code,
  kind: z.enum(MACHINE_KINDS),
  groupCount: z.number().int().min(1).max(6).optional(),
  brand: label.optional(),
  model: label.optional(),
  deviceId: z.string().trim().min(1).max(120).optional(),
});

export const BarMachine = out({
  id: idOut,
  siteId: idOut,
  code: z.string(),
  name: z.string(),
  kind: z.enum(MACHINE_KINDS),
  /** Group heads of an espresso machine (1–6); 0 for other kinds. */
  groupCount: z.number().int(),
  brand: z.string().nullable(),
  model: z.string().nullable(),
  deviceId: z.string().nullable(),
  createdAt: timeOut,
}).meta({ id: 'CafeMachine' });

export const ListMachines = strict({
  filter: strict({ siteId: id('siteId').optional(), kind: z.enum(MACHINE_KINDS).optional() }).default({}),
  page,
});

export const IssueBarMachineToken = strict({
  machineId: id('machineId'),
  expiresInHours: z.number().int().min(1).max(8760).default(720),
});

export const BarMachineToken = out({ id: idOut, token: z.string(), machineId: idOut, expiresAt: timeOut }).meta({ id: 'CafeBarMachineToken' });

// ---------------------------------------------------------------------------------------------------
// Shots

const series = z.array(z.number().finite()).max(600);

/** One shot as a machine posts it. */
export const ShotPost = strict({
  shotId: z.string().trim().min(1).max(100),
  group: z.number().int().min(1).max(6),
  startedAt: dateTime,
  durationS: z.number().min(0).max(600),
  doseG: grams(100),
  yieldG: grams(500),
  pressureBar: series.optional(),
  temperatureC: series.optional(),
  flow: series.optional(),
});
export const MAX_SHOTS_PER_POST = 500;
export const ShotsPost = strict({ shots: z.array(ShotPost).min(1).max(MAX_SHOTS_PER_POST) });
export type ShotInput = z.output<typeof ShotPost>;

export const Shot = out({
  id: idOut,
  siteId: idOut,
  machineId: idOut,
  shotId: z.string(),
  group: z.number().int(),
  startedAt: timeOut,
  durationS: z.number(),
  doseG: z.number(),
  yieldG: z.number(),
  /** yieldG / doseG, null for a zero dose. */
  ratio: z.number().nullable(),
  outsideTarget: z.boolean(),
  channeling: z.boolean(),
  pressureBar: z.array(z.number()).nullable(),
  temperatureC: z.array(z.number()).nullable(),
  flow: z.array(z.number()).nullable(),
  receivedAt: timeOut,
}).meta({ id: 'CafeShot' });

export const ListShots = strict({
  filter: strict({
    from: dateTime,
    to: dateTime,
    siteId: id('siteId').optional(),
    machineId: id('machineId').optional(),
    group: z.number().int().min(1).max(6).optional(),
    outsideTarget: z.boolean().optional(),
  }).refine((f) => Date.parse(f.to) > Date.parse(f.from), { message: 'must be after filter.from', path: ['to'] })
    .refine((f) => Date.parse(f.to) - Date.parse(f.from) <= MAX_SHOT_WINDOW_HOURS * 3_600_000, {
      message: `the window may span at most ${MAX_SHOT_WINDOW_HOURS} hours`,
      path: ['to'],
    }),
  limit: z.number().int().min(1).max(1000).default(100),
});

export const ShotList = out({
  items: z.array(Shot),
  /** More shots lie in the window than `limit`: narrow the window (start `from` after the last startedAt). */
  truncated: z.boolean(),
}).meta({ id: 'CafeShotList' });

// ---------------------------------------------------------------------------------------------------
// The live bar

const LiveShot = out({
  shotId: z.string(),
  machineId: idOut,
  group: z.number().int(),
  startedAt: timeOut,
  durationS: z.number(),
  doseG: z.number(),
  yieldG: z.number(),
  outsideTarget: z.boolean(),
  channeling: z.boolean(),
});

const FailingReason = out({ code: z.enum(['outside_target', 'channeling']), detail: z.string() });

const LiveGroupHead = out({
  machineId: idOut,
  machineCode: z.string(),
  group: z.number().int(),
  /** Shots started in the last five minutes, newest first. */
  shots: z.array(LiveShot),
  failing: z.boolean(),
  reasons: z.array(FailingReason),
});

export const LiveBar = out({
  siteId: idOut,
  asOf: timeOut,
  windowSeconds: z.number().int(),
  groupHeads: z.array(LiveGroupHead),
  /** Every group head currently failing, with its reasons (the same entries as in groupHeads). */
  failing: z.array(out({ machineId: idOut, group: z.number().int(), reasons: z.array(FailingReason) })),
}).meta({ id: 'CafeLiveBar' });

export const SiteRef = strict({ siteId: id('siteId') });

// ---------------------------------------------------------------------------------------------------
// Performance

export const GetSitePerformance = strict({
  siteId: id('siteId'),
  from: date,
  to: date,
}).refine((p) => p.to >= p.from, { message: 'must not be before from', path: ['to'] })
  .refine((p) => (Date.parse(p.to) - Date.parse(p.from)) / 86_400_000 < MAX_PERFORMANCE_DAYS, {
    message: `the range may span at most ${MAX_PERFORMANCE_DAYS} days`,
    path: ['to'],
  });

const Figures = {
  shots: z.number().int(),
  outsideTargetShots: z.number().int(),
  /** outsideTargetShots / shots, 0 without shots. */
  failingShare: z.number(),
  channelingShots: z.number().int(),
  saleShotEquivalents: z.number().int(),
  /** shots − saleShotEquivalents: positive pulled but not sold, negative sold but not reported. */
  variance: z.number().int(),
};

export const SitePerformance = out({
  siteId: idOut,
  timezone: z.string(),
  from: dateOut,
  to: dateOut,
  totals: out(Figures),
  days: z.array(out({ date: dateOut, ...Figures })),
  /** Hour of the local day (0–23) over the whole range: when the bar is busy and when it goes wrong. */
  hours: z.array(out({ hour: z.number().int(), ...Figures })),
  groupHeads: z.array(
    out({
      machineId: idOut,
      group: z.number().int(),
      shots: z.number().int(),
      outsideTargetShots: z.number().int(),
      failingShare: z.number(),
      channelingShots: z.number().int(),
      meanDurationS: z.number().nullable(),
    }),
  ),
}).meta({ id: 'CafeSitePerformance' });

// ---------------------------------------------------------------------------------------------------
// POS and reconciliation

export const PosLine = strict({
  posLineId: z.string().trim().min(1).max(120),
  soldAt: dateTime,
  item: z.string().trim().min(1).max(200),
  quantity: z.number().int().min(1).max(10_000),
  /** Espresso shots one unit stands for: a double espresso 2, a pastry 0. */
  shotEquivalents: z.number().int().min(0).max(20),
});
export const ImportPosSales = strict({ siteId: id('siteId'), lines: z.array(PosLine).min(1).max(1000) });
export const PosImport = out({
  siteId: idOut,
  received: z.number().int(),
  /** Lines stored now. */
  new: z.number().int(),
  /** Lines whose posLineId was stored before (or repeated in this batch): nothing was added for them. */
  known: z.number().int(),
  /** Sale shot-equivalents the new lines added (quantity × shotEquivalents). */
  newShotEquivalents: z.number().int(),
}).meta({ id: 'CafePosImport' });

export const ReconcilePos = strict({ siteId: id('siteId'), businessDate: date });

export const Reconciliation = out({
  id: idOut,
  siteId: idOut,
  businessDate: dateOut,
  /** 1 for the first run of the day, then one more per run: earlier versions are kept. */
  version: z.number().int(),
  timezone: z.string(),
  /** The business day's start and end (exclusive) as instants: 23 or 25 hours apart on DST days. */
  dayStart: timeOut,
  dayEnd: timeOut,
  hours: z.number().int(),
  shotsPulled: z.number().int(),
  saleShotEquivalents: z.number().int(),
  variance: z.number().int(),
  machines: z.array(out({ machineId: idOut, shotsPulled: z.number().int(), shareOfShots: z.number() })),
  createdAt: timeOut,
}).meta({ id: 'CafeReconciliation' });

export const ListReconciliations = strict({
  filter: strict({
    siteId: id('siteId').optional(),
    from: date.optional(),
    to: date.optional(),
    /** Only the newest version of each day. */
    latestOnly: z.boolean().optional(),
  }).default({}),
  page,
});
