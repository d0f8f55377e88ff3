/**
 * Expected failures are typed values: handlers and the pipeline throw ProblemError, and one place
 * (the HTTP layer) turns it into an RFC 9457 application/problem+json answer with a stable `code`.
 */
export interface FieldError {
  path: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
};

export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly extensions: { errors?: FieldError[]; [key: string]: unknown } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toProblem(): Problem {
    return {
      type: `https://firstcrack.dev/problems/${this.code.replaceAll('_', '-')}`,
      title: titles[this.status] ?? 'Error',
      status: this.status,
      detail: this.message,
      code: this.code,
      ...this.extensions,
    };
  }
}

export const malformedJson = (message: string) => new ProblemError(400, 'malformed_json', `The body is not valid JSON: ${message}`);

export const invalidInput = (errors: FieldError[], detail = 'The input is not valid.') =>
  new ProblemError(400, 'invalid_input', detail, { errors });

/** Another organization's row answers exactly like a row that does not exist. */
export const notFound = (what: string, id: string, path = 'id') =>
  new ProblemError(404, 'not_found', `No ${what} with id ${id}.`, { errors: [{ path, message: `${what} not found` }] });

/** Throws notFound: the one way a handler says `what` with this id is not there (or is another organization's). */
export function throwNotFound(what: string, id: string, path = 'id'): never {
  throw notFound(what, id, path);
}

export const conflict = (code: string, detail: string, extensions: Record<string, unknown> = {}) =>
  new ProblemError(409, code, detail, extensions);

/** A value a unique constraint holds per organization is taken: the problem the database's refusal answers (http/problems.ts), and checks made before writing answer alike. */
export const alreadyUsed = (field: string | undefined) =>
  conflict('duplicate', `Another record in this organization already has this ${field ?? 'value'}.`, {
    errors: [{ path: field ?? '', message: 'already used in this organization' }],
  });

/** A referenced record is not the organization's: the problem the database's foreign-key refusal answers (http/problems.ts), and checks made before writing answer alike. */
export const referenceNotFound = (field: string | undefined) =>
  new ProblemError(404, 'not_found', `The ${field ?? 'referenced record'} does not exist in this organization.`, {
    errors: [{ path: field ?? '', message: 'not found' }],
  });
