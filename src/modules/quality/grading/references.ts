import type { Queryable } from '../../../db/client.js';
import { invalidInput } from '../../../rpc/errors.js';

/**
 * Checks that the sample exists in this organization, asking the sourcing module. The sourcing module
 * (samples) is not part of this build yet, so a grading of a sample is refused with 400 naming sampleId.
 */
export async function checkSample(_q: Queryable, _orgId: string, _sampleId: string): Promise<void> {
  throw invalidInput([{ path: 'sampleId', message: 'samples cannot be graded yet: the sourcing module is not installed' }]);
}
