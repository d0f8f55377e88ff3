/** Modules an operation can require; a plan enables a subset. */
export const MODULES = [
  'core', 'inventory', 'roasting', 'quality', 'orders', 'api',
  'green_contracts', 'samples', 'cafe', 'resource_planning',
] as const;
export type Module = (typeof MODULES)[number];

export const PLANS = ['free', 'starter', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanTerms {
  modules: ReadonlySet<Module>;
  /** Active roasting machines the organization may register; null means no cap. */
  machineCap: number | null;
}

export const PLAN_TERMS: Record<Plan, PlanTerms> = {
  free: { modules: new Set(['core', 'inventory', 'roasting']), machineCap: 1 },
  starter: { modules: new Set(['core', 'inventory', 'roasting', 'quality', 'orders', 'api']), machineCap: 2 },
  pro: { modules: new Set(MODULES), machineCap: 5 },
  enterprise: { modules: new Set(MODULES), machineCap: null },
};
