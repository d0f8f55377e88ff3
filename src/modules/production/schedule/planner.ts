import { grams, kgString, scaled } from '../../../lib/grams.js';
import { batchRange, type MachineSizes } from '../roast/service.js';

/**
 * The production planner: demand in roasted kilograms → the batches the machines can run, in the order
 * the roasting floor should run them, with notes on what cannot be done. Pure: no database, no clock, so
 * every rule is unit-tested on its own (real demand only arrives with sales orders).
 *
 * The rules:
 * - Green needed = roasted ÷ (1 − expected loss), rounded up to the gram.
 * - A green lot's availability is shared by every demand item naming it; what is missing is planned
 *   without and noted (green_short).
 * - Items are planned in roasting order: non-decaf before decaf (decaf last, so the drum is clean of it for
 *   the day), then light → medium → dark (unknown level after dark), then by the profile's target drop
 *   temperature (lower first), then profile and green lot, so one profile's batches run back to back.
 * - An item goes to the machine able to take it all in the fewest batches (ties: the machine with fewer
 *   batches so far, then by code); a profile bound to a machine only runs there. Batches are split evenly
 *   within the machine's minimum and maximum batch (maximum: maxBatchKg, else capacityKg, else unbounded).
 * - With maxBatchesPerMachine, a machine that runs out of room takes full batches up to its cap and the
 *   rest goes to the next machine; what no machine has room for is noted (over_capacity).
 * - An item no machine can run (none at all, below every minimum, or a size that no even split fits) is
 *   noted (no_machine_fits) and not planned.
 */

export type RoastLevel = 'light' | 'medium' | 'dark';

export interface DemandItem {
  profileId: string | null;
  profileCode: string | null;
  /** A profile bound to one machine runs only there. */
  profileMachineId: string | null;
  /** Orders profiles within a roast level: a lower drop temperature is a lighter roast. */
  targetDropTempC: number | null;
  greenLotId: string | null;
  greenLotCode: string | null;
  roastLevel: RoastLevel | null;
  isDecaf: boolean;
  /** Roasted kilograms still to roast. */
  openKg: string;
  /** Expected roast loss in percent (up to 2 decimals, below 100). */
  expectedLossPct: string;
}

export interface PlanMachine extends MachineSizes {
  id: string;
  code: string;
}

export interface PlanInput {
  demand: DemandItem[];
  machines: PlanMachine[];
  /** Green kilograms that may be roasted, per green lot id. A lot missing here has none. */
  greenAvailableKg: ReadonlyMap<string, string>;
  maxBatchesPerMachine: number | null;
}

export interface PlannedBatch {
  /** Order across the schedule, from 1. */
  position: number;
  machineId: string;
  /** Order on the machine, from 1. */
  machineSequence: number;
  profileId: string | null;
  greenLotId: string | null;
  roastLevel: RoastLevel | null;
  isDecaf: boolean;
  greenKg: string;
  expectedRoastedKg: string;
  expectedLossPct: string;
}

export type NoteKind = 'no_demand' | 'green_short' | 'no_machine_fits' | 'over_capacity';

export interface FeasibilityNote {
  kind: NoteKind;
  message: string;
  profileId?: string | null;
  greenLotId?: string | null;
  /** green_short: green needed, available and missing. */
  neededKg?: string;
  availableKg?: string;
  shortKg?: string;
  /** no_machine_fits, over_capacity: green left unplanned. */
  unplannedKg?: string;
}

export interface Plan {
  batches: PlannedBatch[];
  notes: FeasibilityNote[];
}

const LEVEL_RANK: Record<RoastLevel, number> = { light: 0, medium: 1, dark: 2 };

/** Green grams needed for `roastedGrams` at a loss of `lossPct` percent: roasted ÷ (1 − loss), rounded up. */
export function grossUpGrams(roastedGrams: bigint, lossPct: string): bigint {
  const keptBasisPoints = 10_000n - scaled(lossPct, 2);
  if (keptBasisPoints <= 0n) throw new Error(`a roast loss of ${lossPct}% leaves nothing`);
  return (roastedGrams * 10_000n + keptBasisPoints - 1n) / keptBasisPoints;
}

/** Roasted grams expected from `greenGrams` at `lossPct` percent, rounded half up. */
export function expectedRoastedGrams(greenGrams: bigint, lossPct: string): bigint {
  const kept = 10_000n - scaled(lossPct, 2);
  return (greenGrams * kept * 2n + 10_000n) / 20_000n;
}

/** The order items are roasted in (see the rules above). */
export function roastingOrder(a: DemandItem, b: DemandItem): number {
  return (
    Number(a.isDecaf) - Number(b.isDecaf) ||
    levelRank(a) - levelRank(b) ||
    (a.targetDropTempC ?? Infinity) - (b.targetDropTempC ?? Infinity) ||
    compareText(a.profileCode ?? a.profileId, b.profileCode ?? b.profileId) ||
    compareText(a.greenLotCode ?? a.greenLotId, b.greenLotCode ?? b.greenLotId)
  );
}

export function planProduction(input: PlanInput): Plan {
  const notes: FeasibilityNote[] = [];
  const batches: PlannedBatch[] = [];
  const items = input.demand.filter((item) => grams(item.openKg) > 0n).sort(roastingOrder);
  if (items.length === 0) {
    return { batches, notes: [{ kind: 'no_demand', message: 'No open demand: no confirmed order line is waiting to be roasted.' }] };
  }

  const greenLeft = new Map([...input.greenAvailableKg].map(([lotId, kg]) => [lotId, maxZero(grams(kg))]));
  const planned = new Map(input.machines.map((m) => [m.id, 0]));
  const room = (m: PlanMachine) => (input.maxBatchesPerMachine === null ? Infinity : input.maxBatchesPerMachine - planned.get(m.id)!);
  const machineOrder = [...input.machines].sort((a, b) => compareText(a.code, b.code));

  for (const item of items) {
    const what = describe(item);
    const needed = grossUpGrams(grams(item.openKg), item.expectedLossPct);
    let remaining = needed;
    if (item.greenLotId !== null) {
      const available = greenLeft.get(item.greenLotId) ?? 0n;
      if (available < needed) {
        notes.push({
          kind: 'green_short',
          message: `${what}: ${kgString(needed)} kg of green needed, ${kgString(available)} kg available; ${kgString(needed - available)} kg short.`,
          profileId: item.profileId,
          greenLotId: item.greenLotId,
          neededKg: kgString(needed),
          availableKg: kgString(available),
          shortKg: kgString(needed - available),
        });
        remaining = available;
      }
      greenLeft.set(item.greenLotId, available - remaining);
    }

    const eligible = machineOrder.filter((m) => item.profileMachineId === null || m.id === item.profileMachineId);
    let first = true;
    while (remaining > 0n) {
      const fitting = eligible.filter((m) => batchesFor(m, remaining) !== null);
      const withRoom = fitting.filter((m) => room(m) > 0);
      if (withRoom.length === 0) {
        const noneFits = first && fitting.length === 0;
        notes.push({
          kind: noneFits ? 'no_machine_fits' : 'over_capacity',
          message: noneFits
            ? `${what}: ${item.profileMachineId ? 'the profile’s machine (if active here) cannot' : 'no active machine can'} roast ${kgString(remaining)} kg of green in batches within its minimum and maximum.`
            : `${what}: ${kgString(remaining)} kg of green left unplanned: the machines have no room for more batches (at most ${input.maxBatchesPerMachine} each).`,
          profileId: item.profileId,
          greenLotId: item.greenLotId,
          unplannedKg: kgString(remaining),
        });
        break;
      }
      const choice = withRoom
        .map((m) => ({ machine: m, count: batchesFor(m, remaining)! }))
        .sort(
          (a, b) =>
            Number(b.count <= room(b.machine)) - Number(a.count <= room(a.machine)) ||
            a.count - b.count ||
            planned.get(a.machine.id)! - planned.get(b.machine.id)!,
        )[0];
      const { machine } = choice;
      const sizes =
        choice.count <= room(machine)
          ? evenSplit(remaining, choice.count)
          : Array.from({ length: room(machine) }, () => batchRange(machine).max!);
      for (const size of sizes) {
        planned.set(machine.id, planned.get(machine.id)! + 1);
        batches.push({
          position: batches.length + 1,
          machineId: machine.id,
          machineSequence: planned.get(machine.id)!,
          profileId: item.profileId,
          greenLotId: item.greenLotId,
          roastLevel: item.roastLevel,
          isDecaf: item.isDecaf,
          greenKg: kgString(size),
          expectedRoastedKg: kgString(expectedRoastedGrams(size, item.expectedLossPct)),
          expectedLossPct: item.expectedLossPct,
        });
        remaining -= size;
      }
      first = false;
    }
  }
  return { batches, notes };
}

/**
 * How many batches the machine needs for `quantity` grams split evenly (as few as its maximum allows),
 * or null when even that split falls below its minimum (more batches would only be smaller).
 */
function batchesFor(machine: PlanMachine, quantity: bigint): number | null {
  const { min, max } = batchRange(machine);
  const count = max === null ? 1n : (quantity + max - 1n) / max;
  return quantity / count >= min ? Number(count) : null;
}

/** `total` grams in `count` batches differing by at most a gram, the larger ones first. */
function evenSplit(total: bigint, count: number): bigint[] {
  const n = BigInt(count);
  return Array.from({ length: count }, (_, i) => total / n + (BigInt(i) < total % n ? 1n : 0n));
}

function describe(item: DemandItem): string {
  const profile = item.profileCode ?? item.profileId ?? 'no profile';
  return item.greenLotId === null ? `Profile ${profile}` : `Profile ${profile}, green lot ${item.greenLotCode ?? item.greenLotId}`;
}

const levelRank = (item: DemandItem) => (item.roastLevel === null ? 3 : LEVEL_RANK[item.roastLevel]);
const compareText = (a: string | null, b: string | null) => (a ?? '').localeCompare(b ?? '');
const maxZero = (g: bigint) => (g > 0n ? g : 0n);
