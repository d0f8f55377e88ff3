import type { Queryable } from '../../../db/client.js';
import { DEFAULT_PRE_ROAST_LOSS_PCT } from '../../inventory/blend/schemas.js';
import { lotCodes } from '../../inventory/green/service.js';
import { roastDemand } from '../../orders/service.js';
import { findProfiles } from '../profile/service.js';
import { meanLossByProfile } from '../roast/service.js';
import type { DemandItem, RoastLevel } from './planner.js';

export interface DemandAggregateItem {
  profileId: string | null;
  profileCode: string | null;
  profileMachineId: string | null;
  targetDropTempC: number | null;
  greenLotId: string | null;
  greenLotCode: string | null;
  roastLevel: RoastLevel | null;
  isDecaf: boolean;
  /** Roasted kilograms on the confirmed order lines. */
  orderedKg: string;
  /** Of those, already allocated from roasted stock. */
  allocatedKg: string;
  /** Still to roast: ordered less allocated, line by line. */
  openKg: string;
  orderLineCount: number;
  earliestDueDate: string | null;
  expectedLossPct: string;
  /** Where the loss comes from: the demand itself, the mean of the profile's completed batches, or the default. */
  expectedLossSource: 'demand' | 'profile_history' | 'default';
}

/**
 * The open roast demand the orders module answers, with each item's profile and green lot as their
 * modules describe them and the roast loss to expect: the demand's own, else the mean of the profile's
 * completed batches, else the default. Earliest due first (undated last), then profile code, lot code,
 * roast level and decaf last.
 */
export async function listDemand(q: Queryable, orgId: string, dueBefore: string | null): Promise<DemandAggregateItem[]> {
  const merged = await roastDemand(q, orgId, dueBefore);
  const profileIds = unique(merged.map((d) => d.profileId));
  const profiles = await findProfiles(q, orgId, profileIds);
  const codes = await lotCodes(q, orgId, unique(merged.map((d) => d.greenLotId)));
  const history = await meanLossByProfile(q, orgId, profileIds.filter((id) => merged.some((d) => d.profileId === id && d.expectedLossPct === null)));
  const items = merged.map((d): DemandAggregateItem => {
    const profile = d.profileId ? profiles.get(d.profileId) : undefined;
    const historic = d.profileId ? history.get(d.profileId) : undefined;
    return {
      profileId: d.profileId,
      profileCode: profile?.code ?? null,
      profileMachineId: profile?.machineId ?? null,
      targetDropTempC: profile?.targetDropTempC ?? null,
      greenLotId: d.greenLotId,
      greenLotCode: d.greenLotId ? (codes.get(d.greenLotId) ?? null) : null,
      roastLevel: d.roastLevel as RoastLevel | null,
      isDecaf: d.isDecaf,
      orderedKg: d.orderedKg,
      allocatedKg: d.allocatedKg,
      openKg: d.openKg,
      orderLineCount: d.lineCount,
      earliestDueDate: d.earliestDueDate,
      expectedLossPct: d.expectedLossPct ?? historic ?? Number(DEFAULT_PRE_ROAST_LOSS_PCT).toFixed(2),
      expectedLossSource: d.expectedLossPct !== null ? 'demand' : historic !== undefined ? 'profile_history' : 'default',
    };
  });
  return items.sort(
    (a, b) =>
      nullsLast(a.earliestDueDate, b.earliestDueDate) ||
      nullsLast(a.profileCode, b.profileCode) ||
      nullsLast(a.greenLotCode, b.greenLotCode) ||
      nullsLast(a.roastLevel, b.roastLevel) ||
      Number(a.isDecaf) - Number(b.isDecaf),
  );
}

export const toPlannerDemand = (d: DemandAggregateItem): DemandItem => ({
  profileId: d.profileId,
  profileCode: d.profileCode,
  profileMachineId: d.profileMachineId,
  targetDropTempC: d.targetDropTempC,
  greenLotId: d.greenLotId,
  greenLotCode: d.greenLotCode,
  roastLevel: d.roastLevel,
  isDecaf: d.isDecaf,
  openKg: d.openKg,
  expectedLossPct: d.expectedLossPct,
});

const unique = (ids: (string | null)[]): string[] => [...new Set(ids.filter((id): id is string => id !== null))];

function nullsLast(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}
