import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { problemFields } from './session.ts';
import { BusyButton, Loading } from './progress.tsx';
import { formatDateTime, formatMass } from './units.ts';

export { BusyButton, Loading, Progress, poll, useAction } from './progress.tsx';

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

/** A load's state above what it fills: its progress the first time, its problem if it failed. */
export function LoadState({ state, what }: { state: { loading: boolean; data: unknown; error: unknown }; what: string }) {
  return state.loading && state.data === null ? <Loading what={what} /> : <ErrorBox error={state.error} />;
}

/** A page of a cursor-paged list: items so far and a "Load more" while the service says there is a next cursor. */
export function usePaged<T>(load: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>, deps: unknown[]) {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [appending, setAppending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);
  const fetchPage = useCallback(
    async (from: string | undefined, append: boolean) => {
      const mine = ++generation.current;
      setLoading(true);
      setAppending(append);
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
    appending,
    error,
    more: cursor ? () => fetchPage(cursor, true) : null,
    reload: () => fetchPage(undefined, false),
  };
}

/**
 * Under a cursor-paged list: the first page's progress while the list is empty, "No …" when there is nothing,
 * and "Load more" (busy while the next page comes) while the service says there is a next cursor.
 */
export function ListFooter({
  list,
  what,
}: {
  list: { items: unknown[]; loading: boolean; appending: boolean; error: unknown; more: (() => void) | null };
  what: string;
}) {
  // A first page, or the list again after its filter changed: the rows shown until it comes are the old ones.
  if (list.loading && !list.appending) return <Loading what={what} />;
  if (!list.loading && list.items.length === 0 && !list.error) return <p class="muted">No {what}.</p>;
  if (!list.more) return null;
  return (
    <BusyButton class="secondary more" busy={list.appending} busyLabel={`Loading more ${what}…`} onClick={list.more}>
      Load more
    </BusyButton>
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

/** A labelled input; the problem the service named it in is shown under it, outside the label (the label stays the input's name). */
export function Field({ label, name, error, children }: { label: string; name: string; error?: string; children: ComponentChildren }) {
  return (
    <div class={'field' + (error ? ' invalid' : '')} data-field={name}>
      <label>
        <span>{label}</span>
        {children}
      </label>
      {error ? (
        <small class="field-error" role="alert" data-error-for={name}>
          {error}
        </small>
      ) : null}
    </div>
  );
}

export const kg = (value: string | number | null | undefined) => formatMass(value);
export const when = (iso: string | null | undefined) => formatDateTime(iso);
export const mmss = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined ? '—' : `${Math.floor(seconds / 60)}:${String(Math.round(seconds % 60)).padStart(2, '0')}`;

export function Badge({ children, tone }: { children: ComponentChildren; tone?: 'ok' | 'warn' | 'bad' | 'live' }) {
  return <span class={'badge ' + (tone ?? '')}>{children}</span>;
}
