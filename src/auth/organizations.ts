import type { Database, Queryable } from '../db/client.js';
import { newId } from '../lib/ids.js';
import { createApiKey } from './credentials.js';
import type { Plan } from './plans.js';

/** Creates an organization and its first owner key; runs with the owner connection (CLI, bootstrap). */
export async function createOrganization(db: Database, name: string, plan: Plan): Promise<{ organizationId: string; apiKey: string; keyId: string }> {
  return db.transaction(async (tx) => {
    const organizationId = newId('org');
    await tx.query(`insert into organizations (id, name, plan) values ($1, $2, $3)`, [organizationId, name, plan]);
    const key = await createApiKey(tx, organizationId, 'owner', [], 'owner key');
    return { organizationId, apiKey: key.apiKey, keyId: key.id };
  });
}

/**
 * Locks the organization row until commit. A request that can raise a count the plan caps (active machines)
 * takes this lock before counting, so two of them can never both see room under the cap.
 */
export async function lockOrganization(q: Queryable, orgId: string): Promise<void> {
  await q.query(`select id from organizations where id = $1 for update`, [orgId]);
}
