import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/**
 * The one way the console shows that something takes time. Every page uses these three and nothing else:
 * - <Progress>: a spinner (or a bar when the fraction is known) with words saying what is under way;
 * - useAction(): runs one user action at a time, answers its label while pending, its fraction, and its problem;
 * - <BusyButton>: the button that started it, disabled with a spinner and the pending words while it runs.
 * A background job (a report) is followed by an action that polls (`poll` below) and reports each status it sees.
 */

export interface ProgressProps {
  /** What is under way, as a person would say it ("Loading the ledger…", "Rendering the report…"). */
  label: string;
  /** 0..1 when known (a file read, a job's step); absent for an indeterminate spinner. */
  value?: number | null;
  inline?: boolean;
}

export function Progress({ label, value, inline }: ProgressProps) {
  const known = typeof value === 'number' && Number.isFinite(value);
  return (
    <div class={'progress' + (inline ? ' inline' : '')} role="status" aria-live="polite" aria-busy="true" data-progress={label}>
      {known ? (
        <progress max={1} value={Math.min(1, Math.max(0, value))} aria-label={label} />
      ) : (
        <span class="spinner" aria-hidden="true" />
      )}
      <span class="progress-label">
        {label}
        {known ? ` ${Math.round(Math.min(1, Math.max(0, value)) * 100)} %` : ''}
      </span>
    </div>
  );
}

export function Loading({ what }: { what?: string }) {
  return <Progress label={what ? `Loading ${what}…` : 'Loading…'} />;
}

export interface Pending {
  label: string;
  value: number | null;
}

/** Lets a running action say how far it has got. */
export type Report = (label: string, value?: number | null) => void;

export interface Action {
  /** What is under way, or null when nothing is. */
  pending: Pending | null;
  busy: boolean;
  /** The last run's problem (null after a run that succeeded, or after clear()). */
  error: unknown;
  /**
   * Runs `work` unless another run of this action is under way; answers its result, or undefined when it failed
   * (the problem is in `error`) or was not started. Nothing is set after the component has gone.
   */
  run<T>(label: string, work: (report: Report, signal: AbortSignal) => Promise<T>): Promise<T | undefined>;
  clear(): void;
}

export function useAction(): Action {
  const [pending, setPending] = useState<Pending | null>(null);
  const [error, setError] = useState<unknown>(null);
  const running = useRef(false);
  const mounted = useRef(true);
  // Aborted when the component goes: a poll it started stops instead of asking on for a page nobody sees.
  const gone = useRef(new AbortController());
  useEffect(() => {
    mounted.current = true;
    if (gone.current.signal.aborted) gone.current = new AbortController();
    return () => {
      mounted.current = false;
      gone.current.abort();
    };
  }, []);
  const run = useCallback(async <T,>(label: string, work: (report: Report, signal: AbortSignal) => Promise<T>): Promise<T | undefined> => {
    if (running.current) return undefined;
    running.current = true;
    setPending({ label, value: null });
    setError(null);
    const report: Report = (next, value = null) => {
      if (mounted.current) setPending({ label: next, value });
    };
    try {
      return await work(report, gone.current.signal);
    } catch (e) {
      if (mounted.current) setError(e);
      return undefined;
    } finally {
      running.current = false;
      if (mounted.current) setPending(null);
    }
  }, []);
  return { pending, busy: pending !== null, error, run, clear: useCallback(() => setError(null), []) };
}

/** A button whose action is under way is disabled and says what it is doing. */
export function BusyButton({
  busy,
  busyLabel,
  children,
  class: cls,
  type = 'button',
  disabled,
  onClick,
  name,
}: {
  busy: boolean;
  busyLabel: string;
  children: ComponentChildren;
  class?: string;
  type?: 'button' | 'submit';
  disabled?: boolean;
  onClick?: (e: MouseEvent) => void;
  name?: string;
}) {
  return (
    <button type={type} class={cls} name={name} disabled={busy || disabled} aria-busy={busy} onClick={onClick}>
      {busy ? (
        <>
          <span class="spinner small" aria-hidden="true" /> {busyLabel}
        </>
      ) : (
        children
      )}
    </button>
  );
}

/**
 * Polls `read` until `done` says the answer is final, reporting each answer; the wait between reads grows from
 * `firstMs` to `maxMs` so a job that takes minutes is not asked ten times a second. `signal` stops it.
 */
export async function poll<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  onValue: (value: T) => void,
  { firstMs = 400, maxMs = 3000, signal }: { firstMs?: number; maxMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  let wait = firstMs;
  for (;;) {
    const value = await read();
    onValue(value);
    if (done(value)) return value;
    if (signal?.aborted) throw new DOMException('stopped', 'AbortError');
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(maxMs, Math.round(wait * 1.5));
  }
}
