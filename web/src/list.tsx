import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { BusyButton, useAction } from './progress.tsx';
import { ErrorBox, ListFooter, usePaged } from './ui.tsx';

/**
 * A list that pages through a cursor-paged operation, with filters and a "Download CSV" of the whole filtered
 * list (read page by page in the browser, then saved as a file; nothing is rendered on the service).
 */

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export type FilterValues = Record<string, string | boolean>;

export type FilterDef =
  | { name: string; label: string; type: 'search'; placeholder?: string }
  | { name: string; label: string; type: 'check' }
  | { name: string; label: string; type: 'select'; options: [string, string][] }
  | { name: string; label: string; type: 'date' };

export interface Column<T> {
  label: string;
  /** The cell; absent: the value of `key`. */
  render?: (row: T) => ComponentChildren;
  /** The CSV value; absent: `key`'s value, else the rendered text if it is a string or number. */
  csv?: (row: T) => string | number | null | undefined;
  key?: keyof T & string;
  num?: boolean;
  /** Not in the CSV (buttons). */
  noCsv?: boolean;
  /** Hidden at phone width (the row's first cell should then say what matters). */
  wide?: boolean;
}

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a leading = + - @ is defused for spreadsheets. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv<T>(all: Column<T>[], rows: T[]): string {
  const columns = all.filter((c) => !c.noCsv);
  const value = (c: Column<T>, row: T) => {
    if (c.csv) return c.csv(row);
    if (c.key) return row[c.key];
    const rendered = c.render?.(row);
    return typeof rendered === 'string' || typeof rendered === 'number' ? rendered : '';
  };
  return [columns.map((c) => csvField(c.label)), ...rows.map((row) => columns.map((c) => csvField(value(c, row))))].map((line) => line.join(',')).join('\r\n') + '\r\n';
}

export function saveFile(name: string, content: string, type = 'text/csv;charset=utf-8'): void {
  // A byte-order mark so that spreadsheets read UTF-8 names (Rösterei) as written.
  const blob = new Blob([type.startsWith('text/csv') ? '\ufeff' : '', content], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Reads every page of a list, reporting how many rows it has so far. */
export async function readAll<T>(load: (cursor: string | undefined, limit: number) => Promise<Page<T>>, report: (rows: number) => void, signal?: AbortSignal): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await load(cursor, 100);
    rows.push(...page.items);
    report(rows.length);
    if (!page.nextCursor || signal?.aborted) return rows;
    cursor = page.nextCursor;
  }
}

export function DataList<T>({
  name,
  what,
  load,
  columns,
  filters = [],
  initial = {},
  rowKey,
  rowAttrs,
  deps = [],
  empty,
}: {
  /** data-list of the table, and the CSV file's name. */
  name: string;
  /** What the rows are, plural ("locations"). */
  what: string;
  load: (filter: FilterValues, cursor: string | undefined, limit: number) => Promise<Page<T>>;
  columns: Column<T>[];
  filters?: FilterDef[];
  initial?: FilterValues;
  rowKey?: (row: T) => string;
  rowAttrs?: (row: T) => Record<string, string>;
  /** Anything else the list depends on (a version bumped after a save reloads it). */
  deps?: unknown[];
  empty?: ComponentChildren;
}) {
  const [filter, setFilter] = useState<FilterValues>(initial);
  const list = usePaged((cursor) => load(filter, cursor, 25), [JSON.stringify(filter), ...deps]);
  const download = useAction();
  const set = (key: string, value: string | boolean) => setFilter((f) => ({ ...f, [key]: value }));
  const searches = filters.filter((f) => f.type === 'search');
  return (
    <div class="data-list">
      <form
        class="filters"
        role="search"
        aria-label={`Filter ${what}`}
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget as HTMLFormElement);
          setFilter((f) => ({ ...f, ...Object.fromEntries(searches.map((s) => [s.name, String(data.get(s.name) ?? '')])) }));
        }}
      >
        {filters.map((f) =>
          f.type === 'search' ? (
            <input name={f.name} type="search" placeholder={f.placeholder ?? f.label} aria-label={f.label} defaultValue={String(filter[f.name] ?? '')} />
          ) : f.type === 'check' ? (
            <label class="check">
              <input type="checkbox" checked={!!filter[f.name]} onChange={(e) => set(f.name, (e.target as HTMLInputElement).checked)} /> {f.label}
            </label>
          ) : f.type === 'date' ? (
            <label class="check">
              {f.label} <input type="date" value={String(filter[f.name] ?? '')} onChange={(e) => set(f.name, (e.target as HTMLInputElement).value)} />
            </label>
          ) : (
            <select aria-label={f.label} value={String(filter[f.name] ?? '')} onChange={(e) => set(f.name, (e.target as HTMLSelectElement).value)}>
              {f.options.map(([value, label]) => (
                <option value={value}>{label}</option>
              ))}
            </select>
          ),
        )}
        {searches.length > 0 ? <button type="submit">Search</button> : null}
        <BusyButton
          class="secondary csv"
          busy={download.busy}
          busyLabel={download.pending?.label ?? 'Reading…'}
          onClick={() =>
            void download.run(`Reading ${what}…`, async (report, signal) => {
              const rows = await readAll((cursor, limit) => load(filter, cursor, limit), (n) => report(`Reading ${what}… ${n}`), signal);
              saveFile(`${name}-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(columns, rows));
            })
          }
        >
          Download CSV
        </BusyButton>
      </form>
      <ErrorBox error={list.error ?? download.error} />
      {list.items.length > 0 || !empty ? (
        <div class="table-wrap">
          <table class="list" data-list={name}>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th scope="col" class={(c.num ? 'num' : '') + (c.wide ? ' hide-narrow' : '')}>
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {list.items.map((row) => (
                <tr key={rowKey?.(row)} {...(rowAttrs?.(row) ?? {})}>
                  {columns.map((c) => (
                    <td class={(c.num ? 'num' : '') + (c.wide ? ' hide-narrow' : '')}>{c.render ? c.render(row) : String(c.key ? (row[c.key] ?? '—') : '')}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {list.items.length === 0 && !list.loading && empty ? empty : <ListFooter list={list} what={what} />}
    </div>
  );
}

/** Turns filter values into an operation's `filter`: empty strings and false checks left out. */
export function compact(filter: FilterValues): Record<string, string | boolean> {
  return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== '' && v !== false));
}
