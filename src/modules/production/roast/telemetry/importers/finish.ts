import { ImportError, type ImportFormat, type ImportedRoast, type ParsedLog } from './types.js';

const NO_CHARGE_WARNING = "no charge event: events are unset and sample times are on the file's own time axis";

/**
 * The one place that turns a parser's output into an ImportedRoast: sorts samples, and rebases samples and events on
 * the charge event. Without a charge there is no common origin for event times, so events are dropped rather than
 * reported on an axis callers would mistake for "since charge".
 */
export function finishImport(format: ImportFormat, parsed: ParsedLog): ImportedRoast {
  if (parsed.samples.length === 0) throw new ImportError('the log holds no temperature samples');
  // Array.prototype.sort is stable, so samples sharing a timestamp keep file order.
  const samples = [...parsed.samples].sort((a, b) => a.t - b.t);
  const charge = parsed.events.find((event) => event.type === 'charge');
  const base = { format, meta: parsed.meta, ...(parsed.artisanComputed && { artisanComputed: parsed.artisanComputed }) };
  if (!charge) {
    return {
      ...base,
      curve: { samples, events: [] },
      chargeFound: false,
      warnings: [...parsed.warnings, NO_CHARGE_WARNING],
    };
  }
  const origin = charge.t;
  const energy = parsed.meta.metricsOptions?.energy;
  if (energy) energy.burner = energy.burner.map((step) => ({ ...step, t: step.t - origin }));
  return {
    ...base,
    curve: {
      samples: samples.map((sample) => ({ ...sample, t: sample.t - origin })),
      events: parsed.events.map((event) => ({ ...event, t: event.t - origin })).sort((a, b) => a.t - b.t),
    },
    chargeFound: true,
    warnings: parsed.warnings,
  };
}
