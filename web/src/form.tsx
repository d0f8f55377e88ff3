import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';
import { FirstcrackError } from '../../clients/typescript/src/index.ts';
import { BusyButton, useAction, type Action } from './progress.tsx';
import { Field } from './ui.tsx';
import { massInputToKg, tempInputToC } from './units.ts';

/**
 * Forms that show the service's problem where it belongs. A problem body carries `errors[]` with field paths
 * (`name`, `lines[0].quantityKg`, `coordinates.lat`); each message is shown at the field of that path, or of its
 * first segment when no field has the full path. What no shown field names (and a problem without field paths) is
 * shown under the form with <FormProblem>, which must come after the fields (fields say which names they show as
 * they render).
 */

/** What the user typed, read for the API: strings trimmed, empty optional fields absent, mass and temperature in the API's units. */
export class Values {
  constructor(readonly data: FormData) {}
  /** The trimmed text, or undefined when empty (an absent optional field). */
  str(name: string): string | undefined {
    const v = this.data.get(name);
    const s = typeof v === 'string' ? v.trim() : '';
    return s === '' ? undefined : s;
  }
  /** The text as typed ('' when empty): for required fields, so the service names what is missing. */
  text(name: string): string {
    const v = this.data.get(name);
    return typeof v === 'string' ? v.trim() : '';
  }
  num(name: string): number | undefined {
    const s = this.str(name);
    if (s === undefined) return undefined;
    const n = Number(s.replace(',', '.'));
    return Number.isFinite(n) ? n : (s as unknown as number);
  }
  int(name: string): number | undefined {
    const n = this.num(name);
    return typeof n === 'number' ? Math.trunc(n) : n;
  }
  /** A decimal string as the API takes it (a decimal comma read as a point). */
  decimal(name: string): string | undefined {
    return this.str(name)?.replace(',', '.');
  }
  /** A mass typed in the user's unit, as the API's kg decimal string. */
  kg(name: string): string | undefined {
    const s = massInputToKg(this.text(name));
    return s === '' ? undefined : s;
  }
  /** A temperature typed in the user's unit, as °C. */
  tempC(name: string): number | undefined {
    const c = tempInputToC(this.text(name));
    return c === null ? undefined : c;
  }
  bool(name: string): boolean {
    return this.data.get(name) !== null;
  }
  all(name: string): string[] {
    return this.data.getAll(name).filter((v): v is string => typeof v === 'string' && v !== '');
  }
}

const normal = (path: string) => path.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');

/** Every message of a problem by its (normalized) field path; a 409 puts its rule (`detail`) with the message. */
export function problemByPath(error: unknown): { byPath: Map<string, string>; detail: string | null } {
  const byPath = new Map<string, string>();
  if (!(error instanceof FirstcrackError)) return { byPath, detail: error ? (error instanceof Error ? error.message : String(error)) : null };
  for (const e of error.errors) {
    const key = normal(e.path);
    if (!key || byPath.has(key)) continue;
    byPath.set(key, error.status === 400 ? e.message : `${error.problem.detail} (${e.message})`);
  }
  return { byPath, detail: error.problem.detail };
}

export interface Form {
  action: Action;
  busy: boolean;
  /** The message for the field `name` (a path: `lines.0.quantityKg`), marking it shown. */
  error(name: string): string | undefined;
  /** What no shown field carries: the problem's detail, or the messages of fields not on the form. */
  general(): string | null;
  /** An onSubmit handler: reads the form's values, runs `work` as the action labelled `label`, then `done`. */
  submit<T>(label: string, work: (values: Values, form: HTMLFormElement) => Promise<T>, done?: (result: T, form: HTMLFormElement) => void): (e: Event) => void;
}

export function useForm(): Form {
  const action = useAction();
  const shown = useRef(new Set<string>());
  const { byPath, detail } = problemByPath(action.error);
  shown.current = new Set();
  const find = (name: string): [string, string] | undefined => {
    const key = normal(name);
    const exact = byPath.get(key);
    if (exact) return [key, exact];
    // A field shows the messages under its path (`coordinates` shows `coordinates.lat`) …
    for (const [path, message] of byPath) if (path.startsWith(key + '.')) return [path, message];
    return undefined;
  };
  return {
    action,
    busy: action.busy,
    error(name) {
      const hit = find(name);
      if (!hit) return undefined;
      shown.current.add(hit[0]);
      return hit[1];
    },
    general() {
      if (!action.error) return null;
      const unshown = [...byPath].filter(([path]) => !shown.current.has(path));
      if (byPath.size === 0) return detail;
      if (unshown.length === 0) return null;
      return unshown.map(([path, message]) => `${path}: ${message}`).join('; ');
    },
    submit(label, work, done) {
      return (e: Event) => {
        e.preventDefault();
        const element = e.currentTarget as HTMLFormElement;
        void action.run(label, () => work(new Values(new FormData(element)), element)).then((result) => {
          if (result !== undefined) done?.(result, element);
        });
      };
    },
  };
}

/** A labelled field showing the problem the service named it in. */
export function F({ form, name, label, children, hint }: { form: Form; name: string; label: string; children: ComponentChildren; hint?: string }) {
  return (
    <>
      <Field label={label} name={name} error={form.error(name)}>
        {children}
      </Field>
      {hint ? <small class="muted hint">{hint}</small> : null}
    </>
  );
}

/** Under the fields: what no field shows. */
export function FormProblem({ form }: { form: Form }) {
  const text = form.general();
  return text ? (
    <p class="error" role="alert">
      {text}
    </p>
  ) : null;
}

/** The submit button of a form, busy with the action's words while it runs. */
export function Submit({ form, children, busyLabel }: { form: Form; children: ComponentChildren; busyLabel?: string }) {
  return (
    <BusyButton type="submit" busy={form.busy} busyLabel={busyLabel ?? form.action.pending?.label ?? 'Saving…'}>
      {children}
    </BusyButton>
  );
}
