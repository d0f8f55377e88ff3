import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { problemFields } from './session.ts';

export function navigate(path: string): void {
  location.hash = '#' + path;
}

export function Link({ to, children, class: cls }: { to: string; children: ComponentChildren; class?: string }) {
  return (
    <a href={'#' + to} class={cls}>
      {children}
    </a>
  );
}

export function Loading() {
  return <p class="muted" role="status">Loading…</p>;
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const { general, byField } = problemFields(error);
  const text = general ?? Object.entries(byField).map(([k, v]) => `${k}: ${v}`).join('; ');
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

/** A page of a cursor-paged list: items so far and a "Load more" while the service says there is a next cursor. */
export function usePaged<T>(load: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>, deps: unknown[]) {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);
  const fetchPage = useCallback(
    async (from: string | undefined, append: boolean) => {
      const mine = ++generation.current;
      setLoading(true);
      try {
        const page = await load(from);
        if (mine !== generation.current) return;
        setItems((before) => (append ? [...before, ...page.items] : page.items));
        setCursor(page.nextCursor);
        setError(null);
      } catch (e) {
        if (mine === generation.current) setError(e);
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    deps,
  );
  useEffect(() => {
    void fetchPage(undefined, false);
  }, [fetchPage]);
  return {
    items,
    loading,
    error,
    more: cursor ? () => fetchPage(cursor, true) : null,
    reload: () => fetchPage(undefined, false),
  };
}

export function MoreButton({ more, loading }: { more: (() => void) | null; loading: boolean }) {
  if (!more) return null;
  return (
    <button type="button" class="secondary more" disabled={loading} onClick={more}>
      {loading ? 'Loading…' : 'Load more'}
    </button>
  );
}

/** Runs one async load when its deps change; answers data, error and a reload. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function Field({ label, name, error, children }: { label: string; name: string; error?: string; children: ComponentChildren }) {
  return (
    <label class={'field' + (error ? ' invalid' : '')} data-field={name}>
      <span>{label}</span>
      {children}
      {error ? (
        <small class="field-error" role="alert" data-error-for={name}>
          {error}
        </small>
      ) : null}
    </label>
  );
}

export const kg = (value: string | number | null | undefined) => (value === null || value === undefined ? '—' : `${Number(value).toLocaleString('en', { maximumFractionDigits: 3 })} kg`);
export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : '—');
export const mmss = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined ? '—' : `${Math.floor(seconds / 60)}:${String(Math.round(seconds % 60)).padStart(2, '0')}`;

export function Badge({ children, tone }: { children: ComponentChildren; tone?: 'ok' | 'warn' | 'bad' | 'live' }) {
  return <span class={'badge ' + (tone ?? '')}>{children}</span>;
}
