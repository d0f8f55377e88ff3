import type { RateWindow } from './limiter.js';

/**
 * Every rate budget the service counts, by name: the one table of windows. An operation draws on `api`; a
 * surface names the budgets it draws on (src/http/surface.ts), and the app makes one limiter per budget
 * (`leased` ones drawn from Redis in leases, for machine channels posting many small requests).
 */
export const RATE_BUDGETS = {
  /** The specification's API budget: both windows checked together, per credential. */
  api: { countedPer: 'credential', windows: [{ name: 'burst', points: 60, seconds: 10 }, { name: 'sustained', points: 300, seconds: 60 }] },
  /**
   * Roast telemetry ingest, per bridge token, apart from the API's. A bridge posting every 100 ms (10 Hz, the
   * fastest loggers) makes 600 posts a minute: the sustained window leaves it double that, and the burst window
   * lets it catch up on a backlog at 30 posts a second after a network outage.
   */
  ingest: {
    countedPer: 'credential',
    leased: true,
    windows: [{ name: 'burst', points: 300, seconds: 10 }, { name: 'sustained', points: 1200, seconds: 60 }],
  },
  /**
   * The cafe shot channel, per bar machine token. A machine posts each shot as it ends (one every ~20 s per
   * group head) or a backlog in batches after an outage: 120 posts a minute is six times a six-group machine's
   * pace, and the burst window lets a backlog through at 6 posts a second.
   */
  cafe_ingest: {
    countedPer: 'credential',
    leased: true,
    windows: [{ name: 'burst', points: 60, seconds: 10 }, { name: 'sustained', points: 120, seconds: 60 }],
  },
  /**
   * Web shop order webhooks, per shop connection (its path): a flash sale of 10 orders a second is within the burst
   * window; a shop's deliveries refused past it are retried by the shop (Shopify and WooCommerce both retry).
   */
  shop_webhooks: { countedPer: 'shop', windows: [{ name: 'burst', points: 100, seconds: 10 }, { name: 'sustained', points: 600, seconds: 60 }] },
  /** Public certificate pages, per client address: a person scanning codes is far below this; a crawler guessing tokens is not. */
  public_pages: { countedPer: 'address', windows: [{ name: 'burst', points: 60, seconds: 10 }, { name: 'sustained', points: 300, seconds: 60 }] },
  /** Signed file links, per client address: a person downloading is far below this; a crawler guessing links is not. */
  file_links: { countedPer: 'address', windows: [{ name: 'burst', points: 60, seconds: 10 }, { name: 'sustained', points: 300, seconds: 60 }] },
  /** Failed authentications per client address, on every surface (src/http/failed-auth.ts). */
  failed_auth: { countedPer: 'address', windows: [{ name: 'failed_auth', points: 30, seconds: 60 }] },
  /** Login attempts per account (email), whether the password is right or not. */
  login_account: { countedPer: 'account', logRefusals: true, windows: [{ name: 'account', points: 10, seconds: 900 }] },
  /** Login attempts per client address. */
  login_address: { countedPer: 'address', logRefusals: true, windows: [{ name: 'address', points: 100, seconds: 900 }] },
} as const satisfies Record<string, { countedPer: string; leased?: boolean; logRefusals?: boolean; windows: readonly RateWindow[] }>;

export type BudgetName = keyof typeof RATE_BUDGETS;

export const budgetWindows = (name: BudgetName): RateWindow[] => RATE_BUDGETS[name].windows.map((w) => ({ ...w }));

/** The specification's API budget (RATE_BUDGETS.api): both windows are checked together, per credential. */
export const API_WINDOWS: RateWindow[] = budgetWindows('api');

/** A budget in words, for the documentation: `300 per 10 s and 1200 per 60 s`. */
export const describeBudget = (name: BudgetName) =>
  RATE_BUDGETS[name].windows.map((w) => (w.seconds >= 600 ? `${w.points} per ${w.seconds / 60} min` : `${w.points} per ${w.seconds} s`)).join(' and ');
