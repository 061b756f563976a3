/**
 * A loopback TCP server that notes every connection it accepts and answers each with a plain
 * HTTP 200 "ok" (or a redirect to `location`): to show that a refused request never reached it,
 * or which of two it reached.
 */
import { type AddressInfo, createServer, type Socket } from 'node:net';

export interface CountingServer {
  address: string;
  port: number;
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

export async function startCountingServer(
  address = '127.0.0.1',
  port = 0,
  location?: string,
): Promise<CountingServer> {
  const answer =
    location === undefined
      ? 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok'
      : `HTTP/1.1 302 Found\r\nlocation: ${location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    counting.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', () => socket.end(answer));
  });
  await new Promise<void>((resolve) => server.listen(port, address, resolve));
  const counting: CountingServer = {
    address,
    port: (server.address() as AddressInfo).port,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return counting;
}
