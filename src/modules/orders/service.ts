import type { Queryable } from '../../db/client.js';
import { alreadyUsed, type ProblemError } from '../../rpc/errors.js';
import * as repo from './repository.js';
import type { CreateCustomerInput } from './schemas.js';

/** What other modules may ask of orders: what traceability needs to know of order lines, customers and shipments. */
export type { FulfillmentSummary, MergedDemand, OrderLineSummary } from './repository.js';

/** An order line with its order's number and its customer. */
export function findOrderLine(q: Queryable, orgId: string, id: string): Promise<repo.OrderLineSummary | undefined> {
  return repo.findOrderLineSummary(q, orgId, id);
}

/** Whether the line names the roasted lot, or holds (or shipped) an unreleased claim on it. */
export function orderLineClaimsLot(q: Queryable, orgId: string, orderLineId: string, roastedLotId: string): Promise<boolean> {
  return repo.orderLineClaimsLot(q, orgId, orderLineId, roastedLotId);
}

/** The fulfilment, with the order lines it shipped from the roasted lot (none: it shipped none of that lot). */
export function findFulfillmentOfLot(q: Queryable, orgId: string, id: string, roastedLotId: string): Promise<repo.FulfillmentSummary | undefined> {
  return repo.findFulfillmentOfLot(q, orgId, id, roastedLotId);
}

/**
 * What production must roast: the lines of confirmed, unshipped orders due on or before `dueBefore` (all
 * without it), less what is allocated to each line, merged by profile, green lot, roast level and decaf.
 * Items with nothing left to roast are left out. Read from the roast_demand view.
 */
export function roastDemand(q: Queryable, orgId: string, dueBefore: string | null): Promise<repo.MergedDemand[]> {
  return repo.roastDemand(q, orgId, dueBefore);
}

/** Creates a customer as createCustomer does: its code is unique per organization (409 duplicate naming code, by the unique constraint). */
export function createCustomer(q: Queryable, orgId: string, input: CreateCustomerInput): Promise<repo.Customer> {
  return repo.insertCustomer(q, orgId, input);
}

/** Every refusal createCustomer would answer for these inputs, by index (a code already used: 409 duplicate naming code). Reads only. */
export async function customerRefusals(q: Queryable, orgId: string, inputs: CreateCustomerInput[]): Promise<{ index: number; problem: ProblemError }[]> {
  const taken = new Set(await repo.customerCodesInUse(q, orgId, inputs.map((i) => i.code)));
  return inputs.flatMap((input, index) => (taken.has(input.code) ? [{ index, problem: alreadyUsed('code') }] : []));
}
