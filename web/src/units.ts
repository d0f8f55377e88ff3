/**
 * Units a roaster reads. The API is metric (kg as decimal strings, °C as numbers); the console shows and takes
 * °C or °F and kg or lb, as each user chooses, and writes numbers and dates in the browser's locale.
 *
 * The choice is kept in this browser's localStorage, keyed by the signed-in user (the email; an API key session by
 * its organization), until the service keeps a per-user preference the console can read instead.
 */

export type TempUnit = 'C' | 'F';
export type MassUnit = 'kg' | 'lb';
export interface Units {
  temp: TempUnit;
  mass: MassUnit;
}

export const METRIC: Units = { temp: 'C', mass: 'kg' };
/** 1 lb is exactly 0.45359237 kg (international pound). */
export const KG_PER_LB = 0.45359237;

export const kgToLb = (kg: number) => kg / KG_PER_LB;
export const lbToKg = (lb: number) => lb * KG_PER_LB;
export const cToF = (c: number) => (c * 9) / 5 + 32;
export const fToC = (f: number) => ((f - 32) * 5) / 9;

const KEY = 'firstcrack.console.units:';

export function loadUnits(user: string): Units {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY + user) ?? 'null') as Partial<Units> | null;
    return { temp: saved?.temp === 'F' ? 'F' : 'C', mass: saved?.mass === 'lb' ? 'lb' : 'kg' };
  } catch {
    return METRIC;
  }
}

export function saveUnits(user: string, units: Units): void {
  try {
    localStorage.setItem(KEY + user, JSON.stringify(units));
  } catch {
    // storage refused (private mode): the choice lasts this page
  }
}

/** The units every formatter below uses; the shell sets them at sign-in and when the user changes them. */
let current: Units = METRIC;
const listeners = new Set<(u: Units) => void>();
export const currentUnits = () => current;
export function setCurrentUnits(units: Units): void {
  current = units;
  for (const l of listeners) l(units);
}
export function onUnits(listener: (u: Units) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The browser's locale (undefined lets Intl pick it). */
const locale: string | undefined = typeof navigator === 'undefined' ? undefined : navigator.language;

export function formatNumber(value: number, maxFractionDigits = 3, minFractionDigits = 0): string {
  return value.toLocaleString(locale, { maximumFractionDigits: maxFractionDigits, minimumFractionDigits: minFractionDigits });
}

const toNumber = (v: string | number | null | undefined): number | null => {
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

/** A mass the API answered in kg, in the user's unit: "12.5 kg" or "27.558 lb". */
export function formatMass(kg: string | number | null | undefined, units: Units = current): string {
  const n = toNumber(kg);
  if (n === null) return '—';
  return units.mass === 'lb' ? `${formatNumber(kgToLb(n), 2)} lb` : `${formatNumber(n, 3)} kg`;
}

/** A temperature the API answered in °C, in the user's unit. */
export function formatTemp(c: string | number | null | undefined, units: Units = current, digits = 1): string {
  const n = toNumber(c);
  if (n === null) return '—';
  return `${formatNumber(units.temp === 'F' ? cToF(n) : n, digits)} °${units.temp}`;
}

/** A rate of rise (°C per minute) in the user's unit: a difference, so no 32° offset. */
export function formatRate(cPerMin: number | null | undefined, units: Units = current): string {
  if (cPerMin === null || cPerMin === undefined) return '—';
  return `${formatNumber(units.temp === 'F' ? (cPerMin * 9) / 5 : cPerMin, 1)} °${units.temp}/min`;
}

export const massLabel = (units: Units = current) => units.mass;
export const tempLabel = (units: Units = current) => `°${units.temp}`;

/**
 * What the user typed as a mass (in their unit; a decimal comma is read as a point), as the API's kg string with
 * at most 3 decimals; '' stays '' (an absent optional field), and text that is no number is passed on as typed so
 * that the service names the field.
 */
export function massInputToKg(text: string, units: Units = current): string {
  const trimmed = text.trim().replace(',', '.');
  if (trimmed === '') return '';
  const n = Number(trimmed);
  if (!Number.isFinite(n)) return trimmed;
  const kg = units.mass === 'lb' ? lbToKg(n) : n;
  return String(Math.round(kg * 1000) / 1000);
}

/** The API's kg as the value of an input in the user's unit (for editing what is stored). */
export function kgToInput(kg: string | number | null | undefined, units: Units = current): string {
  const n = toNumber(kg);
  if (n === null) return '';
  return String(units.mass === 'lb' ? Math.round(kgToLb(n) * 100) / 100 : n);
}

/** A temperature typed in the user's unit, as °C for the API (one decimal), or null when empty. */
export function tempInputToC(text: string, units: Units = current): number | null {
  const trimmed = text.trim().replace(',', '.');
  if (trimmed === '') return null;
  const n = Number(trimmed);
  if (!Number.isFinite(n)) return NaN;
  return Math.round((units.temp === 'F' ? fToC(n) : n) * 10) / 10;
}

export function cToInput(c: number | null | undefined, units: Units = current): string {
  if (c === null || c === undefined) return '';
  return String(Math.round((units.temp === 'F' ? cToF(c) : c) * 10) / 10);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00` : iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString(locale, { dateStyle: 'medium' });
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' });
}
