/**
 * The typed Firstcrack client: `client.call('inventory.green.getGreenLot', { id })` is typed for its input
 * and its answer, both generated from the service's operation registry (operations.ts). Mutations carry an
 * Idempotency-Key (one per call, kept across its retries), a 429 or 503 is retried after its Retry-After, and a
 * problem answer (RFC 9457) is thrown as a FirstcrackError carrying the operation's possible codes.
 */
import { OPERATIONS } from './operations.js';
export * from './operations.js';
/** A refused call: the problem the service answered, with a `code` the operation declares. */
export class FirstcrackError extends Error {
    operation;
    problem;
    headers;
    status;
    code;
    errors;
    constructor(operation, problem, headers) {
        super(`${operation}: ${problem.status} ${problem.code}: ${problem.detail}`);
        this.operation = operation;
        this.problem = problem;
        this.headers = headers;
        this.name = 'FirstcrackError';
        this.status = problem.status;
        this.code = problem.code;
        this.errors = problem.errors ?? [];
    }
}
/** Narrows an error to a FirstcrackError of operation `name`, optionally with one of `codes`. */
export function isFirstcrackError(error, name, ...codes) {
    return error instanceof FirstcrackError && error.operation === name && (codes.length === 0 || codes.includes(error.code));
}
const RETRYABLE = new Set([429, 503]);
export class FirstcrackClient {
    options;
    baseUrl;
    fetch;
    sleep;
    constructor(options) {
        this.options = options;
        this.baseUrl = options.baseUrl.replace(/\/+$/, '');
        this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
        this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    }
    /** Calls an operation; resolves to its answer or throws a FirstcrackError with the problem. */
    async call(name, input, options = {}) {
        const operation = OPERATIONS[name];
        if (!operation)
            throw new TypeError(`Unknown operation ${String(name)}`);
        const method = options.method ?? 'POST';
        if (method === 'GET' && !operation.get)
            throw new TypeError(`${name} does not answer GET`);
        const headers = { authorization: `Bearer ${this.options.token}`, accept: 'application/json' };
        if (this.options.organizationId)
            headers['x-service-org'] = this.options.organizationId;
        let url = `${this.baseUrl}/rpc/v1/${name}`;
        let body;
        if (method === 'GET') {
            url += `?input=${encodeURIComponent(JSON.stringify(input))}`;
        }
        else {
            body = JSON.stringify(input);
            headers['content-type'] = 'application/json';
            if (!operation.get)
                headers['idempotency-key'] = options.idempotencyKey ?? globalThis.crypto.randomUUID();
        }
        const maxRetries = this.options.maxRetries ?? 3;
        for (let attempt = 0;; attempt++) {
            const response = await this.fetch(url, { method, headers, body, signal: options.signal });
            const text = await response.text();
            if (response.ok)
                return (text ? JSON.parse(text) : {});
            const problem = parseProblem(response, text);
            const wait = retryAfterMs(response.headers.get('retry-after'));
            if (RETRYABLE.has(response.status) && attempt < maxRetries && wait !== undefined && wait <= (this.options.maxRetryWaitMs ?? 60_000)) {
                await this.sleep(wait);
                continue;
            }
            throw new FirstcrackError(name, problem, response.headers);
        }
    }
}
function parseProblem(response, text) {
    try {
        const body = JSON.parse(text);
        if (body && typeof body.code === 'string')
            return body;
    }
    catch {
        // not a problem body: described below
    }
    return { type: 'about:blank', title: response.statusText, status: response.status, detail: text.slice(0, 500), code: `http_${response.status}` };
}
/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(header) {
    if (header === null)
        return undefined;
    if (/^\d+$/.test(header.trim()))
        return Number(header) * 1000;
    const at = Date.parse(header);
    return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
//# sourceMappingURL=index.js.map