/**
 * Servers on loopback that misbehave the way a stranger's calendar server can: endless answers,
 * raw sockets that speak no HTTP (or nothing), and plain HTTP servers that record who asked
 * with which credentials.
 *
 *   const server = await startHttpServer((request, response) => endless(response, { status: 207 }));
 *   server.url; server.requests;   // [{ method, path, authorization }] in arrival order
 *   const silent = await startSocketServer((socket) => {});    // accepts, never answers
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  /** Whether an Authorization header came with it. */
  authorization: boolean;
}

export interface LoopbackServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startHttpServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server = createHttpServer((request, response) => {
    requests.push({
      method: request.method ?? '',
      path: request.url ?? '/',
      authorization: request.headers.authorization !== undefined,
    });
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Streams `bytes` of filler (default 300 MB) after `prefix`, as fast as the client takes it and
 * no faster (backpressure), without Content-Length; stops when the client goes away.
 */
export function endless(
  response: ServerResponse,
  options: { status?: number; prefix?: string; bytes?: number; headers?: Record<string, string> } = {},
): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let left = options.bytes ?? 300 * 1024 * 1024;
  response.writeHead(options.status ?? 200, { 'content-type': 'application/xml', ...options.headers });
  response.write(options.prefix ?? '');
  const more = () => {
    while (left > 0 && !response.destroyed) {
      left -= chunk.length;
      if (!response.write(chunk)) return void response.once('drain', more);
    }
    if (!response.destroyed) response.end();
  };
  response.on('close', () => {
    left = 0;
  });
  more();
}

/** A TCP server that does what `onConnection` says with each connection (nothing: stays silent). */
export async function startSocketServer(onConnection: (socket: Socket) => void): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    requests: [],
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
