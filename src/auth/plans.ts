/**
 * Plan features an operation can require; a plan enables a subset. The API calls them modules
 * (`module_not_enabled`, `x-module`); in code a module is a code module (src/modules).
 */
export const FEATURES = [
  'core', 'inventory', 'roasting', 'quality', 'orders', 'api',
  'green_contracts', 'samples', 'cafe', 'resource_planning',
] as const;
export type Feature = (typeof FEATURES)[number];

export const PLANS = ['free', 'starter', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanTerms {
  features: ReadonlySet<Feature>;
  /** Active roasting machines the organization may register; null means no cap. */
  machineCap: number | null;
}

export const PLAN_TERMS: Record<Plan, PlanTerms> = {
  free: { features: new Set(['core', 'inventory', 'roasting']), machineCap: 1 },
  starter: { features: new Set(['core', 'inventory', 'roasting', 'quality', 'orders', 'api']), machineCap: 2 },
  pro: { features: new Set(FEATURES), machineCap: 5 },
  enterprise: { features: new Set(FEATURES), machineCap: null },
};
