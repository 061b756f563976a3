/**
 * A fake Google on 127.0.0.1 for adapter and contract tests: OAuth (`/o/oauth2/v2/auth`,
 * `/token`) and the Calendar API v3 subset under `/calendar/v3`, with fault injection.
 *
 *   const google = await FakeGoogle.start({ calendars: [{ id, summary, timeZone, accessRole, events }] });
 *   const config = google.config();             // GoogleConfig pointing here
 *   const tokens = google.oauth.issue();        // start connected, or drive the OAuth flow
 *   google.inject({ status: 429, retryAfter: '1' });
 *   await google.close();
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { type GoogleConfig, googleConfig } from '../../src/calendars/google/config.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { type FakeCalendarSeed, FakeCalendars } from './google/calendar.ts';
import { type FakeRequest, type FakeResponse, googleError, readRequest, send } from './google/http.ts';
import { FakeOAuth } from './google/oauth.ts';

export type { FakeCalendarSeed } from './google/calendar.ts';

export interface FakeGoogleOptions {
  clientId?: string;
  clientSecret?: string;
  /** Registered redirect URIs; the first is what `config()` uses. */
  redirectUris?: string[];
  /** The signed-in person, named in id_tokens. */
  user?: { email: string; sub?: string };
  calendars?: FakeCalendarSeed[];
  /** Default 3600, as Google. */
  accessTokenTtlSeconds?: number;
  /** Decides token and code expiry; share a TestClock with the adapter to expire tokens. */
  clock?: Clock;
  /** Largest page served whatever maxResults asks (Google may return fewer). Default 2500. */
  maxPageSize?: number;
}

/** One injected failure; faults are used in order, each for `times` matching requests. */
export interface FakeFault {
  /** Answer with this status and a Google error body (omit to only delay). */
  status?: number;
  /** Google error reason, e.g. `rateLimitExceeded`, `fullSyncRequired`; defaults per status. */
  reason?: string;
  domain?: string;
  message?: string;
  /** Retry-After header value (seconds or an HTTP date). */
  retryAfter?: string;
  /** Wait this long before answering, to trip client timeouts. */
  delayMs?: number;
  /** Default 1. */
  times?: number;
  /** Which requests it applies to, by path and query; default: every Calendar API request. */
  match?: RegExp;
}

export interface LoggedRequest {
  method: string;
  /** Path and query, e.g. `/calendar/v3/calendars/primary/events?singleEvents=true…`. */
  url: string;
  status: number;
}

const apiPrefix = '/calendar/v3';

export class FakeGoogle {
  readonly url: string;
  readonly oauth: FakeOAuth;
  readonly calendars: FakeCalendars;
  /** Every request answered, in order. */
  readonly requests: LoggedRequest[] = [];
  readonly #server: Server;
  readonly #faults: Array<FakeFault & { times: number }> = [];
  readonly #closing = new AbortController();
  readonly #settings: { clientId: string; clientSecret: string; redirectUri: string };

  static async start(options: FakeGoogleOptions = {}): Promise<FakeGoogle> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FakeGoogle(server, options);
  }

  private constructor(server: Server, options: FakeGoogleOptions) {
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const redirectUris = options.redirectUris ?? ['http://127.0.0.1/connect/google/callback'];
    this.#settings = {
      clientId: options.clientId ?? 'fake-client-id.apps.googleusercontent.com',
      clientSecret: options.clientSecret ?? 'fake-client-secret',
      redirectUri: redirectUris[0]!,
    };
    this.oauth = new FakeOAuth({
      ...this.#settings,
      redirectUris,
      user: { sub: '100000000000000000001', email: 'person@example.com', ...options.user },
      accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3600,
      clock: options.clock ?? systemClock,
    });
    this.calendars = new FakeCalendars(options.calendars ?? [], options.maxPageSize ?? 2500);
    server.on('request', (req, res) => {
      readRequest(req, this.url)
        .then((request) => this.#answer(request))
        .then((response) => {
          this.requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', status: response.status });
          send(res, response);
        })
        .catch((error: unknown) => {
          if (this.#closing.signal.aborted) return res.destroy();
          send(res, googleError(500, { message: String(error) }));
        });
    });
  }

  /** A GoogleConfig for the adapter, pointing at this fake. */
  config(overrides: Partial<GoogleConfig> = {}): GoogleConfig {
    return googleConfig({
      ...this.#settings,
      authorizationUrl: `${this.url}/o/oauth2/v2/auth`,
      tokenUrl: `${this.url}/token`,
      apiBaseUrl: `${this.url}${apiPrefix}`,
      ...overrides,
    });
  }

  inject(fault: FakeFault): void {
    this.#faults.push({ ...fault, times: fault.times ?? 1 });
  }

  async close(): Promise<void> {
    this.#closing.abort();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #answer(request: FakeRequest): Promise<FakeResponse> {
    const target = request.url.pathname + request.url.search;
    const index = this.#faults.findIndex((fault) => (fault.match ?? /^\/calendar\/v3\//).test(target));
    const fault = this.#faults[index];
    if (fault !== undefined) {
      if (--fault.times === 0) this.#faults.splice(index, 1);
      if (fault.delayMs !== undefined)
        await delay(fault.delayMs, undefined, { signal: this.#closing.signal });
      if (fault.status !== undefined) {
        const headers: Record<string, string> =
          fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
        return googleError(fault.status, { ...fault, headers });
      }
    }
    const path = request.url.pathname;
    if (path === '/o/oauth2/v2/auth') return this.oauth.authorize(request);
    if (path === '/token') return this.oauth.token(request);
    if (path.startsWith(`${apiPrefix}/`)) {
      return (
        this.oauth.check(request.headers.authorization) ??
        this.calendars.handle(request, path.slice(apiPrefix.length))
      );
    }
    return googleError(404);
  }
}
