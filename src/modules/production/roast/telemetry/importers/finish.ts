import { ImportError, type ImportFormat, type ImportedRoast, type ParsedLog } from './types.js';

const NO_CHARGE_WARNING =
  'no charge event: sample and event times are from the start of recording (as Artisan times them), and the phase metrics are left empty';

/**
 * The one place that turns a parser's output into an ImportedRoast: sorts samples, and rebases samples, events,
 * special events and burner steps on the charge event. Without a charge the file's own axis (the start of
 * recording, Artisan's "absolute 0") stays the origin, so marked events keep their times and say what they meant.
 */
export function finishImport(format: ImportFormat, parsed: ParsedLog): ImportedRoast {
  if (parsed.samples.length === 0) throw new ImportError('the log holds no temperature samples');
  // Array.prototype.sort is stable, so samples sharing a timestamp keep file order.
  const samples = [...parsed.samples].sort((a, b) => a.t - b.t);
  const charge = parsed.events.find((event) => event.type === 'charge');
  const drop = parsed.events.find((event) => event.type === 'drop');
  const span = { startMs: charge?.t ?? samples[0].t, endMs: drop?.t ?? samples[samples.length - 1].t };
  const origin = charge?.t ?? 0;
  const meta = parsed.meta;
  const energy = meta.metricsOptions?.energy;
  if (energy) energy.burner = energy.burner.map((step) => ({ ...step, t: step.t - origin }));
  const specials = meta.details?.specialEvents;
  if (specials) meta.details!.specialEvents = specials.map((event) => ({ ...event, t: event.t - origin }));
  return {
    format,
    meta,
    ...(parsed.artisanComputed && { artisanComputed: parsed.artisanComputed }),
    curve: {
      samples: samples.map((sample) => ({ ...sample, t: sample.t - origin })),
      events: parsed.events.map((event) => ({ ...event, t: event.t - origin })).sort((a, b) => a.t - b.t),
    },
    chargeFound: charge !== undefined,
    span,
    warnings: charge ? parsed.warnings : [...parsed.warnings, NO_CHARGE_WARNING],
  };
}
