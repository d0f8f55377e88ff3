import type { Queryable } from '../../../db/client.js';
import { defineOperation, type OperationContext } from '../../../rpc/define.js';
import { ProblemError, conflict, invalidInput, notFound, throwNotFound } from '../../../rpc/errors.js';
import { burnerFromChannel, downsampleTo1Hz, type MetricsOptions } from './telemetry/metrics.js';
import type { Curve } from './telemetry/curve.js';
import { ImportError, type ImportedRoast } from './telemetry/importers/index.js';
import { instantOfWallClock } from '../../../lib/time-zones.js';
import { findOrganizationLetterhead } from '../../../auth/organizations.js';
import { asWeighed, stockKg, tenthGrams, weighedGrams } from './weights.js';
import { importRoastLogOffThread } from './telemetry/importers/off-thread.js';
import { findLocation } from '../../catalog/location/service.js';
import { findMachine, type Machine } from '../../catalog/machine/service.js';
import { grams } from '../../../lib/grams.js';
import * as green from '../../inventory/green/service.js';
import { findBatchOutput } from '../../inventory/roast/service.js';
import { findProfile } from '../profile/service.js';
import { chargeOutsideRange } from './batch-range.js';
import { compareWithProfile } from './comparison.js';
import { NO_TELEMETRY_WARNING, checkWeights, recordCompletion } from './completion.js';
import * as repo from './repository.js';
import {
  ABORT_REASON_MAX_LENGTH,
  AbortRoastBatch,
  ById,
  CompleteRoastBatch,
  ImportLoggerRoast,
  ListRoastBatches,
  RoastBatch,
  RoastBatchView,
  GetRoastCurveLink,
  MarkedRoastEvent,
  MarkRoastEvent,
  RoastCurve,
  SetRoastReference,
  RoastCurveLink,
  StartRoastBatch,
} from './schemas.js';
import { CURVE_EXTENSIONS, curveFileKey, curveFilename, curveFiles, type FullCurve } from './curve-files.js';
import { issueFileLink, linkExpiry } from '../../../http/signed-files.js';
import { toArtisanAlog, toArtisanCsv } from './telemetry/exports.js';
import { roastBatchAborted, roastBatchCompleted, roastBatchImported, roastBatchStarted } from './events.js';
import { roastedLotCreated } from '../../inventory/roast/events.js';
import { pageOut } from '../../../rpc/outputs.js';
import { SessionClosedError, SessionFullError } from '../../../streaming/live.js';

const feature = 'roasting' as const;

export const roastOperations = [
  defineOperation({
    name: 'production.roast.startRoastBatch',
    summary: 'Start a roast batch (state live) and open its live session for the machine bridge’s telemetry.',
    description:
      'The machine must be active ' +
      '(409 machine_inactive) and the charge within its minimum and maximum batch (400 naming chargeWeightKg); a profile bound to ' +
      'another machine is refused (409 profile_machine_mismatch). A green lot must not be quarantined (409 lot_quarantined) and ' +
      'must have the charge available, on hand less reserved (409 insufficient_stock); it is deducted when the batch completes. ' +
      'locationId defaults to the machine’s location, and an archived location is refused (409 location_archived). A machine, ' +
      'profile, green lot or location that does not exist answers 404 naming the field. Batch numbers are unique per ' +
      'organization (409 duplicate). An extension: `referenceBatchId` names the completed batch whose curve the roast follows ' +
      '(404 naming it when there is none, 409 reference_not_completed when it is not completed); without it, the profile’s.',
    permission: 'production.roast.write',
    feature,
    get: false,
    input: StartRoastBatch,
    output: RoastBatchView,
    errors: [
      'not_found',
      'duplicate',
      'machine_inactive',
      'profile_machine_mismatch',
      'location_archived',
      'lot_quarantined',
      'insufficient_stock',
      'concurrent_update',
      'reference_not_completed',
    ],
    emits: [roastBatchStarted],
    async handler(ctx, input) {
      const { machine, locationId } = await checkReferences(ctx, input, 'live');
      if (input.referenceBatchId) await checkReferenceCurve(ctx, null, input.referenceBatchId);
      const batch = await repo.insertBatch(ctx.tx, ctx.orgId, ctx.principal.credentialId, {
        batchNumber: input.batchNumber,
        source: 'live',
        machineId: machine!.id,
        profileId: input.profileId ?? null,
        greenLotId: input.greenLotId ?? null,
        locationId,
        chargeWeightKg: input.chargeWeightKg,
        importFormat: null,
        warnings: [],
        startedAt: null,
      });
      if (input.referenceBatchId) await repo.setReference(ctx.tx, ctx.orgId, batch.id, input.referenceBatchId);
      await ctx.emit('production.roast.batch_started', { batch });
      // Opened once the batch is committed, so a refused or failed start never leaves a session behind;
      // the session is open before the answer is sent.
      ctx.afterCommit(() => ctx.services.liveSessions.open({ orgId: ctx.orgId, batchId: batch.id, machineId: machine!.id }));
      return batchView(ctx.tx, ctx.orgId, batch);
    },
  }),

  defineOperation({
    name: 'production.roast.completeRoastBatch',
    summary: 'Complete a live batch: store its curve, derive its metrics and book its green and roasted stock.',
    description:
      'The full-fidelity curve is written to object storage and a 1 Hz downsample to ' +
      'the database, and metrics are derived (see getRoastBatch; energy and CO2 need the machine’s burnerRatingKw and fuel and a ' +
      '`burner` channel in %). When the batch names a green lot, the charge weight is deducted from it (a ' +
      'roast_consume row at the batch’s location when the lot holds the charge there, else at its largest holding; 409 ' +
      'insufficient_stock when no single holding has it) and a loose roasted lot of dropWeightKg (code R-<batchNumber>, at the ' +
      'batch’s location, else where the green came from) opens, with lineage green lot → batch → roasted lot; dropWeightKg is ' +
      'therefore required then. Without a green lot no stock moves (a drop weight still gives the weight loss). dropWeightKg cannot ' +
      'exceed the charge. A batch whose session holds no samples (a machine without a logger) completes the same way without a ' +
      'curve: weights, stock and lineage are booked, no curve is stored (events posted without samples are not kept), metrics are ' +
      `null and warnings holds "${NO_TELEMETRY_WARNING}". The live buffer is discarded only after the transaction commits. ` +
      'Completing a completed batch answers it unchanged, books nothing again and discards any leftover buffer; an aborted batch ' +
      'cannot be completed (409 batch_not_live, state aborted). A missing batch answers 404.',
    permission: 'production.roast.write',
    feature,
    get: false,
    input: CompleteRoastBatch,
    output: RoastBatchView,
    errors: ['not_found', 'batch_not_live', 'insufficient_stock', 'duplicate', 'concurrent_update'],
    emits: [roastBatchCompleted, roastedLotCreated],
    async handler(ctx, { id, dropWeightKg, notes }) {
      const batch = (await repo.findBatch(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('roast batch', id);
      const live = ctx.services.liveSessions;
      if (batch.state === 'completed') {
        // A retry, or the buffer outlived a completion that committed: the writes are confirmed, so it can go.
        ctx.afterCommit(() => live.discard(ctx.orgId, id));
        return batchView(ctx.tx, ctx.orgId, batch);
      }
      if (batch.state === 'aborted') await refuseAborted(ctx, batch, 'completed');
      // Weights that can never complete the batch are refused before the seal, so the session keeps taking posts.
      checkWeights(batch, dropWeightKg ?? null);
      // From here the session takes no more posts, so every acknowledged sample is in the curve read next.
      await live.seal(ctx.orgId, id);
      const buffered = await live.readCurveText(ctx.orgId, id);
      const curve = buffered && buffered.curve.samples.length > 0 ? buffered.curve : null;
      const completed = await recordCompletion(ctx, batch, curve, {
        dropWeightKg: dropWeightKg ?? null,
        notes: notes ?? null,
        warnings: curve ? [] : [NO_TELEMETRY_WARNING],
        roastedAt: null,
        event: 'production.roast.batch_completed',
        metricsOptions: curve && batch.machineId ? await machineEnergy(ctx, batch.machineId, curve) : undefined,
        // The full curve is written from the posts' own text (the objects equal it).
        curveText: curve ? { samples: buffered!.samples, events: buffered!.events } : undefined,
      });
      ctx.afterCommit(async () => {
        await live.publishStatus(ctx.orgId, id, 'completed');
        await live.discard(ctx.orgId, id);
      });
      return batchView(ctx.tx, ctx.orgId, completed);
    },
  }),

  defineOperation({
    name: 'production.roast.abortRoastBatch',
    summary: 'Abandon a live roast batch, with a reason: nothing is consumed and no roasted lot is made.',
    description:
      `For a batch started by mistake, or a roast that was dumped. reason is required (1–${ABORT_REASON_MAX_LENGTH} characters, ` +
      'trimmed). The batch becomes aborted with abortReason and abortedAt; nothing is consumed, no roasted lot is made and no ' +
      'curve is kept. Its live session stops taking posts at once (409 batch_not_live) and ' +
      'its buffer is discarded after the transaction commits; watchers get the status aborted. Only a live batch can be aborted: ' +
      'a completed or aborted one is refused with 409 batch_not_live naming its state.',
    permission: 'production.roast.write',
    feature,
    get: false,
    extension: true,
    input: AbortRoastBatch,
    output: RoastBatchView,
    errors: ['not_found', 'batch_not_live', 'concurrent_update'],
    emits: [roastBatchAborted],
    async handler(ctx, { id, reason }) {
      const batch = (await repo.findBatch(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('roast batch', id);
      if (batch.state === 'aborted') await refuseAborted(ctx, batch, 'aborted');
      if (batch.state !== 'live') {
        throw conflict('batch_not_live', `Roast batch ${batch.batchNumber} is ${batch.state}; only a live batch can be aborted.`, {
          state: batch.state,
          errors: [{ path: 'id', message: `the batch is ${batch.state}` }],
        });
      }
      const live = ctx.services.liveSessions;
      // Posts are refused from here on, also should the discard after the commit never run.
      await live.seal(ctx.orgId, id);
      const aborted = await repo.markAborted(ctx.tx, ctx.orgId, id, reason);
      await ctx.emit('production.roast.batch_aborted', { batch: aborted });
      ctx.afterCommit(async () => {
        await live.publishStatus(ctx.orgId, id, 'aborted');
        await live.discard(ctx.orgId, id);
      });
      return batchView(ctx.tx, ctx.orgId, aborted);
    },
  }),

  defineOperation({
    name: 'production.roast.setRoastReference',
    extension: true,
    summary: 'Choose the curve a batch is roasted against: any completed batch, or (null) the profile’s reference.',
    description:
      'An extension. The live view and the batch page draw the reference batch’s curve behind this one. `referenceBatchId` names a ' +
      'completed batch of the organization (404 naming it when there is none, 409 reference_not_completed when it is live or aborted, ' +
      '400 when it is the batch itself); null goes back to the profile’s reference, its most recent completed batch other than this one. ' +
      'Any batch may have its reference changed, live or done; the answer is the batch.',
    permission: 'production.roast.write',
    feature,
    get: false,
    input: SetRoastReference,
    output: RoastBatchView,
    errors: ['not_found', 'reference_not_completed'],
    async handler(ctx, { id, referenceBatchId }) {
      const batch = (await repo.findBatch(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('roast batch', id);
      if (referenceBatchId !== null) await checkReferenceCurve(ctx, id, referenceBatchId);
      await repo.setReference(ctx.tx, ctx.orgId, id, referenceBatchId);
      return batchView(ctx.tx, ctx.orgId, batch);
    },
  }),

  defineOperation({
    name: 'production.roast.markRoastEvent',
    extension: true,
    summary: 'Mark a roast event (charge, dry end, first crack, drop, …) on a live batch, as a machine that detects it would post it.',
    description:
      'An extension, for machines that do not detect events: the event is appended to the batch’s live session exactly as an event ' +
      'in a bridge’s telemetry post, so watchers receive it as a `roast_event` message and completion derives the metrics from it. `t` ' +
      '(ms since charge) defaults to the time of the latest sample the session holds (0 before any sample), i.e. the roast’s now. A ' +
      'batch that is not live is 409 batch_not_live naming its state; a session that holds the most messages it may is 409 ' +
      'live_session_full. Each call appends one event: a retry without an Idempotency-Key marks it twice (the metrics use the earliest ' +
      'of a type).',
    permission: 'production.roast.write',
    feature,
    get: false,
    input: MarkRoastEvent,
    output: MarkedRoastEvent,
    errors: ['not_found', 'batch_not_live', 'live_session_full'],
    async handler(ctx, { id, type, t }) {
      const batch = (await repo.findBatch(ctx.tx, ctx.orgId, id)) ?? throwNotFound('roast batch', id);
      const notLive = (state: string, detail: string) =>
        conflict('batch_not_live', detail, { state, errors: [{ path: 'id', message: `the batch is ${state}` }] });
      if (batch.state !== 'live') throw notLive(batch.state, `Roast batch ${batch.batchNumber} is ${batch.state}; events are marked only while it roasts.`);
      const live = ctx.services.liveSessions;
      const starting = () => notLive('live', `Roast batch ${batch.batchNumber} is starting and its live session is not open yet; retry shortly.`);
      if (!(await live.get(ctx.orgId, id))) throw starting();
      const at = t ?? (await live.readCurve(ctx.orgId, id))?.samples.at(-1)?.t ?? 0;
      try {
        // A negative seq never meets a bridge's (they count from 0), and differs per mark: the store keeps each as its own post.
        let appended;
        do appended = await live.append(ctx.orgId, id, -consoleMarkSeq(), [], [{ type, t: at }]);
        while (appended.duplicate);
      } catch (error) {
        if (error instanceof SessionFullError) {
          throw conflict('live_session_full', `Roast batch ${batch.batchNumber} has received the most telemetry a live session holds; the event was not stored.`);
        }
        if (error instanceof SessionClosedError) {
          if (error.reason === 'gone') throw starting();
          throw notLive('completing', `Roast batch ${batch.batchNumber} is being completed or aborted; events are marked only while it roasts.`);
        }
        throw error;
      }
      return { batchId: id, type, t: at };
    },
  }),

  defineOperation({
    name: 'production.roast.importLoggerRoast',
    summary: 'Import a roast logger export as a completed batch, booked exactly like a completed live batch.',
    description:
      'Reads Artisan .alog/JSON/CSV, IKAWA, ROEST, Loring and Aillio RoasTime exports, and a Cropster .xls base64-encoded; ' +
      'the batch completes by the same completion path as a live batch: curve, metrics, the importer’s warnings, and with ' +
      'greenLotId the deduction, roasted lot and lineage (without it no stock moves). Metrics follow an Artisan log’s own settings ' +
      '(phase temperatures for unmarked dry end / first crack, AUC begin and base, energy loads); without energy loads in the log, ' +
      'the machine’s burnerRatingKw and fuel with a `burner` channel give energy, else it is null. The batch is dated by the log: ' +
      'startedAt at its charge and completedAt at its drop (else its first and last sample); a log with only a local time (Artisan ' +
      'CSV Date:/Time:, Loring, Cropster) is read in the time zone of the machine’s location, else of the batch’s location, else ' +
      'UTC, and a warning names the zone used; a log without a date is dated as ending at its import. Sample times are rebased on the charge ' +
      'event (without one they stay from the start of recording, marked events are kept and phase metrics are null). Unreadable ' +
      'content is refused with 400 unreadable_roast_log naming the problem. Extensions beyond the specification: greenLotId, ' +
      'chargeWeightKg, dropWeightKg, locationId, profileId. Weights: the request wins. chargeWeightKg and dropWeightKg, when given, ' +
      'are the batch’s weights; otherwise the log’s, kept as weighed to 0.1 g (chargeWeightG, dropWeightG; the kg fields and stock ' +
      'are rounded to the gram); a log that records a different weight is named in warnings. The machine may be inactive (the ' +
      'roast is history); a charge outside its minBatchKg–maxBatchKg is accepted with a warning. The same ' +
      'reference rules as startRoastBatch apply otherwise (404 naming the field, location_archived, lot_quarantined, ' +
      'profile_machine_mismatch, insufficient_stock), and batch numbers are unique (409 duplicate).',
    permission: 'production.roast.write',
    feature,
    get: false,
    input: ImportLoggerRoast,
    output: RoastBatchView,
    errors: [
      'unreadable_roast_log',
      'not_found',
      'duplicate',
      'profile_machine_mismatch',
      'location_archived',
      'lot_quarantined',
      'insufficient_stock',
      'concurrent_update',
    ],
    emits: [roastBatchImported, roastedLotCreated],
    async handler(ctx, input) {
      let imported;
      try {
        imported = await importRoastLogOffThread(input.content);
      } catch (error) {
        if (!(error instanceof ImportError)) throw error;
        throw new ProblemError(400, 'unreadable_roast_log', `The roast log cannot be imported: ${error.message}.`, {
          errors: [{ path: 'content', message: error.message }],
        });
      }
      const warnings = [...imported.warnings];
      const chargeWeightKg = requestOrLog(input.chargeWeightKg, imported.meta.greenWeightKg, 'chargeWeightKg', warnings);
      const dropWeightKg = requestOrLog(input.dropWeightKg, imported.meta.roastedWeightKg, 'dropWeightKg', warnings);
      const { machine, locationId } = await checkReferences(ctx, { ...input, chargeWeightKg: chargeWeightKg && stockKg(chargeWeightKg) }, 'import');
      const outside = machine && chargeWeightKg ? chargeOutsideRange(machine, grams(stockKg(chargeWeightKg))) : null;
      if (outside) warnings.push(`the charge of ${stockKg(chargeWeightKg!)} kg is ${outside} (${machine!.code})`);
      const dates = await roastDates(ctx, imported, machine, locationId, warnings);
      const batch = await repo.insertBatch(ctx.tx, ctx.orgId, ctx.principal.credentialId, {
        batchNumber: input.batchNumber,
        source: 'import',
        machineId: machine?.id ?? null,
        profileId: input.profileId ?? null,
        greenLotId: input.greenLotId ?? null,
        locationId,
        chargeWeightKg: chargeWeightKg ?? null,
        importFormat: imported.format,
        warnings: [],
        startedAt: dates.startedAt,
      });
      const completed = await recordCompletion(ctx, batch, imported.curve, {
        dropWeightKg: dropWeightKg ?? null,
        notes: null,
        warnings,
        roastedAt: batch.startedAt,
        completedAt: dates.completedAt,
        event: 'production.roast.batch_imported',
        metricsOptions: importMetricsOptions(imported.meta.metricsOptions, machine, imported.curve),
        logSettings: imported.meta.metricsOptions,
        logDetails: imported.meta.machine ? { ...imported.meta.details, roasterType: imported.meta.machine } : imported.meta.details,
      });
      return batchView(ctx.tx, ctx.orgId, completed);
    },
  }),

  defineOperation({
    name: 'production.roast.getRoastBatch',
    summary: 'A roast batch, with its metrics, profile comparison, roasted lot and curve summary.',
    description:
      'state (live, completed, aborted: then abortedAt and abortReason), source (live, import), weights, exact weight ' +
      'loss, metrics (everything Artisan computes, each documented with unit and definition in the RoastMetrics schema: BT and ET at ' +
      'charge, turning point, dry end, first/second crack start/end, drop and cool end; MET and its time; drying, Maillard, ' +
      'development and cooling phases with Artisan’s fallbacks for unmarked events; DTR; rate of rise and temperature rise per phase ' +
      'and in total; AUC with its begin event and base, per-phase areas and temperature-time sums; energy and CO2 per batch and per kg ' +
      'of green when the log or the machine states a burner rating and fuel; null while live, when aborted and when completed ' +
      'without telemetry), warnings (how it was recorded: the importer’s remarks, or that no telemetry was recorded), ' +
      'profileComparison (target, actual and difference for charge ' +
      'weight, drop temperature, total time and DTR, when the batch has a profile), its roasted lot, and curve: the stored curve’s ' +
      'sample counts and fullCurveKey, the full-fidelity copy’s key in object storage (getRoastCurveLink downloads it); null when ' +
      'the batch has no stored curve (live, aborted, or completed without telemetry). A missing batch answers 404.',
    permission: 'production.roast.read',
    feature,
    get: true,
    input: ById,
    output: RoastBatchView,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return batchView(ctx.tx, ctx.orgId, (await repo.findBatch(ctx.tx, ctx.orgId, id)) ?? throwNotFound('roast batch', id));
    },
  }),

  defineOperation({
    name: 'production.roast.getRoastCurve',
    summary: 'The batch’s 1 Hz curve and its roast events.',
    description:
      'samples: t in ms since charge, bt and et in °C, further channels. For a completed ' +
      'batch, the downsample stored at completion; for a live batch, the downsample of what has been buffered so far (persisted: ' +
      'false). The full-fidelity copy is in object storage under fullCurveKey; getRoastCurveLink links to it and to Artisan exports. A batch completed without telemetry answers no ' +
      'samples (persisted: true, fullCurveKey null); an aborted batch kept no curve (no samples, persisted: false). A missing ' +
      'batch answers 404.',
    permission: 'production.roast.read',
    feature,
    get: true,
    input: ById,
    output: RoastCurve,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      const batch = (await repo.findBatch(ctx.tx, ctx.orgId, id)) ?? throwNotFound('roast batch', id);
      if (batch.state === 'live') {
        const buffered = await ctx.services.liveSessions.readCurve(ctx.orgId, id);
        const samples = downsampleTo1Hz(buffered?.samples ?? []);
        return {
          batchId: id,
          state: batch.state,
          persisted: false,
          samples,
          events: buffered?.events ?? [],
          sampleCount: samples.length,
          fullSampleCount: buffered?.samples.length ?? 0,
          fullCurveKey: null,
        };
      }
      const stored = batch.state === 'completed' ? await repo.findCurve(ctx.tx, ctx.orgId, id, { withSamples: true }) : undefined;
      if (stored) return { batchId: id, state: batch.state, persisted: true, ...stored };
      // Completed without telemetry (nothing to store), or aborted (the buffer was discarded).
      return {
        batchId: id,
        state: batch.state,
        persisted: batch.state === 'completed',
        samples: [],
        events: [],
        sampleCount: 0,
        fullSampleCount: 0,
        fullCurveKey: null,
      };
    },
  }),

  defineOperation({
    name: 'production.roast.getRoastCurveLink',
    summary: 'A time-limited link, working without an API key, to a completed batch’s full-fidelity curve or its Artisan .alog or CSV export.',
    description:
      'The way to fetch what getRoastCurve only summarizes (an extension). format `full`: the full-fidelity curve as completion stored it, ' +
      'JSON `{ batchId, samples, events, settings? }`, every sample (t ms since charge, bt, et, channels) and event exactly as the machine ' +
      'bridge posted them or the importer read them (settings: an imported log’s own metric settings). `alog`: an Artisan profile Artisan ' +
      'opens (File > Open): °C, times from the start of recording, BT/ET, every extra channel as extra-device curves, the events in ' +
      'Artisan’s timeindex (at their nearest sample; exact times under firstcrack_events), weights [charge, drop, g], the batch number ' +
      'as title, the roast date and time (UTC), and an import’s phases, AUC and energy-load settings. `csv`: Artisan’s CSV layout, ' +
      'tab-separated: a header with the date, unit and event times, then one row per sample (times with their exact fraction, ET, BT, the ' +
      'event marked on its row, every channel). Both exports import back through importLoggerRoast to the same samples and metrics (the ' +
      'CSV carries no weights nor metric settings). A live or imported batch alike, once completed: a live or aborted batch is 409 ' +
      'batch_not_completed (naming its state) and a batch completed without telemetry 409 no_telemetry. `expiresInSeconds`: default ' +
      '900, at most 7 days. Without S3 the link is the service’s own, relative to its address (GET /files/v1/curves/{id}.json, .alog ' +
      'or .csv), signed like report downloads: 403 link_invalid when altered, 410 link_expired after expiry; with S3_BUCKET set it is an ' +
      'S3 presigned URL with the same lifetime. Another organization’s batch is a 404.',
    permission: 'production.roast.read',
    feature,
    get: false,
    extension: true,
    input: GetRoastCurveLink,
    output: RoastCurveLink,
    errors: ['not_found', 'batch_not_completed', 'no_telemetry'],
    async handler(ctx, { id, format, expiresInSeconds }) {
      const batch = (await repo.findBatch(ctx.tx, ctx.orgId, id)) ?? throwNotFound('roast batch', id);
      if (batch.state !== 'completed') {
        throw conflict('batch_not_completed', `Roast batch ${batch.batchNumber} is ${batch.state}; only a completed batch has a stored curve.`, {
          state: batch.state,
          errors: [{ path: 'id', message: `the batch is ${batch.state}` }],
        });
      }
      const stored = await repo.findCurve(ctx.tx, ctx.orgId, id, { withSamples: false });
      if (!stored) throw conflict('no_telemetry', `Roast batch ${batch.batchNumber} was completed without telemetry: it has no curve.`, { errors: [{ path: 'id', message: 'no curve' }] });
      const extension = CURVE_EXTENSIONS[format];
      const key = format === 'full' ? stored.fullCurveKey : await storeExport(ctx, batch, stored.fullCurveKey, format);
      const filename = curveFilename(batch, extension);
      const expiry = linkExpiry(expiresInSeconds);
      const link = await issueFileLink(ctx, curveFiles, { id, extension, key, filename }, expiry);
      return { batchId: id, format, url: link.url, signedBy: link.signedBy, expiresAt: expiry.expiresAt, contentType: curveFiles.files[extension].contentType, filename };
    },
  }),

  defineOperation({
    name: 'production.roast.listRoastBatches',
    summary: 'Roast batches, newest first.',
    description:
      'Ordered by start; an import by the roast time its file records. Filters: state (live, completed, ' +
      'aborted), source, machineId, ' +
      'profileId, greenLotId, locationId, from and to (days the batch started, UTC, inclusive), q (batch number).',
    permission: 'production.roast.read',
    feature,
    get: true,
    input: ListRoastBatches,
    output: pageOut(RoastBatch),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listBatches(ctx.tx, ctx.orgId, filter, page);
    },
  }),
];

/**
 * Renders the batch's Artisan export from its full-fidelity curve and stores it beside it, where its link points
 * (rendered on every request, so an export always follows the current code and batch).
 */
async function storeExport(ctx: OperationContext, batch: repo.RoastBatch, fullKey: string, format: 'alog' | 'csv'): Promise<string> {
  const body = await ctx.services.blobs.get(fullKey);
  if (!body) throw new Error(`The full curve of roast batch ${batch.id} is missing from object storage (${fullKey}).`);
  const full = JSON.parse(body.toString('utf8')) as FullCurve;
  const machine = batch.machineId ? await findMachine(ctx.tx, ctx.orgId, batch.machineId) : undefined;
  const roast = {
    curve: full,
    settings: full.settings,
    details: full.details,
    title: batch.batchNumber,
    startedAt: batch.startedAt,
    timeZone: (await roastTimeZone(ctx, machine, batch.locationId)).name,
    chargeWeightG: batch.chargeWeightG,
    dropWeightG: batch.dropWeightG,
  };
  const extension = CURVE_EXTENSIONS[format];
  const key = curveFileKey(ctx.orgId, batch.id, extension);
  await ctx.services.blobs.put(key, format === 'alog' ? toArtisanAlog(roast) : toArtisanCsv(roast), curveFiles.files[extension].contentType);
  return key;
}

/** A batch as answered: with its profile comparison, roasted lot and stored curve summary. */
async function batchView(q: Queryable, orgId: string, batch: repo.RoastBatch) {
  const profile = batch.profileId ? await findProfile(q, orgId, batch.profileId) : undefined;
  const roastedLot = batch.state === 'completed' ? await findBatchOutput(q, orgId, batch.id) : undefined;
  const curve = batch.state === 'completed' ? await repo.findCurve(q, orgId, batch.id, { withSamples: false }) : undefined;
  return {
    ...batch,
    referenceBatchId: await repo.referenceOf(q, orgId, batch.id),
    profileComparison: profile ? compareWithProfile(profile, batch) : null,
    roastedLot: roastedLot ?? null,
    curve: curve ? { sampleCount: curve.sampleCount, fullSampleCount: curve.fullSampleCount, fullCurveKey: curve.fullCurveKey } : null,
  };
}

interface BatchReferences {
  machineId?: string;
  profileId?: string;
  greenLotId?: string;
  locationId?: string;
  chargeWeightKg?: string;
}

/**
 * The rules a batch's references must meet, for a live start and an import alike, except that an
 * imported roast is history: its machine may since have been deactivated and its charge is not held to
 * today's batch range. The green lot is locked until commit, so the stock decided on stays true.
 */
async function checkReferences(ctx: OperationContext, refs: BatchReferences, source: 'live' | 'import') {
  let machine: Machine | undefined;
  if (refs.machineId !== undefined) {
    machine = (await findMachine(ctx.tx, ctx.orgId, refs.machineId)) ?? throwRefNotFound('machine', refs.machineId, 'machineId');
    if (source === 'live') {
      if (!machine.isActive) {
        throw conflict('machine_inactive', `Machine ${machine.code} is inactive.`, { errors: [{ path: 'machineId', message: 'inactive' }] });
      }
      const outside = chargeOutsideRange(machine, grams(refs.chargeWeightKg!));
      if (outside) throw invalidInput([{ path: 'chargeWeightKg', message: outside }], `The charge does not fit machine ${machine.code}.`);
    }
  }
  if (refs.profileId !== undefined) {
    const profile = (await findProfile(ctx.tx, ctx.orgId, refs.profileId)) ?? throwRefNotFound('profile', refs.profileId, 'profileId');
    if (profile.machineId !== null && machine !== undefined && profile.machineId !== machine.id) {
      throw conflict('profile_machine_mismatch', `Profile ${profile.code} is written for another machine than ${machine.code}.`, {
        errors: [{ path: 'profileId', message: `belongs to machine ${profile.machineId}` }],
      });
    }
  }
  if (refs.locationId !== undefined) {
    const location = (await findLocation(ctx.tx, ctx.orgId, refs.locationId)) ?? throwRefNotFound('location', refs.locationId, 'locationId');
    if (location.archivedAt) {
      throw conflict('location_archived', `Location ${location.code} is archived.`, { errors: [{ path: 'locationId', message: 'archived' }] });
    }
  }
  if (refs.greenLotId !== undefined) {
    await green.checkRoastCharge(ctx.tx, ctx.orgId, refs.greenLotId, refs.chargeWeightKg);
    if (refs.chargeWeightKg === undefined) {
      throw invalidInput([{ path: 'chargeWeightKg', message: 'required with greenLotId when the file records no green weight' }]);
    }
  }
  return { machine, locationId: refs.locationId ?? machine?.locationId ?? null };
}

/**
 * A weight for an imported roast, by one rule: the request wins. A weight given in the request is the batch's; the
 * log's (kept to 0.1 g) is used when the request gives none. A log that records a different weight is named in the
 * warnings, so neither value is ever replaced silently.
 */
function requestOrLog(inputKg: string | undefined, logKg: number | undefined, field: string, warnings: string[]): string | undefined {
  const fromLog = logKg !== undefined && Number.isFinite(logKg) && logKg > 0 ? asWeighed(logKg) : undefined;
  if (fromLog !== undefined && tenthGrams(fromLog) <= 0n) return inputKg;
  if (inputKg === undefined) return fromLog;
  if (fromLog !== undefined && tenthGrams(inputKg) !== tenthGrams(fromLog)) {
    warnings.push(`${field}: the request's ${inputKg} kg is used; the log records ${weighedGrams(fromLog)} g`);
  }
  return inputKg;
}

/**
 * When an imported roast started and ended: the log's charge and drop (else its first and last sample) on its own
 * clock. A log with an instant (Artisan's roastepoch, RoasTime's dateTime) is exact; a log with only a local wall clock
 * (Artisan CSV Date:/Time:, Loring, Cropster) is read in the time zone of the machine's location, else of the
 * batch's location, else UTC, and a warning says which. A log without a date ends at its import.
 */
async function roastDates(
  ctx: OperationContext,
  imported: ImportedRoast,
  machine: Machine | undefined,
  locationId: string | null,
  warnings: string[],
): Promise<{ startedAt: string; completedAt: string }> {
  const { roastedAt, localRoastedAt } = imported.meta;
  let origin: number;
  if (roastedAt !== undefined) origin = Date.parse(roastedAt);
  else if (localRoastedAt !== undefined) {
    const zone = await roastTimeZone(ctx, machine, locationId);
    origin = instantOfWallClock(localRoastedAt, zone.name);
    warnings.push(`the log's roast time ${localRoastedAt.replace('T', ' ')} has no time zone: read in ${zone.name}, ${zone.source}`);
  } else {
    // No date at all: the roast is taken to have ended at its import, so it keeps its duration.
    origin = Date.now() - imported.span.endMs;
    warnings.push('the log records no date: the roast is dated as ending at its import');
  }
  const at = (ms: number) => new Date(Math.round(origin + ms)).toISOString();
  return { startedAt: at(imported.span.startMs), completedAt: at(imported.span.endMs) };
}

async function roastTimeZone(ctx: OperationContext, machine: Machine | undefined, locationId: string | null) {
  const machineLocation = machine?.locationId ? await findLocation(ctx.tx, ctx.orgId, machine.locationId) : undefined;
  if (machineLocation?.timezone) return { name: machineLocation.timezone, source: `the time zone of machine ${machine!.code}'s location ${machineLocation.code}` };
  const location = locationId && locationId !== machine?.locationId ? await findLocation(ctx.tx, ctx.orgId, locationId) : undefined;
  if (location?.timezone) return { name: location.timezone, source: `the time zone of the batch's location ${location.code}` };
  const { timeZone: organizationZone } = await findOrganizationLetterhead(ctx.tx, ctx.orgId);
  return organizationZone === 'UTC'
    ? { name: 'UTC', source: 'as neither the machine’s location, the batch’s location nor the organization has a time zone' }
    : { name: organizationZone, source: 'the organization’s time zone (neither the machine’s location nor the batch’s location has one)' };
}

/**
 * Refuses an operation on an aborted batch (409 batch_not_live, state aborted). The abort has committed, so a
 * buffer still there (the discard after that commit never ran) can safely go now, whatever this transaction does.
 */
async function refuseAborted(ctx: OperationContext, batch: repo.RoastBatch, tried: 'completed' | 'aborted'): Promise<never> {
  await ctx.services.liveSessions.discard(ctx.orgId, batch.id);
  throw conflict(
    'batch_not_live',
    `Roast batch ${batch.batchNumber} was aborted at ${batch.abortedAt} (${batch.abortReason}); it cannot be ${tried}${tried === 'aborted' ? ' again' : ''}.`,
    { state: batch.state, errors: [{ path: 'id', message: 'the batch is aborted' }] },
  );
}

let lastMarkSeq = 0;
/**
 * A positive number above every earlier one in this process: the time in microseconds with random low digits, so
 * two processes marking in the same millisecond differ too (were they ever to meet, the mark is appended again).
 */
function consoleMarkSeq(): number {
  lastMarkSeq = Math.max(lastMarkSeq + 1, Date.now() * 1000 + Math.floor(Math.random() * 1000));
  return lastMarkSeq;
}

/** A reference curve must be another completed batch of the organization. */
async function checkReferenceCurve(ctx: OperationContext, batchId: string | null, referenceBatchId: string): Promise<void> {
  if (referenceBatchId === batchId) throw invalidInput([{ path: 'referenceBatchId', message: 'a batch cannot be its own reference' }]);
  const reference = (await repo.findBatch(ctx.tx, ctx.orgId, referenceBatchId)) ?? throwRefNotFound('roast batch', referenceBatchId, 'referenceBatchId');
  if (reference.state !== 'completed') {
    throw conflict('reference_not_completed', `Roast batch ${reference.batchNumber} is ${reference.state}; only a completed batch has a curve to follow.`, {
      state: reference.state,
      errors: [{ path: 'referenceBatchId', message: `the batch is ${reference.state}` }],
    });
  }
}

function throwRefNotFound(what: string, id: string, path: string): never {
  throw notFound(what, id, path);
}


/**
 * A live batch's energy inputs: the machine's burner rating and fuel (extension fields) with the curve's `burner`
 * channel (%). Missing any of them leaves energy metrics null.
 */
async function machineEnergy(ctx: OperationContext, machineId: string, curve: Curve): Promise<MetricsOptions | undefined> {
  const machine = await findMachine(ctx.tx, ctx.orgId, machineId);
  return energyOptions(machine, curve);
}

function energyOptions(machine: Machine | undefined, curve: Curve): MetricsOptions | undefined {
  if (!machine?.burnerRatingKw || !machine.fuel) return undefined;
  return { energy: { ratingKw: Number(machine.burnerRatingKw), fuel: machine.fuel, burner: burnerFromChannel(curve) } };
}

/** An imported log's own settings win (Artisan's phases, AUC and energy loads); else the machine's energy data. */
function importMetricsOptions(fromLog: MetricsOptions | undefined, machine: Machine | undefined, curve: Curve): MetricsOptions | undefined {
  if (fromLog?.energy) return fromLog;
  const energy = energyOptions(machine, curve)?.energy;
  return energy ? { ...fromLog, energy } : fromLog;
}
