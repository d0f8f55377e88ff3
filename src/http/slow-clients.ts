import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../rpc/errors.js';

/**
 * How long a client may take to send a request. A connection that sends its headers or its body a byte at a
 * time would otherwise hold a socket (and, for a body, a request's place) as long as it likes: 5 such
 * connections kept going for minutes. Node checks both bounds on every open connection each
 * RECEIVE_CHECK_INTERVAL_MS and answers one past either with 408, which answerClientError writes as a
 * problem, and closes it.
 *
 * The bounds cover receiving the request only, from its first byte: a response may take as long as it takes,
 * so an event stream (a GET, received at once) stays open for hours, and a telemetry post (a few KiB, 1 MiB
 * at most) arrives well within them. A heavy call waits for its turn in the heavy lane before its body is read
 * (src/http/server.ts); that wait counts, which 60 s leaves ample room for.
 */
export interface ReceiveTimeouts {
  /** From the request's first byte to the end of its headers. */
  headersMs: number;
  /** From the request's first byte to the end of its body: 1 MiB (the largest body taken) at 17 KiB/s. */
  requestMs: number;
}

export const RECEIVE_TIMEOUTS: ReceiveTimeouts = { headersMs: 10_000, requestMs: 60_000 };
/** How often Node looks for connections past a bound: a slow one is closed at most this long after it. */
export const RECEIVE_CHECK_INTERVAL_MS = 1_000;

/** The Fastify options that set the bounds and answer their refusals. */
export function receiveBounds(timeouts: ReceiveTimeouts = RECEIVE_TIMEOUTS) {
  return {
    requestTimeout: timeouts.requestMs,
    http: { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: RECEIVE_CHECK_INTERVAL_MS },
    clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
      answerClientError(this, error, socket, timeouts);
    },
  };
}

/**
 * A request Node refused before any route saw it: past a receive bound (408), headers too large (431), or not
 * HTTP (400). Answered as a problem when nothing of a response was written to the connection yet (an answer
 * already sent, say a 401 to a body still trickling in, must not be corrupted), then the connection is closed.
 */
function answerClientError(app: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket, timeouts: ReceiveTimeouts): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new ProblemError(
          408,
          'request_timeout',
          `The request was not received in time: headers within ${timeouts.headersMs / 1000} s and the whole request within ${timeouts.requestMs / 1000} s of its first byte. The connection is closed.`,
        )
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new ProblemError(431, 'headers_too_large', 'The request headers are larger than the server takes.')
        : new ProblemError(400, 'bad_request', 'The request is not valid HTTP/1.1.');
  app.log.debug({ err: error, status: problem.status }, 'connection closed: request refused before routing');
  const response = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !response?.headersSent) {
    const body = JSON.stringify(problem.toProblem());
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
