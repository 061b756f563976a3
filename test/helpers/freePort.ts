/** A port for a process to listen on a moment later (the service, Radicale, fakes). */
import { createServer } from 'node:net';

/** Ports handed out by this process: two picks a moment apart (two instances' ports) never share one. */
const handedOut = new Set<number>();

/**
 * A port nothing listens on right now, drawn at random below the kernel's ephemeral range: there
 * port 0 would hand the same numbers to outgoing connections and to other test files picking
 * theirs at the same time, and the process started on it would find it taken.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (handedOut.has(port)) continue;
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise((resolve) => server.close(resolve));
    handedOut.add(port);
    return port;
  }
}
