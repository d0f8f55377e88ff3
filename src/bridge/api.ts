/**
 * The service as the bridge sees it, over HTTP only: operations at /rpc/v1/ with an API key, telemetry at
 * /ingest/v1/ with the machine's bridge token (README "Live telemetry").
 */

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly retryAfterS?: number,
    /** A refused post's batch state (a 409 names it). */
    readonly state?: string,
  ) {
    super(message);
  }
  /** Worth trying again later: the service unreachable, overloaded, or out of budget. */
  get retryable(): boolean {
    // A batch whose live session is still opening answers 409 with state live: it takes posts a moment later.
    return this.status === 0 || this.status === 429 || this.status >= 500 || (this.status === 409 && this.state === 'live');
  }
}

export interface PostAnswer {
  duplicate: boolean;
  /** What is left of the ingest budget's tightest window, from the RateLimit header. */
  budget?: { remaining: number; resetS: number };
}

/** `"burst";r=12;t=4` → remaining 12 points, window resets in 4 s. */
export function parseRateLimit(header: string | null): { remaining: number; resetS: number } | undefined {
  const match = header && /r=(\d+);t=(\d+)/.exec(header);
  return match ? { remaining: Number(match[1]), resetS: Number(match[2]) } : undefined;
}

/** Budget points a post of `bytes` draws: one per started 8 KiB (README "Rate limits"). */
export const postPoints = (bytes: number) => Math.max(1, Math.ceil(bytes / 8192));

export class BridgeApi {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly bridgeToken: string,
    private readonly apiKey?: string,
    private readonly organization?: string,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  get canCallOperations(): boolean {
    return this.apiKey !== undefined;
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(this.base + path, { ...init, signal: AbortSignal.timeout(15_000) });
    } catch (error) {
      throw new ApiError(`cannot reach ${this.base}: ${(error as Error).cause ? ((error as Error).cause as Error).message : (error as Error).message}`, 0);
    }
  }

  private static async refused(what: string, response: Response): Promise<ApiError> {
    const text = await response.text();
    let body: { code?: string; detail?: string; state?: string; errors?: { path: string; message: string }[] } = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      /* not a problem document: the text is the message */
    }
    const fields = (body.errors ?? []).map((e) => `${e.path}: ${e.message}`).join('; ');
    const after = Number(response.headers.get('retry-after'));
    return new ApiError(
      `${what}: ${response.status} ${body.code ?? ''} ${body.detail ?? text.slice(0, 200)}${fields ? ` (${fields})` : ''}`.replace(/\s+/g, ' ').trim(),
      response.status,
      body.code,
      Number.isFinite(after) && after > 0 ? after : undefined,
      body.state,
    );
  }

  async call<T>(operation: string, input: unknown, idempotencyKey?: string): Promise<T> {
    if (!this.apiKey) throw new ApiError(`${operation} needs an API key (service.api_key or FIRSTCRACK_API_KEY)`, 401);
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json' };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    if (this.organization) headers['x-service-org'] = this.organization;
    const response = await this.send(`/rpc/v1/${operation}`, { method: 'POST', headers, body: JSON.stringify(input) });
    if (!response.ok) throw await BridgeApi.refused(operation, response);
    return (await response.json()) as T;
  }

  /** One telemetry post, its body already serialised (so its cost is known before sending). */
  async post(batchId: string, body: string): Promise<PostAnswer> {
    const response = await this.send(`/ingest/v1/roast/${batchId}/samples`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.bridgeToken}`, 'content-type': 'application/json' },
      body,
    });
    if (!response.ok) throw await BridgeApi.refused('ingest post', response);
    const answer = (await response.json()) as { duplicate?: boolean };
    return { duplicate: answer.duplicate === true, budget: parseRateLimit(response.headers.get('ratelimit')) };
  }
}
