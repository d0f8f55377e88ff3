import type { Queryable } from '../../../db/client.js';
import { alreadyUsed, invalidInput, notFound, type ProblemError } from '../../../rpc/errors.js';
import * as partyService from '../../catalog/party/service.js';
import * as repo from './repository.js';
import type { CreateContractInput } from './schemas.js';

/**
 * What other modules (samples) may ask of green purchase contracts: a contract's header and one line, read
 * without locking, for checking that a link names a record of the organization.
 */
export type { ContractLine, ContractSummary } from './repository.js';

export function findContract(q: Queryable, orgId: string, id: string): Promise<repo.ContractSummary | undefined> {
  return repo.findContractSummary(q, orgId, id);
}

/** A contract line with the contract it belongs to. */
export function findContractLine(q: Queryable, orgId: string, id: string) {
  return repo.findLine(q, orgId, id);
}

/** A shipment with the green lots its receipt created (undefined when it is not this organization's). */
export function findShipment(q: Queryable, orgId: string, id: string) {
  return repo.findShipment(q, orgId, id);
}

/** The contract line each green lot was received against, read without locking (lots not received from a contract are absent). */
export function receiptLinesOfLots(q: Queryable, orgId: string, greenLotIds: string[]): Promise<Map<string, string>> {
  return repo.receiptLinesOfLots(q, orgId, greenLotIds);
}

/** Partner types a contract may be signed with: the ones that sell coffee. */
export const SELLING_PARTNER_TYPES = ['supplier', 'importer', 'exporter', 'cooperative', 'producer'];

/** Reads of partners and producers shared by the inputs one check runs over. */
type Lookups = { partners: Map<string, Promise<partyService.Partner | undefined>>; producers: Map<string, Promise<boolean>> };
const newLookups = (): Lookups => ({ partners: new Map(), producers: new Map() });

/**
 * What createContract refuses before writing, in its order (the first is its answer): the partner not this
 * organization's (404 naming partnerId), not one that sells coffee or not active (400 naming partnerId), no
 * currency (400), a line's currency not the contract's (400 naming lines[i].currency), a producer not this
 * organization's (404 naming lines[i].producerId). Reads only.
 */
async function contractProblems(q: Queryable, orgId: string, input: CreateContractInput, lookups: Lookups): Promise<{ problems: ProblemError[]; currency?: string }> {
  const partnerRead = lookups.partners.get(input.partnerId) ?? partyService.findPartner(q, orgId, input.partnerId);
  lookups.partners.set(input.partnerId, partnerRead);
  const partner = await partnerRead;
  if (!partner) return { problems: [notFound('partner', input.partnerId, 'partnerId')] };
  if (!partner.types.some((t: string) => SELLING_PARTNER_TYPES.includes(t))) {
    return {
      problems: [
        invalidInput([{ path: 'partnerId', message: `partner ${partner.code} is not a ${SELLING_PARTNER_TYPES.join(', ')}` }], 'A contract is signed with a partner that sells coffee.'),
      ],
    };
  }
  if (!partner.isActive) return { problems: [invalidInput([{ path: 'partnerId', message: `partner ${partner.code} is not active` }])] };
  const currency = input.currency ?? partner.defaultCurrency ?? undefined;
  if (!currency) return { problems: [invalidInput([{ path: 'currency', message: 'is required (the partner has no default currency)' }])] };
  const problems: ProblemError[] = [];
  input.lines.forEach((l, i) => {
    if (l.currency !== undefined && l.currency !== currency) problems.push(invalidInput([{ path: `lines[${i}].currency`, message: `must be the contract's currency ${currency}` }]));
  });
  for (const [i, line] of input.lines.entries()) {
    if (!line.producerId) continue;
    const read = lookups.producers.get(line.producerId) ?? partyService.findProducer(q, orgId, line.producerId).then((p) => p !== undefined);
    lookups.producers.set(line.producerId, read);
    if (!(await read)) problems.push(notFound('producer', line.producerId, `lines[${i}].producerId`));
  }
  return { problems, currency };
}

/**
 * Creates a draft contract with its lines as createContract does: refused as contractProblems says (its first
 * problem), a contract number already used refused by the unique constraint (409 duplicate naming contractNumber);
 * the currency defaults to the partner's, a line's fixation to fixed when it has a price. Answers the contract.
 */
export async function createContract(q: Queryable, orgId: string, credentialId: string, input: CreateContractInput): Promise<repo.Contract> {
  const { problems, currency } = await contractProblems(q, orgId, input, newLookups());
  if (problems.length > 0) throw problems[0];
  const id = await repo.insertContract(q, orgId, credentialId, {
    ...input,
    currency: currency!,
    lines: input.lines.map((l) => ({ ...l, fixationStatus: l.fixationStatus ?? (l.pricePerKg !== undefined ? 'fixed' : 'unfixed') })),
  });
  return (await repo.findContract(q, orgId, id))!;
}

/** Every refusal createContract would answer for these inputs, by index: contractProblems', and a contract number already used (409 duplicate). Reads only. */
export async function contractRefusals(q: Queryable, orgId: string, inputs: CreateContractInput[]): Promise<{ index: number; problem: ProblemError }[]> {
  const lookups = newLookups();
  const taken = new Set(await repo.contractNumbersInUse(q, orgId, inputs.map((i) => i.contractNumber)));
  const refusals: { index: number; problem: ProblemError }[] = [];
  for (const [index, input] of inputs.entries()) {
    const { problems } = await contractProblems(q, orgId, input, lookups);
    refusals.push(...problems.map((problem) => ({ index, problem })));
    if (taken.has(input.contractNumber)) refusals.push({ index, problem: alreadyUsed('contractNumber') });
  }
  return refusals;
}
