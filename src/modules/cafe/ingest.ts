import { z } from 'zod';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';
import { coalesce } from '../../lib/coalesce.js';
import { defineSurface } from '../../http/surface.js';
import { ProblemError, conflict, invalidInput, notFound } from '../../rpc/errors.js';
import { fieldErrors, id, unstorableText } from '../../rpc/schemas.js';
import type { LiveBarStore, LiveShot } from './live-bar.js';
import * as repo from './repository.js';
import { MAX_SHOTS_PER_POST, ShotsPost } from './schemas.js';
import { judgeShot } from './targets.js';

/**
 * The shot channel (an extension: the specification names no shot-recording operation): an espresso machine
 * posts the shots it pulled to POST /ingest/v1/cafe/machines/{machineId}/shots with its bar machine token
 * (cafe.issueBarMachineToken). Its surface declares its credential, its budget (`cafe_ingest`) and the cafe
 * module, which the one guard chain checks, like roast telemetry's; a post
 * is stored all or nothing (the new shots and their rollups together, in one statement that may carry other
 * posts arriving at the same time) and answered after its commit, once the site's live session (all getLiveBar
 * reads) has been sent the new shots.
 */

const MACHINE_CACHE_MS = 60_000;

/** At most this many posts are written in one statement (each up to MAX_SHOTS_PER_POST shots). */
const MAX_POSTS_PER_GROUP = 64;

type WriteOutcome = { stored: repo.JudgedShot[] } | { error: unknown };

/** At most this many field errors are listed for one refused post. */
const MAX_LISTED_ERRORS = 50;

export interface ShotWriterDeps {
  db: Database;
  liveBar: LiveBarStore;
}

const machineIdSchema = id('machineId');

declare module '../../http/surface.js' {
  interface SurfaceDeps {
    /** The shot channel's machine cache and group commit (one per app). */
    shotWriter: ShotWriter;
  }
}

export type ShotWriter = ReturnType<typeof shotWriter>;

/** What posting shots keeps between requests: the machines it has looked up, and each organization's group commit. */
export function shotWriter(deps: ShotWriterDeps) {
  /**
   * A bar machine and its site's shot target, remembered for MACHINE_CACHE_MS: no operation changes a bar
   * machine, its site or the target once created, so the hot path then costs one statement. A machine
   * unknown here is not remembered.
   */
  const machines = new Map<string, { found: NonNullable<Awaited<ReturnType<typeof repo.machineForIngest>>>; until: number }>();
  async function machineOf(orgId: string, machineId: string) {
    const key = `${orgId}:${machineId}`;
    const now = Date.now();
    const cached = machines.get(key);
    if (cached && cached.until > now) return cached.found;
    const found = await deps.db.transaction((tx) => repo.machineForIngest(tx, orgId, machineId), { orgId, readOnly: true });
    if (found) {
      if (machines.size >= 10_000) machines.delete(machines.keys().next().value!);
      machines.set(key, { found, until: now + MACHINE_CACHE_MS });
    }
    return found;
  }

  /**
   * A group's new shots, to their sites' live sessions: one store call per site, issued at once (Redis runs
   * one connection's commands in order, and memory takes them synchronously), so a getLiveBar this process
   * answers after a post's answer sees its shots; the posts do not wait for the store's acknowledgement. The
   * session is a view of what the database holds: if Redis fails to take them, the shots stay stored and the
   * failure is logged.
   */
  let log: FastifyBaseLogger | undefined;
  function showLive(orgId: string, posts: repo.ShotsToStore[], stored: repo.JudgedShot[][]) {
    const bySite = new Map<string, LiveShot[]>();
    posts.forEach(({ site, machineId }, i) => {
      if (stored[i].length === 0) return;
      const shots = bySite.get(site.id) ?? [];
      for (const s of stored[i]) {
        const { shotId, group, durationS, doseG, yieldG, outsideTarget, channeling } = s;
        shots.push({ shotId, machineId, group, startedAt: Date.parse(s.startedAt), durationS, doseG, yieldG, outsideTarget, channeling });
      }
      bySite.set(site.id, shots);
    });
    for (const [siteId, shots] of bySite) {
      deps.liveBar.record(orgId, siteId, shots).catch((error: unknown) => log?.error({ err: error, siteId }, 'live bar write failed; the shots are stored'));
    }
  }

  /**
   * Group commit per organization (see coalesce): the posts that arrive while the organization's previous
   * group is being written are written together, in one statement (insertShots) and so one commit, which each
   * post waits for before it is answered. That statement is all or nothing; when it fails, each of its posts
   * is written again on its own, so a post's outcome is its own. A post's counts are its own either way: a
   * shotId that two posts of a group share is stored once, for the first of them. A post's new shots go to the
   * live session after its commit (showLive), before it is answered.
   */
  // One statement, atomic by itself, so it runs as autocommit (the database's `readOnly` path): no BEGIN/COMMIT round trips.
  const write = async (orgId: string, posts: repo.ShotsToStore[]): Promise<WriteOutcome[]> => {
    const stored = await deps.db.transaction((tx) => repo.insertShots(tx, orgId, posts), { orgId, readOnly: true });
    showLive(orgId, posts, stored);
    return stored.map((shots) => ({ stored: shots }));
  };
  const writers = new Map<string, (post: repo.ShotsToStore) => Promise<WriteOutcome>>();
  function writerOf(orgId: string) {
    let writer = writers.get(orgId);
    if (!writer) {
      writer = coalesce<repo.ShotsToStore, WriteOutcome>(async (posts) => {
        try {
          return await write(orgId, posts);
        } catch (error) {
          if (posts.length === 1) return [{ error }];
          return Promise.all(posts.map((post) => write(orgId, [post]).then(([outcome]) => outcome, (error: unknown) => ({ error }))));
        }
      }, MAX_POSTS_PER_GROUP);
      // Forgetting an organization's writer loses nothing: a group it is writing still completes.
      if (writers.size >= 10_000) writers.delete(writers.keys().next().value!);
      writers.set(orgId, writer);
    }
    return writer;
  }

  return {
    machineOf,
    /** Stores the post in its organization's next group commit; resolves once committed and shown live. */
    write(orgId: string, post: repo.ShotsToStore, logger: FastifyBaseLogger): Promise<WriteOutcome> {
      log ??= logger;
      return writerOf(orgId)(post);
    },
  };
}

const Accepted = z.strictObject({ accepted: z.number().int().min(0), duplicates: z.number().int().min(0) });

export const shotIngestSurface = defineSurface({
  name: 'cafe.postShots',
  method: 'POST',
  path: '/ingest/v1/cafe/machines/:machineId/shots',
  tag: 'cafe',
  summary: 'Post the shots an espresso machine pulled (an extension: the specification names no shot-recording operation).',
  description:
    'Only with the bar machine token of this machine (cafe.issueBarMachineToken); another machine’s token is 403 `wrong_machine`. ' +
    `Up to ${MAX_SHOTS_PER_POST} shots per post: \`shotId\` (the machine’s own id), \`group\` (1-based group head), \`startedAt\` ` +
    '(RFC 3339), `durationS`, `doseG`, `yieldG`, optional `pressureBar`, `temperatureC`, `flow` series. A shotId the machine posted ' +
    'before is counted in `duplicates` and stores nothing, so resending is harmless. One bad shot (a group the machine does not ' +
    'have, a negative duration) refuses the whole post with 400 naming it. Each stored shot is judged against the site’s target, ' +
    'added to the hourly rollup of its site, machine and group head in the same transaction, and then to the site’s live session.',
  credentials: ['machine_bridge'],
  rate: [{ budget: 'cafe_ingest', per: 'credential' }],
  grant: { feature: 'cafe' },
  params: z.strictObject({ machineId: z.string().describe('The bar machine (`bm_…`).') }),
  body: { contentType: 'application/json', schema: ShotsPost, required: true },
  answers: { 202: { description: 'Stored: `accepted` new shots, `duplicates` already stored.', schema: Accepted } },
  errors: ['invalid_input', 'wrong_machine', 'not_found', 'not_an_espresso_machine'],
  examples: {
    params: { machineId: 'bm_01jq3m2c4e6g8j0k2m4p6r8t0v' },
    request: {
      shots: [
        { shotId: 'A-1042', group: 2, startedAt: '2026-11-25T08:14:03Z', durationS: 27.4, doseG: 18.1, yieldG: 38.2 },
        { shotId: 'A-1043', group: 1, startedAt: '2026-11-25T08:14:41Z', durationS: 31.9, doseG: 18.0, yieldG: 36.5, pressureBar: [2.1, 8.8, 9.1, 9.0, 8.6], temperatureC: [93.4, 93.2, 93.1, 93.1, 93.0] },
      ],
    },
    answers: { 202: { accepted: 2, duplicates: 0 } },
  },
  async handler(request, reply, { deps }) {
    const principal = request.principal!;
    const { machineId } = request.params as { machineId: string };
    if (principal.machineId !== machineId) {
      throw new ProblemError(403, 'wrong_machine', `This token belongs to another machine than ${machineId}; a machine posts only its own shots.`);
    }
    if (!machineIdSchema.safeParse(machineId).success) throw notFound('bar machine', machineId, 'machineId');
    // Text the database cannot store (a NUL, a lone surrogate) is refused like any invalid field, as on /rpc/v1.
    const parsed = ShotsPost.safeParse(request.body);
    const errors = [...unstorableText(request.body), ...(parsed.success ? [] : fieldErrors(parsed.error))];
    if (!parsed.success || errors.length > 0) throw invalidInput(errors.slice(0, MAX_LISTED_ERRORS), 'The post is not valid; none of its shots was stored.');
    const { shots } = parsed.data;

    const found = await deps.shotWriter.machineOf(principal.orgId, machineId);
    // A roasting machine's bridge token names a machine that is not bar equipment: unknown here.
    if (!found) throw notFound('bar machine', machineId, 'machineId');
    const { machine, shotTarget } = found;
    if (machine.kind !== 'espresso_machine') {
      throw conflict('not_an_espresso_machine', `Bar machine ${machineId} is a ${machine.kind}; only espresso machines post shots.`);
    }
    const badGroups = shots.flatMap((shot, i) =>
      shot.group > machine.groupCount ? [{ path: `shots[${i}].group`, message: `this machine has ${machine.groupCount} group head(s)` }] : [],
    );
    if (badGroups.length) throw invalidInput(badGroups.slice(0, MAX_LISTED_ERRORS), 'The post is not valid; none of its shots was stored.');
    const judged = shots.map((shot) => ({ ...shot, ...judgeShot(shotTarget, shot) }));
    const outcome = await deps.shotWriter.write(principal.orgId, { site: { id: machine.siteId, timezone: found.timezone }, machineId, shots: judged }, request.log);
    if ('error' in outcome) throw outcome.error;
    return reply.code(202).send({ accepted: outcome.stored.length, duplicates: shots.length - outcome.stored.length });
  },
});
