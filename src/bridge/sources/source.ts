import { toCelsius } from '../config.js';

/** One reading of every configured channel, in °C for temperatures (null: no value this time). */
export type Readings = Record<string, number | null>;

/** A machine the bridge reads: opened once, read at the poll rate, closed at the end. */
export interface Source {
  /** For messages: `modbus-tcp 192.168.1.20:502`. */
  readonly label: string;
  open(): Promise<void>;
  /** Reads every channel once; throws when the machine cannot be reached (the bridge retries next tick). */
  read(): Promise<Readings>;
  close(): Promise<void>;
}

/** raw × scale + offset, then °F → °C; rounded to 0.01 so the journal and posts stay short. */
export function convert(raw: number, spec: { scale: number; offset: number; unit: 'C' | 'F' | 'none' }): number | null {
  if (!Number.isFinite(raw)) return null;
  return Math.round(toCelsius(raw * spec.scale + spec.offset, spec.unit) * 100) / 100;
}

export const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error) => (clearTimeout(timer), reject(error)),
    );
  });
