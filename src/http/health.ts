import { z } from 'zod';
import { defineSurface } from './surface.js';

/**
 * Liveness and readiness for load balancers and orchestrators: no credential, not counted, nothing but
 * the process (/healthz) and its database (/readyz).
 */

const Live = z.strictObject({ status: z.literal('ok') });
const Ready = z.strictObject({ status: z.enum(['ready', 'unavailable']), database: z.enum(['ok', 'unreachable']) });

export const healthSurfaces = [
  defineSurface({
    name: 'health.live',
    method: 'GET',
    path: '/healthz',
    tag: 'health',
    summary: 'Liveness: the process answers HTTP.',
    description: 'No credential. Answers 200 as long as the process runs; it does not touch the database.',
    credentials: ['none'],
    rate: [],
    answers: { 200: { description: 'The process is up.', schema: Live } },
    errors: [],
    examples: { answers: { 200: { status: 'ok' } } },
    handler: async (_request, reply) => reply.send({ status: 'ok' }),
  }),
  defineSurface({
    name: 'health.ready',
    method: 'GET',
    path: '/readyz',
    tag: 'health',
    summary: 'Readiness: the process can reach its database and take requests.',
    description: 'No credential. Runs one query against the database; a load balancer sends traffic only while this answers 200.',
    credentials: ['none'],
    rate: [],
    answers: {
      200: { description: 'Ready to take requests.', schema: Ready },
      503: { description: 'The database does not answer; send no traffic here.', schema: Ready },
    },
    errors: [],
    examples: { answers: { 200: { status: 'ready', database: 'ok' }, 503: { status: 'unavailable', database: 'unreachable' } } },
    handler: async (_request, reply, { deps }) => {
      try {
        await deps.db.query('select 1');
        return reply.send({ status: 'ready', database: 'ok' });
      } catch {
        return reply.code(503).send({ status: 'unavailable', database: 'unreachable' });
      }
    },
  }),
];
