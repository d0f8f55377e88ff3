import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.js';

/**
 * Liveness and readiness for load balancers and orchestrators: no credential, not counted, nothing but
 * the process (/healthz) and its database (/readyz).
 */
export function healthRoutes(db: Database) {
  return (app: FastifyInstance) => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      try {
        await db.query('select 1');
        return { status: 'ready', database: 'ok' };
      } catch {
        return reply.code(503).send({ status: 'unavailable', database: 'unreachable' });
      }
    });
  };
}

/** /healthz and /readyz in the OpenAPI document. */
export function healthOpenApiPaths(): Record<string, unknown> {
  const tags = ['health'];
  const answer = (description: string, example: Record<string, string>) => ({
    description,
    content: {
      'application/json': {
        schema: { type: 'object', required: Object.keys(example), properties: Object.fromEntries(Object.keys(example).map((k) => [k, { type: 'string' }])) },
        example,
      },
    },
  });
  return {
    '/healthz': {
      get: {
        operationId: 'health.live',
        tags,
        summary: 'Liveness: the process answers HTTP.',
        description: 'No credential, not rate limited. Answers 200 as long as the process runs; it does not touch the database.',
        security: [],
        responses: { '200': answer('The process is up.', { status: 'ok' }) },
      },
    },
    '/readyz': {
      get: {
        operationId: 'health.ready',
        tags,
        summary: 'Readiness: the process can reach its database and take requests.',
        description: 'No credential, not rate limited. Runs one query against the database; a load balancer sends traffic only while this answers 200.',
        security: [],
        responses: {
          '200': answer('Ready to take requests.', { status: 'ready', database: 'ok' }),
          '503': answer('The database does not answer; send no traffic here.', { status: 'unavailable', database: 'unreachable' }),
        },
      },
    },
  };
}
