import type { BridgeStatus } from './bridge.js';
import type { BridgeConfig } from './config.js';
import type { Readings } from './sources/index.js';

const temp = (v: number | null) => (v === null ? '  —  ' : v.toFixed(1).padStart(5));
const clock = (s: number) => `${s < 0 ? '-' : ''}${Math.floor(Math.abs(s) / 60)}:${String(Math.floor(Math.abs(s) % 60)).padStart(2, '0')}`;

/** The one line the running bridge keeps updated: batch, elapsed time, BT, ET, RoR, backlog. */
export function statusLine(s: BridgeStatus): string {
  const ror = s.ror === null ? '  —  ' : `${s.ror >= 0 ? '+' : ''}${s.ror.toFixed(1)}`;
  const parts = [
    s.batch ? `batch ${s.batch}` : s.state,
    clock(s.elapsedS),
    `BT ${temp(s.bt)} °C`,
    `ET ${temp(s.et)} °C`,
    `RoR ${ror} °C/min`,
    `backlog ${s.backlog}`,
  ];
  if (s.state === 'posting what is left') parts.push('recording ended');
  if (s.offline) parts.push(`OFFLINE: ${s.offline.slice(0, 60)}`);
  return parts.join('  ');
}

/** `--check`: each channel, its value and unit, one a line. */
export function formatReadings(config: BridgeConfig, readings: Readings): string {
  const units = config.channels.map as Record<string, { unit: string }>;
  const width = Math.max(...Object.keys(readings).map((k) => k.length));
  return Object.entries(readings)
    .map(([name, value]) => {
      const unit = units[name]?.unit === 'none' ? '' : ' °C';
      return `  ${name.padEnd(width)}  ${value === null ? 'no value' : `${value}${unit}`}${units[name]?.unit === 'F' ? ' (read in °F)' : ''}`;
    })
    .join('\n');
}
