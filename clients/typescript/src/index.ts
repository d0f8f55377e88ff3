/**
 * The typed Firstcrack client: `client.call('inventory.green.getGreenLot', { id })` is typed for its input
 * and its answer, both generated from the service's operation registry (operations.ts). Mutations carry an
 * Idempotency-Key (one per call, kept across its retries), a 429 or 503 is retried after its Retry-After, and a
 * problem answer (RFC 9457) is thrown as a FirstcrackError carrying the operation's possible codes.
 */
import { OPERATIONS, type OperationErrorCode, type OperationInput, type OperationName, type OperationOutput } from './operations.js';

export * from './operations.js';

export interface FieldError {
  path: string;
  message: string;
}

/** An RFC 9457 problem body as the service sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

/** A refused call: the problem the service answered, with a `code` the operation declares. */
export class FirstcrackError<Code extends string = string> extends Error {
  readonly status: number;
  readonly code: Code;
  readonly errors: FieldError[];

  constructor(
    readonly operation: string,
    readonly problem: Problem,
    readonly headers: Headers,
  ) {
    super(`${operation}: ${problem.status} ${problem.code}: ${problem.detail}`);
    this.name = 'FirstcrackError';
    this.status = problem.status;
    this.code = problem.code as Code;
    this.errors = problem.errors ?? [];
  }
}

/** Narrows an error to a FirstcrackError of operation `name`, optionally with one of `codes`. */
export function isFirstcrackError<N extends OperationName, C extends OperationErrorCode<N> = OperationErrorCode<N>>(
  error: unknown,
  name: N,
  ...codes: C[]
): error is FirstcrackError<C> {
  return error instanceof FirstcrackError && error.operation === name && (codes.length === 0 || codes.includes(error.code as C));
}

export interface ClientOptions {
  /** The service's base URL, e.g. `https://api.firstcrack.example` or `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An API key (`fck_…`) or access token, sent as `Authorization: Bearer`. */
  token: string;
  /** Sent as X-Service-Org (needed with user credentials; a bound credential must name its own organization). */
  organizationId?: string;
  /** How often a 429 or 503 is retried before its problem is thrown (default 3). */
  maxRetries?: number;
  /** The longest single wait for a Retry-After, in milliseconds (default 60 000); a longer one is thrown. */
  maxRetryWaitMs?: number;
  fetch?: typeof fetch;
  /** How to wait between retries (tests may shorten it). */
  sleep?: (ms: number) => Promise<void>;
}

export interface CallOptions {
  /** For a mutation: the Idempotency-Key to send (default: a new random key for this call, kept across its retries). */
  idempotencyKey?: string;
  /** `GET` for operations that answer it (cacheable reads); default POST. */
  method?: 'GET' | 'POST';
  signal?: AbortSignal;
}

const RETRYABLE = new Set([429, 503]);

export class FirstcrackClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Calls an operation; resolves to its answer or throws a FirstcrackError with the problem. */
  async call<N extends OperationName>(name: N, input: OperationInput<N>, options: CallOptions = {}): Promise<OperationOutput<N>> {
    const operation = OPERATIONS[name] as { get: boolean } | undefined;
    if (!operation) throw new TypeError(`Unknown operation ${String(name)}`);
    const method = options.method ?? 'POST';
    if (method === 'GET' && !operation.get) throw new TypeError(`${name} does not answer GET`);
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.token}`, accept: 'application/json' };
    if (this.options.organizationId) headers['x-service-org'] = this.options.organizationId;
    let url = `${this.baseUrl}/rpc/v1/${name}`;
    let body: string | undefined;
    if (method === 'GET') {
      url += `?input=${encodeURIComponent(JSON.stringify(input))}`;
    } else {
      body = JSON.stringify(input);
      headers['content-type'] = 'application/json';
      if (!operation.get) headers['idempotency-key'] = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    }

    const maxRetries = this.options.maxRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      const response = await this.fetch(url, { method, headers, body, signal: options.signal });
      const text = await response.text();
      if (response.ok) return (text ? JSON.parse(text) : {}) as OperationOutput<N>;
      const problem = parseProblem(response, text);
      const wait = retryAfterMs(response.headers.get('retry-after'));
      if (RETRYABLE.has(response.status) && attempt < maxRetries && wait !== undefined && wait <= (this.options.maxRetryWaitMs ?? 60_000)) {
        await this.sleep(wait);
        continue;
      }
      throw new FirstcrackError<OperationErrorCode<N>>(name, problem, response.headers);
    }
  }
}

function parseProblem(response: Response, text: string): Problem {
  try {
    const body = JSON.parse(text) as Problem;
    if (body && typeof body.code === 'string') return body;
  } catch {
    // not a problem body: described below
  }
  return { type: 'about:blank', title: response.statusText, status: response.status, detail: text.slice(0, 500), code: `http_${response.status}` };
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** A webhook delivery's body: the event envelope. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  id: string;
  type: string;
  createdAt: string;
  organizationId: string;
  data: Data;
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyWebhookOptions {
  /** How far Service-Timestamp may be from now, in seconds (default 300): older deliveries are refused as replays. */
  toleranceSeconds?: number;
  /** The current time in milliseconds (tests). */
  now?: number;
}

/**
 * Checks a webhook delivery and returns its event: `Service-Signature` must hold a `v1,` value equal to the
 * base64 HMAC-SHA256, keyed with the endpoint's secret (the whole `whsec_…` string), of
 * `<Service-Timestamp>.<raw body>`; during a secret rotation either of the two values may match. The
 * timestamp must be within the tolerance. `body` is the raw request body, exactly as received (parse it
 * only afterwards). Throws WebhookVerificationError otherwise. Deduplicate on the returned `id`
 * (= Service-Event-Id): a redelivery carries the same id. Uses Web Crypto (Node 20+, browsers, workers).
 */
export async function verifyWebhook<Data = Record<string, unknown>>(
  secret: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent<Data>> {
  const header = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
    const value = key === undefined ? undefined : headers[key];
    return Array.isArray(value) ? value.join(' ') : value;
  };
  const timestamp = header('service-timestamp');
  const signatures = header('service-signature');
  if (!timestamp || !/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Service-Timestamp is missing or not unix seconds.');
  if (!signatures) throw new WebhookVerificationError('Service-Signature is missing.');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = (options.now ?? Date.now()) / 1000;
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError('Service-Timestamp is outside the tolerance (a replay, or a skewed clock).');
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${timestamp}.${text}`)));
  const matches = signatures.split(' ').some((value) => {
    const [version, signature] = value.split(',');
    if (version !== 'v1' || !signature) return false;
    let given: Uint8Array;
    try {
      given = Uint8Array.from(atob(signature), (c) => c.charCodeAt(0));
    } catch {
      return false;
    }
    if (given.length !== expected.length) return false;
    let difference = 0;
    for (let i = 0; i < given.length; i++) difference |= given[i] ^ expected[i];
    return difference === 0;
  });
  if (!matches) throw new WebhookVerificationError('No Service-Signature value matches this secret.');
  const event = JSON.parse(text) as WebhookEvent<Data>;
  if (event.id !== header('service-event-id')) throw new WebhookVerificationError('Service-Event-Id does not name the signed event.');
  return event;
}
