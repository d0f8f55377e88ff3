import type { CallResult, TestOrg } from '../../testing/harness.js';

/** Test support: sites, machines, tokens and shot posts through the real HTTP surfaces. */

export const uniqueCode = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 8)}`;

async function ok(org: TestOrg, operation: string, input: unknown) {
  const res = await org.call(operation, input);
  if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function makeSite(org: TestOrg, input: Record<string, unknown> = {}): Promise<string> {
  return (await ok(org, 'cafe.createSite', { name: 'Bar', code: uniqueCode('S'), timezone: 'Europe/Berlin', ...input })).id;
}

export async function makeMachine(org: TestOrg, siteId: string, input: Record<string, unknown> = {}): Promise<string> {
  return (await ok(org, 'cafe.registerMachine', { siteId, name: 'Linea', code: uniqueCode('EM'), kind: 'espresso_machine', groupCount: 2, ...input })).id;
}

export async function issueToken(org: TestOrg, machineId: string): Promise<string> {
  return (await ok(org, 'cafe.issueBarMachineToken', { machineId })).token;
}

/** The service's address, read off the organization's typed client (the harness gives no other handle to it). */
export const serverUrl = (org: TestOrg): string => (org.client as unknown as { baseUrl: string }).baseUrl;

export async function postShots(url: string, token: string | undefined, machineId: string, body: unknown): Promise<CallResult> {
  const response = await fetch(`${url}/ingest/v1/cafe/machines/${machineId}/shots`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text, headers: response.headers };
}

let counter = 0;
/** A shot on target by default (18 g in, 38 g out, 28 s). */
export function shot(overrides: Record<string, unknown> = {}) {
  counter++;
  return { shotId: `s-${Date.now()}-${counter}`, group: 1, startedAt: new Date().toISOString(), durationS: 28, doseG: 18, yieldG: 38, ...overrides };
}
