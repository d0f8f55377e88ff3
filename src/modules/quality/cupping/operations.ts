import { defineOperation } from '../../../rpc/define.js';
import { conflict, throwNotFound } from '../../../rpc/errors.js';
import { pageOut } from '../../../rpc/outputs.js';
import { newId } from '../../../lib/ids.js';
import { blindCodes } from './blind-codes.js';
import { resolveIdentities } from './references.js';
import * as repo from './repository.js';
import {
  ATTRIBUTES,
  CreateCuppingSession,
  CreatedCuppingSession,
  CuppingSession,
  CuppingTable,
  FinalizeCuppingSession,
  FinalizedCuppingSession,
  GetCuppingTable,
  ListCuppingSessions,
  SubmitCuppingScore,
  SubmittedCuppingScore,
} from './schemas.js';
import { scoreSubmitted, sessionCreated, sessionFinalized } from './events.js';

/**
 * New sessions are `cup_…`: `cs_` is the cafe site's. Sessions created while both used `cs_` keep their ids
 * (ids are opaque and looked up in this module's table only): webhook payloads, the event feed and frozen
 * certificates already name them, and their blind codes were dealt from them.
 */
const CUPPING_SESSION_PREFIX = 'cup';

const feature = 'quality' as const;

/** Quarter points as an exact 2-decimal string (the scores are validated to be multiples of 0.25). */
const quarters = (value: number) => Math.round(value * 4);
const fromQuarters = (q: number) => (q / 4).toFixed(2);

/** Who a form belongs to: the cupper's name, case- and space-folded, or the credential when no name is given. */
const cupperKey = (cupperName: string | undefined, credentialId: string) =>
  cupperName === undefined ? `credential:${credentialId}` : `name:${cupperName.trim().replace(/\s+/g, ' ').toLowerCase()}`;

const finalizedConflict = (session: { id: string; sessionNumber: string; finalizedAt: string | null }, path: string) =>
  conflict('cupping_session_finalized', `Cupping session ${session.sessionNumber} was finalized at ${session.finalizedAt}; its scores and results are closed.`, {
    errors: [{ path, message: 'the session is finalized' }],
  });

export const cuppingOperations = [
  defineOperation({
    name: 'quality.cupping.createCuppingSession',
    summary: 'Set up a cupping session: its coffees, each with a blind code from a shuffle seeded by the session id.',
    description:
      'Each of `samples` (1–200) is `{ kind, id }` naming a `green_lot`, `sample` (sourcing), `roast_batch` or `roasted_lot` of ' +
      'this organization, or `{ kind: "outside", name }` for a coffee that is not one of its records; a record of another ' +
      'organization (or none) is 404 naming `samples[i].id`, the same coffee twice is 400. Every coffee gets a distinct three-symbol blind code from an ' +
      'alphabet without 0/O and 1/I/L, drawn and dealt by a shuffle seeded by the session id: the same session always yields the same ' +
      'codes, another session another order. `mode` defaults to `open`. `sessionNumber` is unique per organization (409 ' +
      '`duplicate`). The answer is the organizer’s key: every coffee with its identity and code, in the order given; the ' +
      '`quality.cupping.session_created` event carries the session only.',
    permission: 'quality.cupping.write',
    feature,
    get: false,
    input: CreateCuppingSession,
    output: CreatedCuppingSession,
    errors: ['not_found', 'duplicate'],
    emits: [sessionCreated],
    async handler(ctx, input) {
      const identities = await resolveIdentities(ctx.tx, ctx.orgId, input.samples);
      const id = newId(CUPPING_SESSION_PREFIX);
      const codes = blindCodes(id, input.samples.length);
      const coffees = input.samples.map((s, i) => ({ position: i + 1, blindCode: codes[i], kind: s.kind, ...identities[i] }));
      const { session, sampleIds } = await repo.insertSession(
        ctx.tx,
        ctx.orgId,
        { id, sessionNumber: input.sessionNumber, name: input.name, mode: input.mode, scheduledAt: input.scheduledAt, createdBy: ctx.principal.credentialId },
        coffees,
      );
      await ctx.emit('quality.cupping.session_created', { session });
      return {
        session,
        samples: coffees.map((c, i) => ({
          sessionSampleId: sampleIds[i],
          blindCode: c.blindCode,
          identity: { position: c.position, kind: c.kind, id: c.refId, code: c.refCode, name: c.refName },
        })),
      };
    },
  }),

  defineOperation({
    name: 'quality.cupping.submitCuppingScore',
    summary: 'Submit one cupper’s SCA form for one coffee of an open session; a second form by the same cupper replaces the first.',
    description:
      '`scores` holds the ten attributes of the SCA cupping form: fragranceAroma, flavor, aftertaste, acidity, body, balance, ' +
      'uniformity, cleanCup, sweetness, overall. uniformity, cleanCup and sweetness are judged per cup: 2 points for each of the 5 ' +
      'cups that passes (0, 2, 4, 6, 8 or 10; 9.25 no); the others lie between 6.00 and 10.00 in quarter points (6.25 yes, 6.3 no; ' +
      '10.25 no); else 400 naming `scores.<attribute>`. totalScore is their sum; finalScore = totalScore − defectsPenalty, the SCA ' +
      'penalty cups × intensity (2 a taint, 4 a fault): `defectsPenalty` one of 0, 2, 4, 6, 8, 10, 12, 16, 20 (default 0), or the ' +
      'extension `defects: { cups: 0–5, intensity: 2 | 4 }`, not both. The cupper is `cupperName` (compared case- and ' +
      'space-insensitively) or, without it, the calling credential: their second form for the same coffee replaces the first ' +
      '(`replaced: true`, `revision` counts up). A finalized session is 409 `cupping_session_finalized`. A score submitted while ' +
      'the session is being finalized either counts in the published results or is refused with that 409, never lost.',
    permission: 'quality.cupping.write',
    feature,
    get: false,
    input: SubmitCuppingScore,
    output: SubmittedCuppingScore,
    errors: ['not_found', 'cupping_session_finalized'],
    emits: [scoreSubmitted],
    async handler(ctx, input) {
      const coffee = (await repo.lockCoffeeForScoring(ctx.tx, ctx.orgId, input.sessionSampleId)) ?? throwNotFound('cupping session sample', input.sessionSampleId, 'sessionSampleId');
      if (coffee.status === 'finalized') {
        const session = (await repo.findSession(ctx.tx, ctx.orgId, coffee.sessionId))!;
        throw finalizedConflict(session, 'sessionSampleId');
      }
      const total = ATTRIBUTES.reduce((sum, [attribute]) => sum + quarters(input.scores[attribute]), 0);
      const penalty = quarters(input.defectsPenalty);
      const score = await repo.upsertScore(ctx.tx, ctx.orgId, {
        sessionId: coffee.sessionId,
        sessionSampleId: input.sessionSampleId,
        blindCode: coffee.blindCode,
        cupperKey: cupperKey(input.cupperName, ctx.principal.credentialId),
        cupperName: input.cupperName?.trim() ?? null,
        scores: input.scores,
        totalScore: fromQuarters(total),
        defectsPenalty: fromQuarters(penalty),
        finalScore: fromQuarters(total - penalty),
        descriptors: input.descriptors,
        notes: input.notes ?? null,
        credentialId: ctx.principal.credentialId,
      });
      const replaced = score.revision > 1;
      await ctx.emit('quality.cupping.score_submitted', { score, replaced });
      return { ...score, replaced };
    },
  }),

  defineOperation({
    name: 'quality.cupping.getCuppingTable',
    summary: 'The session’s table: each coffee by blind code with its scores and, once finalized, its result and identity.',
    description:
      'Coffees in blind-code order. In a `blind` or `double_blind` session that is not finalized, the identity of every coffee ' +
      '(kind, record id, code, name, the order it was given in) is left out of the answer (`identity: null`, `identitiesHidden: true`). ' +
      'In a `double_blind` session that is not finalized, other cuppers’ scores are left out too (`otherCuppersHidden: true`): the ' +
      'answer holds only the forms of the cupper named by `cupperName` (an extension field; without it, the calling credential’s ' +
      'unnamed forms); `scoreCount` still says how many cuppers have scored each coffee. Once finalized everything is shown, with ' +
      'each coffee’s result.',
    permission: 'quality.cupping.read',
    feature,
    get: false,
    input: GetCuppingTable,
    output: CuppingTable,
    errors: ['not_found'],
    async handler(ctx, input) {
      const session = (await repo.findSession(ctx.tx, ctx.orgId, input.sessionId)) ?? throwNotFound('cupping session', input.sessionId, 'sessionId');
      const finalized = session.status === 'finalized';
      const identitiesHidden = !finalized && session.mode !== 'open';
      const otherCuppersHidden = !finalized && session.mode === 'double_blind';
      const coffees = await repo.listCoffees(ctx.tx, ctx.orgId, session.id, finalized);
      const scores = await repo.listScores(ctx.tx, ctx.orgId, session.id, otherCuppersHidden ? cupperKey(input.cupperName, ctx.principal.credentialId) : undefined);
      return {
        session,
        identitiesHidden,
        otherCuppersHidden,
        coffees: coffees.map((c) => ({
          sessionSampleId: c.sessionSampleId,
          blindCode: c.blindCode,
          identity: identitiesHidden ? null : c.identity,
          scoreCount: c.scoreCount,
          scores: scores.filter((s) => s.sessionSampleId === c.sessionSampleId),
          result: c.result,
        })),
      };
    },
  }),

  defineOperation({
    name: 'quality.cupping.finalizeCuppingSession',
    summary: 'Close the session: aggregate each coffee’s scores, publish the results and reveal the blind identities.',
    description:
      'Per coffee, over the final scores of every cupper who scored it: `meanScore`, `stddevScore` (sample standard deviation; null ' +
      'under two cuppers), `minScore`, `maxScore` (2 decimals, half away from zero), `cupperCount`, the mean of each attribute, and ' +
      'the five descriptors named by the most cuppers (case-folded, each cupper counted once; ties alphabetical). A coffee nobody ' +
      'scored is published with cupperCount 0 and null figures. The session becomes `finalized` (closed: no more scores, 409 ' +
      '`cupping_session_finalized`), identities are revealed in getCuppingTable, and the published mean shows wherever the ' +
      'record is shown. A session without any score is 409 `cupping_session_unscored`. Finalizing again is 409 `cupping_session_finalized`. Scores in flight are waited for: each counts or is refused.',
    permission: 'quality.cupping.write',
    feature,
    get: false,
    input: FinalizeCuppingSession,
    output: FinalizedCuppingSession,
    errors: ['not_found', 'cupping_session_finalized', 'cupping_session_unscored'],
    emits: [sessionFinalized],
    async handler(ctx, input) {
      const current = (await repo.findSession(ctx.tx, ctx.orgId, input.sessionId, { forUpdate: true })) ?? throwNotFound('cupping session', input.sessionId, 'sessionId');
      if (current.status === 'finalized') throw finalizedConflict(current, 'sessionId');
      // Nothing to publish: a session closed without a single form would reveal identities and end with no result.
      if (current.scoreCount === 0) {
        throw conflict('cupping_session_unscored', `Cupping session ${current.sessionNumber} has no score yet; score at least one coffee before finalizing.`, {
          errors: [{ path: 'sessionId', message: 'no score submitted' }],
        });
      }
      // Under the session's lock no score can arrive, so the counts read with it still hold.
      const { session, coffees: results } = await repo.finalizeSession(ctx.tx, ctx.orgId, current, ctx.principal.credentialId);
      const coffees = results.map((c) => ({
        sessionSampleId: c.sessionSampleId,
        blindCode: c.blindCode,
        identity: c.identity,
        result: c.result!,
      }));
      const answer = { session, coffees };
      await ctx.emit('quality.cupping.finalized', answer);
      return answer;
    },
  }),

  defineOperation({
    name: 'quality.cupping.listCuppingSessions',
    summary: 'Cupping sessions, newest first.',
    description:
      'Filters: `status` (open, finalized), `mode`, `scheduledFrom` (inclusive) and `scheduledTo` (exclusive) on scheduledAt, ' +
      '`q` (case-insensitive search in session number and name). Sessions only: their coffees are read with getCuppingTable.',
    permission: 'quality.cupping.read',
    feature,
    get: true,
    input: ListCuppingSessions,
    output: pageOut(CuppingSession),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listSessions(ctx.tx, ctx.orgId, filter, page);
    },
  }),
];

