/**
 * A loopback HTTP proxy in front of a real server (Radicale) that fails chosen requests the way
 * networks and servers do. A fault applies to the next request(s) whose method matches (and
 * whose path matches `path`, if given), `times` requests (default 1), then it is used up:
 *
 *   { method: 'PUT', status: 429, retryAfter: '1' }         answered at once, never forwarded
 *   { method: 'PUT', delayMs: 800, phase: 'before' }         held; forwarded only if the client still waits
 *   { method: 'DELETE', delayMs: 800, phase: 'after' }       forwarded (the server applies it), answer held
 *
 * A hold ends early when the client leaves. `onHeld` is called as the hold begins: with a
 * TestDeadline, `{ method: 'PUT', phase: 'after', ...deadline.held() }` times the client out
 * exactly while its request is held, however busy the machine.
 *
 *   const proxy = await FaultProxy.start(radicale.url);     // use proxy.url as the server URL
 *   proxy.inject({ method: 'PUT', path: /\.ics$/, delayMs: 800, phase: 'after' });
 *   proxy.inject({ method: 'REPORT', body: /sync-collection/, status: 501, times: Infinity });
 *   …the call times out…
 *   await proxy.settled();        // every held request forwarded or dropped
 *   proxy.requests;               // [{ method, path, status, forwarded }] in arrival order
 *   await proxy.close();
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

const hopByHop = new Set(['connection', 'keep-alive', 'content-length', 'transfer-encoding', 'host']);

export interface FaultMatch {
  method: string;
  /** Tested against the request path (with query); any path when absent. */
  path?: RegExp;
  /** Tested against the request body (one REPORT from another); any body when absent. */
  body?: RegExp;
  /** How many matching requests the fault applies to; default 1. */
  times?: number;
}

export type ProxyFault = FaultMatch &
  (
    | { status: number; retryAfter?: string }
    | { delayMs: number; phase: 'before' | 'after'; onHeld?: () => void }
  );

export interface ProxiedRequest {
  method: string;
  path: string;
  /** The status the client was sent, or the server's when the answer was dropped; 0: never answered. */
  status: number;
  /** Whether the request reached the server. */
  forwarded: boolean;
}

export class FaultProxy {
  readonly url: string;
  readonly requests: ProxiedRequest[] = [];
  readonly #server: Server;
  readonly #target: URL;
  readonly #faults: Array<{ fault: ProxyFault; left: number }> = [];
  readonly #handling = new Set<Promise<void>>();

  static async start(target: string): Promise<FaultProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FaultProxy(server, target);
  }

  private constructor(server: Server, target: string) {
    this.#server = server;
    this.#target = new URL(target);
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    server.on('request', (req, res) => {
      const handled = this.#handle(req, res).catch(() => {
        res.destroy();
      });
      this.#handling.add(handled);
      void handled.finally(() => this.#handling.delete(handled));
    });
  }

  inject(fault: ProxyFault): void {
    this.#faults.push({ fault, left: fault.times ?? 1 });
  }

  /** Requests of a method seen so far (whatever became of them). */
  count(method: string, path?: RegExp): number {
    return this.requests.filter((r) => r.method === method && (path === undefined || path.test(r.path)))
      .length;
  }

  async settled(): Promise<void> {
    while (this.#handling.size > 0) await Promise.all(this.#handling);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #take(method: string, path: string, body: string): ProxyFault | undefined {
    const index = this.#faults.findIndex(
      ({ fault }) =>
        fault.method === method &&
        (fault.path === undefined || fault.path.test(path)) &&
        (fault.body === undefined || fault.body.test(body)),
    );
    const entry = this.#faults[index];
    if (entry === undefined) return undefined;
    entry.left -= 1;
    if (entry.left <= 0) this.#faults.splice(index, 1);
    return entry.fault;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const entry: ProxiedRequest = { method, path, status: 0, forwarded: false };
    this.requests.push(entry);
    const fault = this.#take(method, path, Buffer.concat(chunks).toString('utf8'));
    if (fault !== undefined && 'status' in fault) {
      entry.status = fault.status;
      res.writeHead(fault.status, fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter });
      res.end();
      return;
    }
    // The client gave up (its timeout): what happens next must not depend on it hearing back.
    const left = new AbortController();
    res.on('close', () => {
      if (!res.writableEnded) left.abort();
    });
    const gone = () => left.signal.aborted;
    const hold = async (held: { delayMs: number; onHeld?: () => void }) => {
      held.onHeld?.();
      await delay(held.delayMs, undefined, { signal: left.signal }).catch(() => undefined);
    };
    if (fault?.phase === 'before') {
      await hold(fault);
      if (gone()) return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !hopByHop.has(name)) headers[name] = value;
    }
    entry.forwarded = true;
    const answer = await fetch(new URL(path, this.#target), {
      method,
      headers,
      body: chunks.length === 0 ? undefined : Buffer.concat(chunks),
      redirect: 'manual',
    });
    const body = Buffer.from(await answer.arrayBuffer());
    entry.status = answer.status;
    if (fault?.phase === 'after') await hold(fault);
    if (gone() || res.destroyed) return;
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!hopByHop.has(name) && name !== 'content-encoding') out[name] = value;
    });
    res.writeHead(answer.status, out);
    res.end(body);
  }
}
