import type { Queryable } from '../../../db/client.js';
import { notFound } from '../../../rpc/errors.js';
import { findSample } from '../../sourcing/sample/service.js';

/** Checks, asking the sourcing module, that the sample exists in this organization: 404 naming sampleId otherwise. */
export async function checkSample(q: Queryable, orgId: string, sampleId: string): Promise<void> {
  if (!(await findSample(q, orgId, sampleId))) throw notFound('sample', sampleId, 'sampleId');
}
