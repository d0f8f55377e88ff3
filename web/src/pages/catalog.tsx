import type { AreaProps } from '../areas.tsx';
import { SubNav } from '../areas.tsx';
import { EntityPage, type Entity } from '../crud.tsx';
import { call, can, type Session } from '../session.ts';
import { useState } from 'preact/hooks';
import { Badge, BusyButton, ErrorBox, kg, useAction } from '../ui.tsx';
import { formatNumber } from '../units.ts';

const opts = (values: readonly string[]): [string, string][] => values.map((v) => [v, v.replace(/_/g, ' ')]);
const LOCATION_KINDS = ['roastery', 'warehouse', 'cafe', 'lab', 'transit', 'external'];
const PARTNER_TYPES = ['supplier', 'importer', 'exporter', 'cooperative', 'producer', 'mill', 'broker', 'warehouse', 'customer'];
const PRODUCER_KINDS = ['farm', 'cooperative', 'washing_station', 'estate', 'smallholder_group'];
const MACHINE_TYPES = ['drum', 'fluid_bed', 'recirculating', 'sample', 'tangential', 'centrifugal'];
const CONNECTIVITIES = ['none', 'logger', 'bridge', 'modbus', 'serial', 'cloud_api'];
const FORMATS = ['whole_bean', 'ground_espresso', 'ground_filter', 'ground_french_press', 'capsule', 'instant', 'drip_bag', 'bulk'];
const page = (cursor: string | undefined, limit: number) => ({ limit, ...(cursor ? { cursor } : {}) });
const active = (row: { isActive: boolean; archivedAt?: string | null }) =>
  row.archivedAt ? <Badge tone="bad">archived</Badge> : row.isActive ? <Badge tone="ok">active</Badge> : <Badge>inactive</Badge>;
const activeCsv = (row: { isActive: boolean; archivedAt?: string | null }) => (row.archivedAt ? 'archived' : row.isActive ? 'active' : 'inactive');

const locations: Entity<any> = {
  what: 'locations',
  one: 'location',
  name: 'locations',
  write: 'catalog.location.write',
  list: (s, filter, cursor, limit) => call(s, 'catalog.location.listLocations', { filter: filter as never, page: page(cursor, limit) }),
  filters: [
    { name: 'q', label: 'Search locations', type: 'search', placeholder: 'Name or code' },
    { name: 'kind', label: 'Kind', type: 'select', options: [['', 'any kind'], ...opts(LOCATION_KINDS)] },
    { name: 'includeArchived', label: 'archived too', type: 'check' },
  ],
  columns: [
    { label: 'Code', key: 'code', render: (r) => <span class="code">{r.code}</span> },
    { label: 'Name', key: 'name' },
    { label: 'Kind', key: 'kind' },
    { label: 'City', csv: (r) => r.address?.city, render: (r) => r.address?.city ?? '—', wide: true },
    { label: 'Status', csv: activeCsv, render: active },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'code', label: 'Code', required: true, createOnly: true, hint: 'Letters, digits and dashes; it never changes.' },
    { name: 'kind', label: 'Kind', type: 'select', options: opts(LOCATION_KINDS), required: true },
    { name: 'address.line1', label: 'Street' },
    { name: 'address.city', label: 'City' },
    { name: 'address.postalCode', label: 'Postal code' },
    { name: 'address.country', label: 'Country (ISO code, e.g. DE)' },
    { name: 'timezone', label: 'Time zone (e.g. Europe/Berlin)' },
  ],
  create: (s, input) => call(s, 'catalog.location.createLocation', input as never),
  update: (s, id, input) => call(s, 'catalog.location.updateLocation', { id, ...input } as never),
  archive: { label: 'Archive', offered: (r) => !r.archivedAt, run: (s, r) => call(s, 'catalog.location.archiveLocation', { id: r.id }) },
};

const partners: Entity<any> = {
  what: 'partners',
  one: 'partner',
  name: 'partners',
  write: 'catalog.party.write',
  list: (s, filter, cursor, limit) => call(s, 'catalog.party.listPartners', { filter: filter as never, page: page(cursor, limit) }),
  filters: [
    { name: 'q', label: 'Search partners', type: 'search', placeholder: 'Name or code' },
    { name: 'type', label: 'Type', type: 'select', options: [['', 'any type'], ...opts(PARTNER_TYPES)] },
  ],
  columns: [
    { label: 'Code', key: 'code', render: (r) => <span class="code">{r.code}</span> },
    { label: 'Name', key: 'name' },
    { label: 'Types', csv: (r) => r.types.join(' '), render: (r) => r.types.join(', ') },
    { label: 'Country', key: 'country', wide: true },
    { label: 'Contact', key: 'contactEmail', wide: true },
    { label: 'Status', csv: activeCsv, render: active },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'code', label: 'Code', required: true, createOnly: true },
    { name: 'types', label: 'Types (choose one or more)', type: 'multi', options: opts(PARTNER_TYPES), required: true },
    { name: 'country', label: 'Country (ISO code)' },
    { name: 'defaultCurrency', label: 'Currency (e.g. EUR)' },
    { name: 'paymentTermsDays', label: 'Payment terms (days)', type: 'int' },
    { name: 'contactEmail', label: 'Contact email', type: 'email' },
    { name: 'contactPhone', label: 'Contact phone' },
    { name: 'website', label: 'Website' },
    { name: 'notes', label: 'Notes', type: 'textarea' },
  ],
  create: (s, input) => call(s, 'catalog.party.createPartner', input as never),
  update: (s, id, input) => call(s, 'catalog.party.updatePartner', { id, ...input } as never),
  archive: { label: 'Deactivate', offered: (r) => r.isActive, run: (s, r) => call(s, 'catalog.party.updatePartner', { id: r.id, isActive: false }) },
};

const producers: Entity<any> = {
  what: 'producers',
  one: 'producer',
  name: 'producers',
  write: 'catalog.party.write',
  list: (s, filter, cursor, limit) => call(s, 'catalog.party.listProducers', { filter: filter as never, page: page(cursor, limit) }),
  filters: [
    { name: 'q', label: 'Search producers', type: 'search', placeholder: 'Name or code' },
    { name: 'kind', label: 'Kind', type: 'select', options: [['', 'any kind'], ...opts(PRODUCER_KINDS)] },
  ],
  columns: [
    { label: 'Code', key: 'code', render: (r) => <span class="code">{r.code}</span> },
    { label: 'Name', key: 'name' },
    { label: 'Kind', key: 'kind', wide: true },
    { label: 'Origin', csv: (r) => [r.country, r.region].filter(Boolean).join(' / '), render: (r) => [r.country, r.region].filter(Boolean).join(' · ') || '—' },
    {
      label: 'Coordinates',
      csv: (r) => (r.latitude === null ? '' : `${r.latitude} ${r.longitude}`),
      render: (r) => (r.latitude === null || r.longitude === null ? '—' : <span data-coordinates>{`${formatNumber(r.latitude, 5)}, ${formatNumber(r.longitude, 5)}`}</span>),
    },
    { label: 'Altitude', wide: true, csv: (r) => [r.altitudeMinM, r.altitudeMaxM].filter((v) => v !== null).join('-'), render: (r) => (r.altitudeMinM === null ? '—' : `${r.altitudeMinM}–${r.altitudeMaxM ?? r.altitudeMinM} m`) },
    { label: 'Status', csv: activeCsv, render: active },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'code', label: 'Code', required: true, createOnly: true },
    { name: 'kind', label: 'Kind', type: 'select', options: opts(PRODUCER_KINDS), required: true },
    { name: 'country', label: 'Country (ISO code)' },
    { name: 'region', label: 'Region' },
    { name: 'latitude', label: 'Latitude (−90 to 90)', type: 'number' },
    { name: 'longitude', label: 'Longitude (−180 to 180)', type: 'number' },
    { name: 'altitudeMinM', label: 'Altitude from (m)', type: 'int' },
    { name: 'altitudeMaxM', label: 'Altitude to (m)', type: 'int' },
    { name: 'varieties', label: 'Varieties (comma-separated)', type: 'list' },
    { name: 'processMethods', label: 'Processes (comma-separated)', type: 'list' },
  ],
  create: (s, input) => call(s, 'catalog.party.createProducer', input as never),
  update: (s, id, input) => call(s, 'catalog.party.updateProducer', { id, ...input } as never),
  archive: { label: 'Deactivate', offered: (r) => r.isActive, run: (s, r) => call(s, 'catalog.party.updateProducer', { id: r.id, isActive: false }) },
};

/** A bridge token is shown once, when issued: the service keeps only its hash. */
function BridgeToken({ session, machineId }: { session: Session; machineId: string }) {
  const action = useAction();
  const [token, setToken] = useState<{ token: string; expiresAt: string } | null>(null);
  if (token)
    return (
      <div class="secret" data-bridge-token>
        Bridge token (shown once, copy it now): <code>{token.token}</code>
      </div>
    );
  return (
    <>
      <BusyButton class="small secondary" busy={action.busy} busyLabel="Issuing…" onClick={() => void action.run('Issuing a bridge token…', () => call(session, 'catalog.machine.issueMachineBridgeToken', { machineId })).then((t) => t && setToken(t))}>
        Issue bridge token
      </BusyButton>
      <ErrorBox error={action.error} />
    </>
  );
}

const machines: Entity<any> = {
  what: 'machines',
  one: 'machine',
  name: 'machines',
  write: 'catalog.machine.write',
  list: (s, filter, cursor, limit) => call(s, 'catalog.machine.listMachines', { filter: filter as never, page: page(cursor, limit) }),
  filters: [
    { name: 'q', label: 'Search machines', type: 'search', placeholder: 'Name or code' },
    { name: 'connectivity', label: 'Connectivity', type: 'select', options: [['', 'any connectivity'], ...opts(CONNECTIVITIES)] },
  ],
  columns: [
    { label: 'Code', key: 'code', render: (r) => <span class="code">{r.code}</span> },
    { label: 'Name', key: 'name' },
    { label: 'Type', key: 'machineType', wide: true },
    { label: 'Capacity', num: true, csv: (r) => r.capacityKg, render: (r) => kg(r.capacityKg) },
    { label: 'Connectivity', key: 'connectivity', wide: true },
    { label: 'Status', csv: activeCsv, render: active },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'code', label: 'Code', required: true, createOnly: true },
    { name: 'brand', label: 'Brand' },
    { name: 'model', label: 'Model' },
    { name: 'machineType', label: 'Type', type: 'select', options: opts(MACHINE_TYPES) },
    { name: 'capacityKg', label: 'Capacity', type: 'kg' },
    { name: 'minBatchKg', label: 'Smallest batch', type: 'kg' },
    { name: 'maxBatchKg', label: 'Largest batch', type: 'kg' },
    { name: 'connectivity', label: 'Connectivity', type: 'select', options: opts(CONNECTIVITIES) },
    { name: 'installedAt', label: 'Installed on', type: 'date' },
  ],
  create: (s, input) => call(s, 'catalog.machine.registerMachine', input as never),
  update: (s, id, input) => call(s, 'catalog.machine.updateMachine', { id, ...input } as never),
  archive: { label: 'Deactivate', offered: (r) => r.isActive, run: (s, r) => call(s, 'catalog.machine.updateMachine', { id: r.id, isActive: false }) },
  rowActions: (session, row) => <BridgeToken session={session} machineId={row.id} />,
};

const products: Entity<any> = {
  what: 'products',
  one: 'product',
  name: 'products',
  write: 'catalog.product.write',
  list: (s, filter, cursor, limit) => call(s, 'catalog.product.listProducts', { filter: filter as never, page: page(cursor, limit) }),
  filters: [
    { name: 'q', label: 'Search products', type: 'search', placeholder: 'Name, SKU or barcode' },
    { name: 'format', label: 'Format', type: 'select', options: [['', 'any format'], ...opts(FORMATS)] },
  ],
  columns: [
    { label: 'SKU', key: 'sku', render: (r) => <span class="code">{r.sku}</span> },
    { label: 'Name', key: 'name' },
    { label: 'Format', key: 'format', wide: true },
    { label: 'Net weight', num: true, csv: (r) => r.netWeightKg, render: (r) => kg(r.netWeightKg) },
    { label: 'Price', num: true, wide: true, csv: (r) => r.listPrice, render: (r) => (r.listPrice ? `${r.listPrice} ${r.currency}` : '—') },
    { label: 'Status', csv: activeCsv, render: active },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'sku', label: 'SKU', required: true, createOnly: true },
    { name: 'format', label: 'Format', type: 'select', options: opts(FORMATS), required: true },
    { name: 'netWeightKg', label: 'Net weight', type: 'kg' },
    { name: 'listPrice', label: 'List price', type: 'decimal' },
    { name: 'currency', label: 'Currency (e.g. EUR)' },
    { name: 'barcode', label: 'Barcode (8 to 14 digits)' },
  ],
  create: (s, input) => call(s, 'catalog.product.createProduct', input as never),
  update: (s, id, input) => call(s, 'catalog.product.updateProduct', { id, ...input } as never),
  archive: { label: 'Deactivate', offered: (r) => r.isActive, run: (s, r) => call(s, 'catalog.product.updateProduct', { id: r.id, isActive: false }) },
};

const TABS = [
  ['locations', 'Locations', locations, 'catalog.location.read'],
  ['partners', 'Partners', partners, 'catalog.party.read'],
  ['producers', 'Producers', producers, 'catalog.party.read'],
  ['machines', 'Roasting machines', machines, 'catalog.machine.read'],
  ['products', 'Products', products, 'catalog.product.read'],
] as const;

export function view({ session, parts: [, tab] }: AreaProps) {
  const allowed = TABS.filter(([, , , p]) => can(session, p));
  const current = allowed.find(([t]) => t === tab) ?? allowed[0];
  if (!current) return <h1>Catalog</h1>;
  const [key, label, entity] = current;
  return (
    <>
      <h1>{label}</h1>
      <SubNav current={`/catalog/${key}`} items={allowed.map(([t, l]) => [`/catalog/${t}`, l])} />
      <EntityPage key={key} session={session} entity={entity} />
    </>
  );
}
