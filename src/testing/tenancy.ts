import type { TestOrg } from './harness.js';

/**
 * How one operation is probed across the organization boundary. Each module exports its cases from
 * `tenancy.cases.ts`; the tenancy test walks every registered operation and fails if one has no case.
 */
export interface TenancyCase {
  operation: string;
  /** Creates the owner organization's records and returns the input that names them. */
  arrange(owner: TestOrg): Promise<{ input: Record<string, unknown>; secretIds: string[] }>;
  /**
   * not_found: the other organization calling with this input gets 404, exactly as for an id that does
   * not exist. invisible: it gets 200, and none of secretIds appears in the answer.
   */
  expect: 'not_found' | 'invisible';
}
