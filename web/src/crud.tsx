import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Permission } from '../../src/auth/permissions.ts';
import { F, FormProblem, Submit, useForm, Values } from './form.tsx';
import { compact, DataList, type Column, type FilterDef, type FilterValues, type Page } from './list.tsx';
import { can, type Session } from './session.ts';
import { BusyButton, ErrorBox, useAction } from './ui.tsx';
import { cToInput, kgToInput, massLabel, tempLabel } from './units.ts';

/**
 * A list with its create and edit forms, from a description of the fields: what most catalog pages are. Each field
 * names its input path (`address.city`), so a problem the service names at that path is shown at the field.
 */
export type FieldType = 'text' | 'number' | 'int' | 'decimal' | 'kg' | 'tempC' | 'select' | 'multi' | 'check' | 'date' | 'email' | 'textarea' | 'list';

export interface FieldSpec<T = any> {
  name: string;
  label: string;
  type?: FieldType;
  options?: [string, string][];
  required?: boolean;
  hint?: string;
  /** Only when creating (a code that never changes). */
  createOnly?: boolean;
  /** The stored value, for editing (default: the row's value at the same path). */
  value?: (row: T) => unknown;
}

const get = (row: any, path: string) => path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), row);
function set(target: Record<string, any>, path: string, value: unknown) {
  const keys = path.split('.');
  let o = target;
  for (const k of keys.slice(0, -1)) o = o[k] ??= {};
  o[keys.at(-1)!] = value;
}

/** The operation's input from the form: empty fields absent when creating, cleared (null) when editing a stored value. */
export function readFields(fields: FieldSpec[], v: Values, row?: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const f of fields) {
    if (row && f.createOnly) continue;
    let value: unknown;
    switch (f.type ?? 'text') {
      case 'number':
        value = v.num(f.name);
        break;
      case 'int':
        value = v.int(f.name);
        break;
      case 'decimal':
        value = v.decimal(f.name);
        break;
      case 'kg':
        value = v.kg(f.name);
        break;
      case 'tempC':
        value = v.tempC(f.name);
        break;
      case 'check':
        value = v.bool(f.name);
        break;
      case 'multi':
        value = v.all(f.name);
        if (!row && (value as string[]).length === 0) value = undefined;
        break;
      case 'list':
        value = v.str(f.name)?.split(',').map((s) => s.trim()).filter(Boolean);
        if (row && value === undefined) value = [];
        break;
      default:
        value = v.str(f.name);
    }
    if (value === undefined && row) {
      const before = f.value ? f.value(row) : get(row, f.name);
      if (before !== null && before !== undefined && before !== '') value = null;
      else continue;
    }
    if (value === undefined) continue;
    set(input, f.name, value);
  }
  return input;
}

function initial(f: FieldSpec, row?: Record<string, unknown>): unknown {
  if (!row) return undefined;
  const v = f.value ? f.value(row) : get(row, f.name);
  if (f.type === 'kg') return kgToInput(v as string);
  if (f.type === 'tempC') return cToInput(v as number);
  if (f.type === 'list' && Array.isArray(v)) return v.join(', ');
  return v;
}

export function SpecFields({ form, fields, row }: { form: ReturnType<typeof useForm>; fields: FieldSpec[]; row?: Record<string, unknown> }) {
  return (
    <>
      {fields
        .filter((f) => !(row && f.createOnly))
        .map((f) => {
          const type = f.type ?? 'text';
          const value = initial(f, row);
          const label = type === 'kg' ? `${f.label} (${massLabel()})` : type === 'tempC' ? `${f.label} (${tempLabel()})` : f.label;
          const common = { name: f.name, required: f.required && !(row && type === 'select') };
          let input: ComponentChildren;
          if (type === 'select' || type === 'multi')
            input = (
              <select {...common} multiple={type === 'multi'}>
                {type === 'select' && !f.required ? <option value="">—</option> : null}
                {f.options!.map(([v, l]) => (
                  <option value={v} selected={type === 'multi' ? Array.isArray(value) && value.includes(v) : value === v}>
                    {l}
                  </option>
                ))}
              </select>
            );
          else if (type === 'check') input = <input type="checkbox" name={f.name} defaultChecked={value === true} />;
          else if (type === 'textarea') input = <textarea {...common} defaultValue={(value as string) ?? ''} />;
          else
            input = (
              <input
                {...common}
                type={(type === 'date' ? 'date' : type === 'email' ? 'email' : 'text') as 'text'}
                inputMode={['number', 'int', 'decimal', 'kg', 'tempC'].includes(type) ? 'decimal' : undefined}
                defaultValue={value === undefined || value === null ? '' : String(value)}
              />
            );
          return (
            <F form={form} name={f.name} label={label} hint={f.hint}>
              {input}
            </F>
          );
        })}
    </>
  );
}

/** A form of described fields that runs one operation and says so when it is done. */
export function SpecForm<R>({
  fields,
  row,
  title,
  submit,
  busyLabel,
  run,
  done,
  onCancel,
  name,
}: {
  fields: FieldSpec[];
  row?: Record<string, unknown>;
  title: string;
  submit: string;
  busyLabel: string;
  run: (input: Record<string, unknown>) => Promise<R>;
  done: (result: R) => void;
  onCancel?: () => void;
  name: string;
}) {
  const form = useForm();
  return (
    <form class="card" data-form={name} onSubmit={form.submit(busyLabel, (v) => run(readFields(fields, v, row)), (r) => done(r))} noValidate>
      <h2>{title}</h2>
      <SpecFields form={form} fields={fields} row={row} />
      <FormProblem form={form} />
      <div class="actions">
        <Submit form={form}>{submit}</Submit>
        {onCancel ? (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

export interface Entity<T extends { id: string }> {
  /** Plural, lower case ("locations"); the list's data-list is `name`. */
  what: string;
  one: string;
  name: string;
  write: Permission;
  list(session: Session, filter: Record<string, unknown>, cursor: string | undefined, limit: number): Promise<Page<T>>;
  filters?: FilterDef[];
  initialFilter?: FilterValues;
  columns: Column<T>[];
  fields: FieldSpec<T>[];
  create(session: Session, input: Record<string, unknown>): Promise<unknown>;
  update?(session: Session, id: string, input: Record<string, unknown>): Promise<unknown>;
  /** Archive (or deactivate) a row: the label, when it is offered, and the call. */
  archive?: { label: string; offered(row: T): boolean; run(session: Session, row: T): Promise<unknown> };
  /** Shown after a create (a token shown once). */
  created?(result: any): ComponentChildren;
  /** Further buttons on a row. */
  rowActions?(session: Session, row: T, reload: () => void): ComponentChildren;
}

/** The list of an entity with "New …", and per row "Edit" and "Archive" where the credential may write. */
export function EntityPage<T extends { id: string }>({ session, entity }: { session: Session; entity: Entity<T> }) {
  const [mode, setMode] = useState<{ kind: 'new' } | { kind: 'edit'; row: T } | null>(null);
  const [version, setVersion] = useState(0);
  const [after, setAfter] = useState<ComponentChildren>(null);
  const archive = useAction();
  const writable = can(session, entity.write);
  const reload = () => setVersion((n) => n + 1);
  const columns: Column<T>[] = writable
    ? [
        ...entity.columns,
        {
          label: 'Actions',
          noCsv: true,
          render: (row) => (
            <span class="row-actions">
              {entity.update ? (
                <button type="button" class="small secondary" onClick={() => setMode({ kind: 'edit', row })} aria-label={`Edit ${rowName(row)}`}>
                  Edit
                </button>
              ) : null}
              {entity.archive?.offered(row) ? (
                <BusyButton
                  class="small danger"
                  busy={archive.busy}
                  busyLabel="…"
                  onClick={() => void archive.run(`${entity.archive!.label}…`, () => entity.archive!.run(session, row)).then((r) => r !== undefined && reload())}
                >
                  {entity.archive.label}
                </BusyButton>
              ) : null}
              {entity.rowActions?.(session, row, reload)}
            </span>
          ),
        },
      ]
    : entity.columns;
  return (
    <section data-entity={entity.name}>
      {writable ? (
        <div class="actions">
          <button type="button" onClick={() => (setMode({ kind: 'new' }), setAfter(null))}>
            New {entity.one}
          </button>
        </div>
      ) : null}
      {after ? <div class="notice" role="status">{after}</div> : null}
      {mode ? (
        <SpecForm
          key={mode.kind === 'edit' ? mode.row.id : 'new'}
          name={mode.kind === 'edit' ? `edit-${entity.name}` : `new-${entity.name}`}
          title={mode.kind === 'edit' ? `Edit ${rowName(mode.row)}` : `New ${entity.one}`}
          fields={entity.fields}
          row={mode.kind === 'edit' ? (mode.row as never) : undefined}
          submit={mode.kind === 'edit' ? 'Save' : 'Create'}
          busyLabel={mode.kind === 'edit' ? 'Saving…' : 'Creating…'}
          run={(input) => (mode.kind === 'edit' ? entity.update!(session, mode.row.id, input) : entity.create(session, input))}
          done={(result) => {
            setAfter(mode.kind === 'new' ? (entity.created?.(result) ?? `Created.`) : 'Saved.');
            setMode(null);
            reload();
          }}
          onCancel={() => setMode(null)}
        />
      ) : null}
      <ErrorBox error={archive.error} />
      <DataList
        name={entity.name}
        what={entity.what}
        filters={entity.filters}
        initial={entity.initialFilter}
        deps={[session, version]}
        load={(filter, cursor, limit) => entity.list(session, compact(filter), cursor, limit)}
        columns={columns}
        rowKey={(row) => row.id}
        rowAttrs={(row) => ({ 'data-id': row.id })}
      />
    </section>
  );
}

const rowName = (row: any) => row.name ?? row.code ?? row.sku ?? row.id;
