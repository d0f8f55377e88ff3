import type { VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Permission } from '../../src/auth/permissions.ts';
import { can, type Session } from './session.ts';
import { ErrorBox, Loading } from './ui.tsx';

/**
 * The console's areas: the one list the navigation and the router both read. Each area's code is its own chunk,
 * fetched with `import()` the first time the area is opened, so that the first load (the dashboard) carries only
 * the shell and the dashboard, however many areas there are.
 *
 * `parts` are the path's segments from the area's own (`#/lots/lot_1` → ['lots', 'lot_1']).
 */
export interface AreaProps {
  session: Session;
  parts: string[];
}
export interface AreaModule {
  view(props: AreaProps): VNode | null;
}
export interface Area {
  /** The first path segment ('' for the dashboard); `also` are further segments the same area answers. */
  path: string;
  also?: string[];
  label: string;
  /** Shown when the credential holds any of these (none: always). */
  anyOf: Permission[];
  load(): Promise<AreaModule>;
}

export const AREAS: Area[] = [
  { path: '', label: 'Dashboard', anyOf: [], load: () => import('./pages/dashboard.tsx').then((m) => ({ view: ({ session }) => <m.Dashboard session={session} /> })) },
  {
    path: 'catalog',
    label: 'Catalog',
    anyOf: ['catalog.location.read', 'catalog.party.read', 'catalog.machine.read', 'catalog.product.read'],
    load: () => import('./pages/catalog.tsx'),
  },
  {
    path: 'lots',
    label: 'Green lots',
    anyOf: ['inventory.green.read'],
    load: () => import('./pages/lots.tsx').then((m) => ({ view: ({ session, parts: [, id] }) => (id === 'new' ? <m.NewLot session={session} /> : id ? <m.LotDetail key={id} session={session} id={id} /> : <m.Lots session={session} />) })),
  },
  { path: 'roasted', label: 'Roasted lots', anyOf: ['inventory.roast.read'], load: () => import('./pages/lots.tsx').then((m) => ({ view: ({ session }) => <m.RoastedLots session={session} /> })) },
  { path: 'inventory', label: 'Materials & blends', anyOf: ['inventory.material.read', 'inventory.blend.read'], load: () => import('./pages/inventory.tsx') },
  {
    path: 'batches',
    label: 'Roasts',
    anyOf: ['production.roast.read'],
    load: () => import('./pages/batches.tsx').then((m) => ({ view: ({ session, parts: [, id] }) => (id ? <m.BatchPage key={id} session={session} id={id} /> : <m.Batches session={session} />) })),
  },
  { path: 'production', label: 'Production', anyOf: ['production.profile.read', 'production.schedule.read'], load: () => import('./pages/production.tsx') },
  { path: 'sourcing', label: 'Sourcing', anyOf: ['sourcing.contract.read', 'sourcing.sample.read'], load: () => import('./pages/sourcing.tsx') },
  { path: 'quality', label: 'Quality', anyOf: ['quality.cupping.read', 'quality.grading.read'], load: () => import('./pages/quality.tsx') },
  {
    path: 'orders',
    also: ['customers'],
    label: 'Orders',
    anyOf: ['orders.read'],
    load: () => import('./pages/sales.tsx'),
  },
  { path: 'cafe', label: 'Cafe', anyOf: ['cafe.read'], load: () => import('./pages/cafe.tsx') },
  { path: 'webhooks', label: 'Webhooks', anyOf: ['webhooks.read'], load: () => import('./pages/webhooks.tsx') },
  {
    path: 'trace',
    label: 'Trace',
    anyOf: ['traceability.read'],
    load: () => import('./pages/trace.tsx').then((m) => ({ view: ({ session, parts: [, kind, id] }) => <m.TracePage session={session} kind={kind as never} id={id} /> })),
  },
  { path: 'certificates', label: 'Certificates', anyOf: ['traceability.read'], load: () => import('./pages/certificates.tsx').then((m) => ({ view: ({ session }) => <m.Certificates session={session} /> })) },
  { path: 'reports', label: 'Reports', anyOf: ['reporting.read'], load: () => import('./pages/reports.tsx').then((m) => ({ view: ({ session }) => <m.Reports session={session} /> })) },
  { path: 'imports', label: 'Imports', anyOf: ['inventory.green.write', 'catalog.party.write', 'sourcing.contract.write', 'orders.write', 'catalog.product.write', 'inventory.material.write'], load: () => import('./pages/imports.tsx').then((m) => ({ view: ({ session }) => <m.Imports session={session} /> })) },
  // Owner and admin work (API keys, members, OAuth clients, the organization's name); webhooks.write is the
  // permission only they and no working role hold, which is what the console can know of an API key.
  { path: 'settings', label: 'Settings', anyOf: ['webhooks.write'], load: () => import('./pages/settings.tsx').then((m) => ({ view: ({ session }) => <m.Settings session={session} /> })) },
];

/** Areas reached by links but not listed in the navigation. */
const UNLISTED = new Set(['trace']);

export function navAreas(session: Session): Area[] {
  return AREAS.filter((a) => !UNLISTED.has(a.path) && (a.anyOf.length === 0 || a.anyOf.some((p) => can(session, p))));
}

export function areaFor(head: string): Area | undefined {
  return AREAS.find((a) => a.path === head || a.also?.includes(head));
}

const loaded = new Map<string, AreaModule>();

/** Loads an area's chunk (once) and shows it. */
export function AreaView({ area, session, parts }: { area: Area; session: Session; parts: string[] }) {
  const [module, setModule] = useState<AreaModule | null>(loaded.get(area.path) ?? null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (loaded.has(area.path)) {
      setModule(loaded.get(area.path)!);
      return;
    }
    let live = true;
    setModule(null);
    area.load().then(
      (m) => {
        loaded.set(area.path, m);
        if (live) setModule(m);
      },
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [area]);
  if (error) return <ErrorBox error={error} />;
  if (!module || module !== loaded.get(area.path)) return <Loading what={area.label.toLowerCase()} />;
  return module.view({ session, parts });
}

/** An area's own pages, as tabs under its heading. */
export function SubNav({ items, current }: { items: [string, string, boolean?][]; current: string }) {
  const shown = items.filter(([, , allowed]) => allowed !== false);
  return (
    <nav class="subnav" aria-label="Pages of this area">
      {shown.map(([to, label]) => (
        <a href={'#' + to} class={current === to ? 'current' : ''} aria-current={current === to ? 'page' : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
}
