import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closes keep-alive connections with no request in flight once the server is closing, including those that
 * become idle while it closes. Node's own `closeIdleConnections` (which Fastify calls) misses a connection
 * whose last answer was written straight to the socket's response (an event stream ended by its module on
 * close): Node still counts that request as receiving, so the connection held `close()` until the receive
 * bounds expired it (src/http/slow-clients.ts), about 70 s, on every shutdown with a stream open.
 */
export function closeIdleWhenClosing(server: Server): { closing(): void } {
  const inFlight = new Map<Socket, number>();
  let closing = false;
  const settle = (socket: Socket) => {
    if (closing && inFlight.get(socket) === 0) socket.destroy();
  };
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.on('request', (request, response) => {
    const socket = request.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.once('close', () => {
      if (!inFlight.has(socket)) return;
      inFlight.set(socket, inFlight.get(socket)! - 1);
      settle(socket);
    });
  });
  return {
    closing() {
      closing = true;
      for (const socket of inFlight.keys()) settle(socket);
    },
  };
}
