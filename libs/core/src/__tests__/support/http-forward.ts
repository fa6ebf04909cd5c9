import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A plain-HTTP server on 127.0.0.1 (a free port) whose open sockets are tracked, for test proxies. */
export interface TrackedServer {
  server: http.Server;
  port: number;
  /** The client connections open now. */
  sockets: Set<Socket>;
}

/** Starts a {@link TrackedServer} that hands each request to `handle` (connections kept alive 60 s). */
export async function startTrackedServer(
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<TrackedServer> {
  const sockets = new Set<Socket>();
  const server = http.createServer(handle);
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

/** Headers without the hop-by-hop ones a proxy must not pass on. */
function endToEnd(headers: http.IncomingHttpHeaders): http.IncomingHttpHeaders {
  const copy = { ...headers };
  delete copy.connection;
  delete copy['keep-alive'];
  return copy;
}

/**
 * Sends a request on to the plain-HTTP server on 127.0.0.1:`upstreamPort` (a connection of its own,
 * no hop-by-hop headers); `onAnswer` gets the server's answer. The client's request is destroyed if
 * the upstream request fails.
 */
export function forwardUpstream(
  upstreamPort: number,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  onAnswer: (upRes: http.IncomingMessage) => void,
): http.ClientRequest {
  const up = http.request(
    {
      host: '127.0.0.1',
      port: upstreamPort,
      method: req.method,
      path: req.url,
      headers: endToEnd(req.headers),
      agent: false,
    },
    onAnswer,
  );
  up.on('error', () => res.destroy());
  req.pipe(up);
  return up;
}

/** Passes the server's answer on to the client (no hop-by-hop headers). */
export function passAnswer(upRes: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(upRes.statusCode ?? 502, endToEnd(upRes.headers));
  upRes.pipe(res);
}
