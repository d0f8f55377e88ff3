import { useState } from 'preact/hooks';
import { FirstcrackError } from '../../../clients/typescript/src/index.ts';
import type { AreaProps } from '../areas.tsx';
import { SubNav } from '../areas.tsx';
import { EntityPage, SpecForm, type Entity } from '../crud.tsx';
import { F, FormProblem, Submit, useForm } from '../form.tsx';
import { call, can, type Session } from '../session.ts';
import { Badge, kg, LoadState, useLoad } from '../ui.tsx';
import { formatNumber, massLabel } from '../units.ts';

const page = (cursor: string | undefined, limit: number) => ({ limit, ...(cursor ? { cursor } : {}) });
const opts = (values: readonly string[]): [string, string][] => values.map((v) => [v, v.replace(/_/g, ' ')]);
const MATERIAL_KINDS = ['bag', 'label', 'valve', 'box', 'tin', 'capsule', 'tape', 'insert', 'merch', 'other'];
const qty = (v: string | null) => (v === null ? '—' : formatNumber(Number(v), 3));

function AdjustMaterial({ session, row, reload }: { session: Session; row: any; reload: () => void }) {
  const [open, setOpen] = useState(false);
  if (!open)
    return (
      <button type="button" class="small secondary" onClick={() => setOpen(true)} aria-label={`Receive or adjust ${row.sku}`}>
        Adjust
      </button>
    );
  return (
    <SpecForm
      name={`adjust-${row.sku}`}
      title={`Adjust ${row.sku}`}
      submit="Save"
      busyLabel="Saving…"
      fields={[
        { name: 'reason', label: 'Reason', type: 'select', required: true, options: opts(['receive', 'adjust', 'shrinkage', 'write_off', 'recount', 'return']) },
        { name: 'deltaQty', label: 'Change (units; negative for a loss)', type: 'decimal', required: true },
        { name: 'comment', label: 'Comment' },
      ]}
      run={(input) => call(session, 'inventory.material.adjustMaterialQuantity', { id: row.id, ...input } as never)}
      done={() => (setOpen(false), reload())}
      onCancel={() => setOpen(false)}
    />
  );
}

const materials: Entity<any> = {
  what: 'materials',
  one: 'material',
  name: 'materials',
  write: 'inventory.material.write',
  list: (s, filter, cursor, limit) => call(s, 'inventory.material.listMaterials', { filter: filter as never, page: page(cursor, limit) }),
  filters: [
    { name: 'q', label: 'Search materials', type: 'search', placeholder: 'SKU or name' },
    { name: 'kind', label: 'Kind', type: 'select', options: [['', 'any kind'], ...opts(MATERIAL_KINDS)] },
    { name: 'belowReorderPoint', label: 'to reorder', type: 'check' },
  ],
  columns: [
    { label: 'SKU', key: 'sku', render: (r) => <span class="code">{r.sku}</span> },
    { label: 'Name', key: 'name' },
    { label: 'Kind', key: 'kind', wide: true },
    { label: 'On hand', num: true, csv: (r) => r.onHand, render: (r) => <span data-on-hand={r.onHand}>{qty(r.onHand)}</span> },
    { label: 'Reorder at', num: true, wide: true, csv: (r) => r.reorderPoint, render: (r) => (r.belowReorderPoint ? <Badge tone="warn">{qty(r.reorderPoint)}</Badge> : qty(r.reorderPoint)) },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'sku', label: 'SKU', required: true },
    { name: 'kind', label: 'Kind', type: 'select', required: true, options: opts(MATERIAL_KINDS) },
    { name: 'reorderPoint', label: 'Reorder point (units)', type: 'decimal' },
    { name: 'reorderQty', label: 'Reorder quantity (units)', type: 'decimal' },
    { name: 'leadTimeDays', label: 'Lead time (days)', type: 'int' },
    { name: 'unitCost', label: 'Unit cost', type: 'decimal' },
    { name: 'currency', label: 'Currency' },
  ],
  create: (s, input) => call(s, 'inventory.material.createMaterial', input as never),
  rowActions: (session, row, reload) => <AdjustMaterial session={session} row={row} reload={reload} />,
};

/** A product's bill of materials: the current version's lines, a new version edited line by line, and the explosion for a planned quantity. */
function BillOfMaterials({ session }: { session: Session }) {
  const products = useLoad(() => call(session, 'catalog.product.listProducts', { page: { limit: 100 } }), [session]);
  const mats = useLoad(() => call(session, 'inventory.material.listMaterials', { page: { limit: 100 } }), [session]);
  const [productId, setProductId] = useState('');
  const [version, setVersion] = useState(0);
  const bom = useLoad(
    () =>
      productId
        ? call(session, 'inventory.material.getBillOfMaterials', { productId }).catch((e) => {
            if (e instanceof FirstcrackError && e.code === 'no_bill_of_materials') return null;
            throw e;
          })
        : Promise.resolve(null),
    [session, productId, version],
  );
  const [lines, setLines] = useState<number[]>([0]);
  const [next, setNext] = useState(1);
  const editor = useForm();
  const explode = useForm();
  const [explosion, setExplosion] = useState<any>(null);
  const b = bom.data;
  return (
    <>
      <LoadState state={products} what="products" />
      {products.data ? (
        <label class="check">
          Product{' '}
          <select value={productId} onChange={(e) => (setProductId((e.target as HTMLSelectElement).value), setExplosion(null))}>
            <option value="">—</option>
            {products.data.items.map((p) => (
              <option value={p.id}>
                {p.name} ({p.sku})
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {productId ? (
        <>
          <LoadState state={bom} what="the bill of materials" />
          {b ? (
            <section class="card spaced" data-bom-version={b.version}>
              <h2>
                Version {b.version}: {b.name} <span class="muted">per {b.yieldQty}</span>
              </h2>
              <ul class="plain">
                {b.lines.map((l) => (
                  <li>
                    {l.materialSku} {l.materialName}: {qty(l.quantity)} {Number(l.wastePct) ? `(+${l.wastePct} % waste)` : ''}
                  </li>
                ))}
              </ul>
            </section>
          ) : bom.loading ? null : (
            <p class="muted">No bill of materials yet.</p>
          )}
          {can(session, 'inventory.material.write') && mats.data ? (
            <form
              class="card spaced"
              data-form="bom"
              noValidate
              onSubmit={editor.submit(
                'Publishing…',
                (v) =>
                  call(session, 'inventory.material.setBillOfMaterials', {
                    productId,
                    name: v.text('name'),
                    yieldQty: v.int('yieldQty') ?? 1,
                    lines: lines.map((n) => ({ materialId: v.text(`m${n}`), quantity: v.decimal(`q${n}`) ?? '', ...(v.decimal(`w${n}`) ? { wastePct: v.decimal(`w${n}`) } : {}) })) as never,
                  } as never),
                () => setVersion((n) => n + 1),
              )}
            >
              <h2>Publish a new version</h2>
              <div class="pair">
                <F form={editor} name="name" label="Name">
                  <input name="name" defaultValue={b?.name ?? 'Standard'} />
                </F>
                <F form={editor} name="yieldQty" label="Per how many products">
                  <input name="yieldQty" inputMode="numeric" defaultValue={String(b?.yieldQty ?? 1)} />
                </F>
              </div>
              {lines.map((n, i) => (
                <div class="pair line" data-bom-line={i}>
                  <F form={editor} name={`lines.${i}.materialId`} label={`Line ${i + 1}: material`}>
                    <select name={`m${n}`}>
                      {mats.data!.items.map((m) => (
                        <option value={m.id}>
                          {m.sku} {m.name}
                        </option>
                      ))}
                    </select>
                  </F>
                  <F form={editor} name={`lines.${i}.quantity`} label="Quantity">
                    <input name={`q${n}`} inputMode="decimal" />
                  </F>
                  <F form={editor} name={`lines.${i}.wastePct`} label="Waste (%)">
                    <input name={`w${n}`} inputMode="decimal" />
                  </F>
                  {lines.length > 1 ? (
                    <button type="button" class="small secondary" aria-label={`Remove line ${i + 1}`} onClick={() => setLines(lines.filter((m) => m !== n))}>
                      Remove
                    </button>
                  ) : null}
                </div>
              ))}
              <div class="actions">
                <button type="button" class="secondary" onClick={() => (setLines([...lines, next]), setNext(next + 1))}>
                  Add a line
                </button>
                <FormProblem form={editor} />
                <Submit form={editor}>Publish</Submit>
              </div>
            </form>
          ) : null}
          {b ? (
            <form
              class="card spaced"
              data-form="explode"
              noValidate
              onSubmit={explode.submit('Working out the materials…', (v) => call(session, 'inventory.material.explodeMaterialRequirements', { productId, quantity: v.int('quantity') as number }), setExplosion)}
            >
              <h2>Materials for a planned quantity</h2>
              <F form={explode} name="quantity" label="Products planned">
                <input name="quantity" inputMode="numeric" />
              </F>
              <FormProblem form={explode} />
              <Submit form={explode}>Explode</Submit>
              {explosion ? (
                <div data-explosion={explosion.summary.canProduce ? 'ok' : 'short'}>
                  <p>
                    {explosion.summary.canProduce ? <Badge tone="ok">enough material</Badge> : <Badge tone="bad">{explosion.summary.shortMaterialCount} short</Badge>} at most{' '}
                    {explosion.summary.maxProducibleQuantity} can be made now.
                  </p>
                  <div class="table-wrap">
                    <table class="list" data-list="explosion">
                      <thead>
                        <tr>
                          <th>Material</th>
                          <th class="num">Required</th>
                          <th class="num">On hand</th>
                          <th class="num">Short by</th>
                        </tr>
                      </thead>
                      <tbody>
                        {explosion.materials.map((m: any) => (
                          <tr data-short={String(Number(m.shortBy) > 0)}>
                            <td>
                              {m.sku} {m.fallsBelowReorderPoint ? <Badge tone="warn">reorder</Badge> : null}
                            </td>
                            <td class="num">{qty(m.required)}</td>
                            <td class="num">{qty(m.onHand)}</td>
                            <td class="num">{qty(m.shortBy)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </div>
              ) : null}
            </form>
          ) : null}
        </>
      ) : null}
    </>
  );
}

/** A blend's availability for a quantity: each component's need against what its lot has free. */
function Availability({ session, row }: { session: Session; row: any }) {
  const form = useForm();
  const [answer, setAnswer] = useState<any>(null);
  return (
    <form class="inline-form" data-form={`availability-${row.code}`} noValidate onSubmit={form.submit('Checking…', (v) => call(session, 'inventory.blend.validateBlendAvailability', { blendId: row.id, requestedKg: v.kg('requestedKg') ?? '' }), setAnswer)}>
      <F form={form} name="requestedKg" label={`Check ${massLabel()}`}>
        <input name="requestedKg" inputMode="decimal" size={6} />
      </F>
      <Submit form={form}>Check</Submit>
      <FormProblem form={form} />
      {answer ? (
        <div data-availability={answer.available ? 'available' : 'short'}>
          {answer.available ? <Badge tone="ok">available</Badge> : <Badge tone="bad">short {kg(answer.totalShortKg)}</Badge>} needs {kg(answer.totalNeededKg)} green
          <ul class="plain">
            {answer.components.map((c: any) => (
              <li>
                {c.lotCode} {c.ratioPct} %: {kg(c.neededKg)} of {kg(c.availableKg)} {c.quarantined ? <Badge tone="bad">quarantined</Badge> : null}
                {Number(c.shortKg) > 0 ? <Badge tone="bad">short {kg(c.shortKg)}</Badge> : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </form>
  );
}

function NewBlend({ session, onDone }: { session: Session; onDone: () => void }) {
  const lots = useLoad(() => call(session, 'inventory.green.listGreenLots', { page: { limit: 100 } }), [session]);
  const form = useForm();
  const [lines, setLines] = useState([0, 1]);
  const [next, setNext] = useState(2);
  if (!lots.data) return <LoadState state={lots} what="lots" />;
  return (
    <form
      class="card"
      data-form="new-blend"
      noValidate
      onSubmit={form.submit(
        'Creating the blend…',
        (v) =>
          call(session, 'inventory.blend.createBlend', {
            name: v.text('name'),
            code: v.text('code'),
            blendType: v.text('blendType') as never,
            ...(v.str('roastLevel') ? { roastLevel: v.str('roastLevel') as never } : {}),
            components: lines.map((n) => ({ greenLotId: v.text(`lot${n}`), ratioPct: v.decimal(`ratio${n}`) ?? '' })) as never,
          }),
        onDone,
      )}
    >
      <h2>New blend</h2>
      <div class="pair">
        <F form={form} name="name" label="Name">
          <input name="name" />
        </F>
        <F form={form} name="code" label="Code">
          <input name="code" />
        </F>
      </div>
      <div class="pair">
        <F form={form} name="blendType" label="Blended">
          <select name="blendType">
            <option value="pre_roast">before roasting</option>
            <option value="post_roast">after roasting</option>
          </select>
        </F>
        <F form={form} name="roastLevel" label="Roast level">
          <select name="roastLevel">
            <option value="">—</option>
            <option value="light">light</option>
            <option value="medium">medium</option>
            <option value="dark">dark</option>
          </select>
        </F>
      </div>
      <F form={form} name="components" label="">
        <span />
      </F>
      {lines.map((n, i) => (
        <div class="pair line">
          <F form={form} name={`components.${i}.greenLotId`} label={`Component ${i + 1}: lot`}>
            <select name={`lot${n}`}>
              {lots.data!.items.map((l) => (
                <option value={l.id}>
                  {l.lotCode} {l.name}
                </option>
              ))}
            </select>
          </F>
          <F form={form} name={`components.${i}.ratioPct`} label="Share (%)">
            <input name={`ratio${n}`} inputMode="decimal" />
          </F>
          {lines.length > 1 ? (
            <button type="button" class="small secondary" aria-label={`Remove component ${i + 1}`} onClick={() => setLines(lines.filter((m) => m !== n))}>
              Remove
            </button>
          ) : null}
        </div>
      ))}
      <div class="actions">
        <button type="button" class="secondary" onClick={() => (setLines([...lines, next]), setNext(next + 1))}>
          Add a component
        </button>
        <Submit form={form}>Create blend</Submit>
      </div>
      <FormProblem form={form} />
    </form>
  );
}

function Blends({ session }: { session: Session }) {
  const [creating, setCreating] = useState(false);
  const [version, setVersion] = useState(0);
  const entity: Entity<any> = {
    what: 'blends',
    one: 'blend',
    name: 'blends',
    write: 'inventory.blend.write',
    list: (s, filter, cursor, limit) => call(s, 'inventory.blend.listBlends', { filter: filter as never, page: page(cursor, limit) }),
    filters: [{ name: 'q', label: 'Search blends', type: 'search', placeholder: 'Name or code' }],
    columns: [
      { label: 'Code', key: 'code', render: (r) => <span class="code">{r.code}</span> },
      { label: 'Name', key: 'name' },
      { label: 'Type', key: 'blendType', wide: true, render: (r) => r.blendType.replace('_', '-') },
      { label: 'Components', csv: (r) => r.components.map((c: any) => `${c.lotCode} ${c.ratioPct}%`).join('; '), render: (r) => r.components.map((c: any) => `${c.lotCode} ${c.ratioPct} %`).join(', ') },
      { label: 'Availability', noCsv: true, render: (r) => <Availability session={session} row={r} /> },
    ],
    fields: [],
    create: async () => null,
  };
  return (
    <>
      {can(session, 'inventory.blend.write') ? (
        creating ? (
          <NewBlend session={session} onDone={() => (setCreating(false), setVersion((n) => n + 1))} />
        ) : (
          <div class="actions">
            <button type="button" onClick={() => setCreating(true)}>
              New blend
            </button>
          </div>
        )
      ) : null}
      <EntityPage key={version} session={{ ...session, permissions: session.permissions.filter((p) => p !== 'inventory.blend.write') }} entity={entity} />
    </>
  );
}

export function view({ session, parts: [, tab] }: AreaProps) {
  const tabs: [string, string, boolean][] = [
    ['materials', 'Packaging materials', can(session, 'inventory.material.read')],
    ['bom', 'Bills of materials', can(session, 'inventory.material.read') && can(session, 'catalog.product.read')],
    ['blends', 'Blends', can(session, 'inventory.blend.read')],
  ];
  const current = tabs.find(([t, , ok]) => t === tab && ok) ?? tabs.find(([, , ok]) => ok);
  if (!current) return <h1>Inventory</h1>;
  return (
    <>
      <h1>{current[1]}</h1>
      <SubNav current={`/inventory/${current[0]}`} items={tabs.map(([t, l, ok]) => [`/inventory/${t}`, l, ok])} />
      {current[0] === 'materials' ? <EntityPage session={session} entity={materials} /> : current[0] === 'bom' ? <BillOfMaterials session={session} /> : <Blends session={session} />}
    </>
  );
}
