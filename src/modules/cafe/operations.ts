import { defineOperation } from '../../rpc/define.js';
import type { Queryable } from '../../db/client.js';
import { conflict, invalidInput, notFound } from '../../rpc/errors.js';
import { pageOut } from '../../rpc/outputs.js';
import { issueBridgeToken } from '../../auth/credentials.js';
import { findLocation } from '../catalog/location/service.js';
import * as repo from './repository.js';
import {
  BarMachine,
  BarMachineToken,
  CreateSite,
  GetSitePerformance,
  ImportPosSales,
  IssueBarMachineToken,
  ListMachines,
  ListReconciliations,
  ListShots,
  ListSites,
  LiveBar,
  PosImport,
  ReconcilePos,
  Reconciliation,
  RegisterMachine,
  ShotList,
  Site,
  SitePerformance,
  SiteRef,
} from './schemas.js';
import { barMachineTokenIssued, machineRegistered, posSalesImported, reconciliationRecorded, siteCreated } from './events.js';
import {
  DEFAULT_SHOT_TARGET,
  FAILING_CHANNELING,
  FAILING_OUTSIDE_TARGET,
  JUDGED_SHOTS,
  LIVE_RETAIN_SECONDS,
  LIVE_WINDOW_SECONDS,
  MAX_PERFORMANCE_DAYS,
  MAX_SHOT_WINDOW_HOURS,
  judgeGroupHead,
  shotTargetOf,
} from './targets.js';
import { performanceOf } from './performance.js';

const feature = 'cafe' as const;

const target = DEFAULT_SHOT_TARGET;
const TARGET_DOC =
  `Defaults: dose ${target.doseG} g ± ${target.doseToleranceG} g, ratio (yield/dose) ${target.ratioMin}–${target.ratioMax}, ` +
  `time ${target.timeMinS}–${target.timeMaxS} s; a shot under ${target.channelingBelowS} s is channeling-fast.`;

export const cafeOperations = [
  defineOperation({
    name: 'cafe.createSite',
    summary: 'Create a cafe site: the unit with staff in it, holding bar machines, shots, POS sales and reconciliations. Extension input: `shotTarget`.',
    description:
      'Codes are unique per organization (409 `duplicate`). `locationId`, when given, must be a location of this organization (404 otherwise) ' +
      'of kind `cafe` (409 `location_not_cafe`) that is not archived (409 `location_archived`). `timezone` is an IANA name (400 otherwise); ' +
      'without it the location’s timezone is taken, and a site with neither is refused (400 naming `timezone`): business days and ' +
      'performance days are the site’s local days. `shotTarget` (an extension) sets the target every group head is judged against; ' +
      `fields left out take the defaults. ${TARGET_DOC}`,
    permission: 'cafe.write',
    feature,
    get: false,
    input: CreateSite,
    output: Site,
    errors: ['not_found', 'duplicate', 'location_not_cafe', 'location_archived'],
    emits: [siteCreated],
    async handler(ctx, input) {
      let timezone = input.timezone;
      if (input.locationId) {
        // Locked so the location cannot be archived or change kind while the site is placed there.
        const location = await findLocation(ctx.tx, ctx.orgId, input.locationId, { forUpdate: true });
        if (!location) throw notFound('location', input.locationId, 'locationId');
        if (location.kind !== 'cafe') {
          throw conflict('location_not_cafe', `Location ${input.locationId} is a ${location.kind} location; a cafe site needs a location of kind cafe.`, {
            errors: [{ path: 'locationId', message: 'not a cafe location' }],
          });
        }
        if (location.archivedAt) {
          throw conflict('location_archived', `Location ${input.locationId} is archived and cannot take a cafe site.`, {
            errors: [{ path: 'locationId', message: 'location is archived' }],
          });
        }
        timezone ??= location.timezone ?? undefined;
      }
      if (!timezone) throw invalidInput([{ path: 'timezone', message: 'is required when the site has no location with a timezone' }]);
      const site = await repo.insertSite(ctx.tx, ctx.orgId, {
        code: input.code,
        name: input.name,
        locationId: input.locationId ?? null,
        timezone,
        shotTarget: shotTargetOf(input.shotTarget),
      });
      await ctx.emit('cafe.site.created', { site });
      return site;
    },
  }),

  defineOperation({
    name: 'cafe.listSites',
    summary: 'Cafe sites, oldest first.',
    description: 'Each site with its timezone and shot target.',
    permission: 'cafe.read',
    feature,
    get: true,
    input: ListSites,
    output: pageOut(Site),
    errors: ['invalid_cursor'],
    async handler(ctx, { page }) {
      return repo.listSites(ctx.tx, ctx.orgId, page);
    },
  }),

  defineOperation({
    name: 'cafe.registerMachine',
    summary: 'Register a bar machine at a cafe site: an espresso machine (with its group heads), grinder, batch brewer or water system.',
    description:
      'Bar equipment, separate from the roasting machines of catalog.machine (and not counted against their plan cap). ' +
      '`groupCount` (1–6, default 1) is for espresso machines only (400 for other kinds); each group head is judged separately. ' +
      'Codes are unique per site and `deviceId` per organization (409 `duplicate` naming the field). Another organization’s site is 404.',
    permission: 'cafe.write',
    feature,
    get: false,
    input: RegisterMachine,
    output: BarMachine,
    errors: ['not_found', 'duplicate'],
    emits: [machineRegistered],
    async handler(ctx, input) {
      if (input.kind !== 'espresso_machine' && input.groupCount !== undefined) {
        throw invalidInput([{ path: 'groupCount', message: 'only an espresso machine has group heads' }]);
      }
      await requireSite(ctx.tx, ctx.orgId, input.siteId);
      const machine = await repo.insertMachine(ctx.tx, ctx.orgId, {
        ...input,
        groupCount: input.kind === 'espresso_machine' ? (input.groupCount ?? 1) : 0,
      });
      await ctx.emit('cafe.machine.registered', { machine });
      return machine;
    },
  }),

  defineOperation({
    name: 'cafe.listMachines',
    summary: 'Bar equipment, oldest first.',
    description: 'Filters: `siteId`, `kind`. Roasting machines are catalog.machine’s.',
    permission: 'cafe.read',
    feature,
    get: true,
    input: ListMachines,
    output: pageOut(BarMachine),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listMachines(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'cafe.issueBarMachineToken',
    extension: true,
    summary: 'Extension: issue a bar machine token, a credential bound to one espresso machine that can only post its shots to the shot channel.',
    description:
      'An extension, like the roaster’s bridge token: the token (`fcb_…`, answered once; only its hash is kept) authorizes ' +
      '`POST /ingest/v1/cafe/machines/{machineId}/shots` for this machine only, and nothing on /rpc/v1/. `expiresInHours`: 1–8760, ' +
      'default 720 (30 days). Only espresso machines pull shots (409 `not_an_espresso_machine`). Another organization’s machine is 404.',
    permission: 'cafe.write',
    feature,
    get: false,
    input: IssueBarMachineToken,
    output: BarMachineToken,
    errors: ['not_found', 'not_an_espresso_machine'],
    emits: [barMachineTokenIssued],
    async handler(ctx, { machineId, expiresInHours }) {
      const machine = await repo.findMachine(ctx.tx, ctx.orgId, machineId);
      if (!machine) throw notFound('bar machine', machineId, 'machineId');
      if (machine.kind !== 'espresso_machine') {
        throw conflict('not_an_espresso_machine', `Bar machine ${machineId} is a ${machine.kind}; only espresso machines post shots.`);
      }
      const expiresAt = new Date(Date.now() + expiresInHours * 3_600_000);
      const { id, token } = await issueBridgeToken(ctx.tx, ctx.orgId, machineId, expiresAt);
      await ctx.emit('cafe.machine.bar_token_issued', { machineId, credentialId: id, expiresAt: expiresAt.toISOString() });
      return { id, token, machineId, expiresAt: expiresAt.toISOString() };
    },
  }),

  defineOperation({
    name: 'cafe.getLiveBar',
    summary: 'The bar right now: each group head’s shots of the last five minutes and every group head currently failing, with the reason.',
    description:
      'Answered from the site’s live session, never from the shot table (only the site and its machines are read, to list every group ' +
      'head): the shots the machines posted in the last hour, judged at ' +
      'ingest against the site’s target. A group head is failing when at least ' +
      `${FAILING_OUTSIDE_TARGET} of its last ${JUDGED_SHOTS} shots (within the last ${LIVE_RETAIN_SECONDS / 60} minutes) were outside ` +
      `the target (reason \`outside_target\`), or at least ${FAILING_CHANNELING} of them ran channeling-fast (reason \`channeling\`). ` +
      'Every group head of the site’s espresso machines is listed, idle ones with no shots. Embedded the session is this process’s memory; ' +
      'in server mode it is in Redis, so any API process answers.',
    permission: 'cafe.read',
    feature,
    get: false,
    input: SiteRef,
    output: LiveBar,
    errors: ['not_found'],
    async handler(ctx, { siteId }) {
      const found = await repo.siteWithEspressoMachines(ctx.tx, ctx.orgId, siteId);
      if (!found) throw notFound('cafe site', siteId, 'siteId');
      const { machines } = found;
      const now = Date.now();
      const shots = await ctx.services.liveBar.read(ctx.orgId, siteId, now - LIVE_RETAIN_SECONDS * 1000);
      const newestFirst = [...shots].sort((a, b) => b.startedAt - a.startedAt);
      const windowStart = now - LIVE_WINDOW_SECONDS * 1000;
      const groupHeads = machines.flatMap((machine) =>
        Array.from({ length: machine.groupCount }, (_, i) => {
          const group = i + 1;
          const own = newestFirst.filter((s) => s.machineId === machine.id && s.group === group);
          const reasons = judgeGroupHead(own);
          return {
            machineId: machine.id,
            machineCode: machine.code,
            group,
            shots: own
              .filter((s) => s.startedAt >= windowStart)
              .map((s) => ({ ...s, startedAt: new Date(s.startedAt).toISOString() })),
            failing: reasons.length > 0,
            reasons,
          };
        }),
      );
      return {
        siteId,
        asOf: new Date(now).toISOString(),
        windowSeconds: LIVE_WINDOW_SECONDS,
        groupHeads,
        failing: groupHeads.filter((g) => g.failing).map(({ machineId, group, reasons }) => ({ machineId, group, reasons })),
      };
    },
  }),

  defineOperation({
    name: 'cafe.listShots',
    summary: 'Raw shot rows in a time window, oldest first.',
    description:
      `\`filter.from\` and \`filter.to\` (RFC 3339, to exclusive) are required: a window of at most ${MAX_SHOT_WINDOW_HOURS} hours ` +
      '(400 otherwise, naming the field). Further filters: `siteId`, `machineId`, `group`, `outsideTarget`. `limit` 1–1000, default 100; ' +
      '`truncated` says more shots lie in the window (continue with `from` at the last `startedAt`). Questions over longer periods are ' +
      'getSitePerformance’s, which reads rollups.',
    permission: 'cafe.read',
    feature,
    get: true,
    input: ListShots,
    output: ShotList,
    errors: [],
    async handler(ctx, { filter, limit }) {
      return repo.listShots(ctx.tx, ctx.orgId, filter, limit);
    },
  }),

  defineOperation({
    name: 'cafe.getSitePerformance',
    summary: 'A site’s shots, failing-shot share, sale shot-equivalents and variance per local day, per hour of day and per group head.',
    description:
      `\`from\` and \`to\` are dates (inclusive) in the site’s timezone, at most ${MAX_PERFORMANCE_DAYS} days. Read from rollups only ` +
      '(written in the same statement as each shot and sale line), never from raw shots: days and totals from the per-local-day ' +
      'rollups, the hour-of-day profile and group heads from the per-month hour-of-day rollups of whole months and the hourly rollups of partial ones, ' +
      'so a year costs about what a week does. ' +
      'An hour is placed in the local day and hour its start falls in. `failingShare` = shots outside the target / shots. ' +
      '`variance` = shots − sale shot-equivalents: positive pulled but not sold, negative sold but not reported by machines.',
    permission: 'cafe.read',
    feature,
    get: true,
    input: GetSitePerformance,
    output: SitePerformance,
    errors: ['not_found'],
    async handler(ctx, { siteId, from, to }) {
      const site = await requireSite(ctx.tx, ctx.orgId, siteId);
      const { shots, sales } = await repo.performanceFigures(ctx.tx, ctx.orgId, site, from, to);
      return performanceOf(site, from, to, shots, sales);
    },
  }),

  defineOperation({
    name: 'cafe.importPosSales',
    summary: 'Import POS sale lines for a site; idempotent on the POS system’s own line id.',
    description:
      'Each line: `posLineId` (the POS system’s line id), `soldAt` (RFC 3339), `item`, `quantity` (≥ 1), `shotEquivalents` (espresso shots ' +
      'per unit: a double espresso 2, a pastry 0); a line counts quantity × shotEquivalents. A line whose posLineId the site has stored ' +
      'adds nothing (the answer counts `new` and `known`; a line repeated in one batch counts once). One bad line refuses the whole batch ' +
      '(400 naming it, nothing stored). At most 1000 lines per call. New lines feed the hourly sale rollups in the same transaction.',
    permission: 'cafe.ingest',
    feature,
    get: false,
    input: ImportPosSales,
    output: PosImport,
    errors: ['not_found'],
    emits: [posSalesImported],
    async handler(ctx, { siteId, lines }) {
      const site = await requireSite(ctx.tx, ctx.orgId, siteId);
      const stored = await repo.insertPosLines(ctx.tx, ctx.orgId, site, lines);
      const result = {
        siteId,
        received: lines.length,
        new: stored.length,
        known: lines.length - stored.length,
        newShotEquivalents: stored.reduce((sum, line) => sum + line.shot_equivalents, 0),
      };
      if (stored.length > 0) {
        await ctx.emit('cafe.pos_sales.imported', { siteId, new: result.new, known: result.known, newShotEquivalents: result.newShotEquivalents });
      }
      return result;
    },
  }),

  defineOperation({
    name: 'cafe.reconcilePos',
    summary: 'Reconcile a business day: shots pulled against sale shot-equivalents, per machine and in total; recorded as a new version.',
    description:
      '`businessDate` is a day in the site’s timezone: from local midnight to the next (23 or 25 hours on a DST change; `dayStart`, ' +
      '`dayEnd` and `hours` say which). `variance` = shots pulled − sale shot-equivalents: positive pulled not sold, negative the till ' +
      'saw sales the machines did not report. Sales carry no machine, so per machine the answer gives shots pulled and their share. ' +
      'Counted from the stored shots and sale lines. Running it again records the next version; earlier versions are kept.',
    permission: 'cafe.write',
    feature,
    get: false,
    input: ReconcilePos,
    output: Reconciliation,
    errors: ['not_found'],
    emits: [reconciliationRecorded],
    async handler(ctx, { siteId, businessDate }) {
      // Locked so two runs for the same day take consecutive versions.
      const site = await requireSite(ctx.tx, ctx.orgId, siteId, { forUpdate: true });
      const day = await repo.dayFigures(ctx.tx, ctx.orgId, siteId, site.timezone, businessDate);
      const shotsPulled = day.machines.reduce((sum, m) => sum + m.shots, 0);
      const reconciliation = await repo.insertReconciliation(ctx.tx, ctx.orgId, {
        siteId,
        businessDate,
        timezone: site.timezone,
        dayStart: day.dayStart,
        dayEnd: day.dayEnd,
        shotsPulled,
        saleShotEquivalents: day.soldShotEquivalents,
        machines: day.machines.map((m) => ({
          machineId: m.machine_id,
          shotsPulled: m.shots,
          shareOfShots: shotsPulled > 0 ? Math.round((m.shots / shotsPulled) * 10_000) / 10_000 : 0,
        })),
      });
      await ctx.emit('cafe.reconciliation.recorded', { reconciliation, businessDate });
      return reconciliation;
    },
  }),

  defineOperation({
    name: 'cafe.listReconciliations',
    summary: 'Recorded reconciliations, every version, oldest first.',
    description: 'Filters: `siteId`, `from` and `to` (business dates, inclusive), `latestOnly` (only the newest version of each day).',
    permission: 'cafe.read',
    feature,
    get: true,
    input: ListReconciliations,
    output: pageOut(Reconciliation),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listReconciliations(ctx.tx, ctx.orgId, filter, page);
    },
  }),
];

async function requireSite(tx: Queryable, orgId: string, siteId: string, options: { forUpdate?: boolean } = {}) {
  const site = await repo.findSite(tx, orgId, siteId, options);
  if (!site) throw notFound('cafe site', siteId, 'siteId');
  return site;
}
