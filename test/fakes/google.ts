/**
 * A fake Google on 127.0.0.1 for adapter and contract tests: OAuth (`/o/oauth2/v2/auth`,
 * `/token`) and the Calendar API v3 subset under `/calendar/v3`, with fault injection.
 *
 *   const google = await FakeGoogle.start({ calendars: [{ id, summary, timeZone, accessRole, events }] });
 *   const config = google.config();             // GoogleConfig pointing here
 *   const tokens = google.oauth.issue();        // start connected, or drive the OAuth flow
 *   google.inject({ status: 429, retryAfter: '1' });
 *   google.inject({ method: 'PATCH', delayMs: 800, phase: 'after' });   // applied, answered late
 *   google.calendars.changeEvent(calendarId, eventId, { summary: 'x' }); // someone else's change
 *   google.calendars.expireSyncTokens(calendarId);   // next syncToken use answers 410
 *   google.counts.count({ kind: 'events.list' }); google.counts.reset();
 *   google.freeBusy.set('someone@example.org', [{ start, end }]);  // freeBusy.query can tell about them
 *   // a room: a calendar seeded with an id ending in @resource.calendar.google.com, e.g. a
 *   // freeBusyReader one named "HQ-1-Atlas (6) [video]", its busy time set as above
 *   google.channels.expire(channelId);          // or advance the shared clock past its expiration
 *   await google.settled();                     // delayed requests handled (or dropped), notifications sent
 *   await google.close();
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../../src/lib/clock.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { type GoogleConfig, googleConfig } from '../../src/providers/google/config.ts';
import { type FakeCalendarSeed, FakeCalendars } from './google/calendar.ts';
import { FakeChannels } from './google/channels.ts';
import { RequestCounts } from './google/counts.ts';
import { FakeFreeBusy } from './google/freeBusy.ts';
import { type FakeRequest, type FakeResponse, googleError, readRequest, send } from './google/http.ts';
import { FakeOAuth } from './google/oauth.ts';
import { apiPrefix, routeOf } from './google/routes.ts';

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
  /** Decides token, code and channel expiry; share a TestClock with the adapter to expire them. */
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
  /** Wait this long before answering, to trip client timeouts; the wait ends early when the client leaves. */
  delayMs?: number;
  /** Called as the delay begins (the request is held): e.g. a TestDeadline's `expire`. */
  onHeld?: () => void;
  /**
   * For a delay without `status`: `before` (default) waits, then handles the request only if
   * the client is still there (a write whose client timed out is not applied); `after`
   * handles it (a write is applied), then waits before answering. A status answer never
   * applies anything.
   */
  phase?: 'before' | 'after';
  /** Default 1. */
  times?: number;
  /** Which requests it applies to, by path and query; default: every Calendar API request. */
  match?: RegExp;
  /** Only requests with this method (e.g. `PATCH`); any method when absent. */
  method?: string;
}

export interface LoggedRequest {
  method: string;
  /** Path and query, e.g. `/calendar/v3/calendars/primary/events?singleEvents=true…`. */
  url: string;
  /** The answer's status; 0 while unanswered, and for a request dropped because its client left. */
  status: number;
  ifMatch?: string;
  /** The JSON body of a Calendar API write. */
  body?: unknown;
}

export class FakeGoogle {
  readonly url: string;
  readonly oauth: FakeOAuth;
  readonly calendars: FakeCalendars;
  /** Push channels opened with events.watch, and the notifications sent on them. */
  readonly channels: FakeChannels;
  /** Other people's busy time, as freeBusy.query tells it. */
  readonly freeBusy = new FakeFreeBusy();
  /** Every request answered, in order. */
  readonly requests: LoggedRequest[] = [];
  /** Every request received, by kind and method; `reset()` between phases of a test. */
  readonly counts = new RequestCounts();
  readonly #server: Server;
  readonly #faults: Array<FakeFault & { times: number }> = [];
  readonly #handling = new Set<Promise<void>>();
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
    const clock = options.clock ?? systemClock;
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
      clock,
    });
    this.channels = new FakeChannels({
      clock,
      apiUrl: `${this.url}${apiPrefix}`,
      closing: this.#closing.signal,
    });
    this.calendars = new FakeCalendars(options.calendars ?? [], options.maxPageSize ?? 2500, (id, state) =>
      this.channels.changed(id, state),
    );
    server.on('request', (req, res) => {
      const left = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) left.abort();
      });
      const handling = readRequest(req, this.url)
        .then(async (request) => {
          const logged = this.#log(request);
          const response = await this.#answer(request, left.signal);
          if (response === undefined) return;
          logged.status = response.status;
          send(res, response);
        })
        .catch((error: unknown) => {
          if (this.#closing.signal.aborted) return void res.destroy();
          send(res, googleError(500, { message: String(error) }));
        })
        .finally(() => this.#handling.delete(handling));
      this.#handling.add(handling);
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

  /** Resolves once every request received so far is handled (delays included) or dropped. */
  async settled(): Promise<void> {
    while (this.#handling.size > 0) await Promise.all(this.#handling);
    await this.channels.settled();
  }

  async close(): Promise<void> {
    this.#closing.abort();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #log(request: FakeRequest): LoggedRequest {
    this.counts.record(routeOf(request.method, request.url.pathname).kind, request.method);
    const logged: LoggedRequest = {
      method: request.method,
      url: request.url.pathname + request.url.search,
      status: 0,
    };
    const ifMatch = request.headers['if-match'];
    if (ifMatch !== undefined) logged.ifMatch = [ifMatch].flat()[0];
    if (request.method !== 'GET' && request.url.pathname.startsWith(`${apiPrefix}/`) && request.body !== '') {
      try {
        logged.body = JSON.parse(request.body);
      } catch {
        logged.body = request.body;
      }
    }
    this.requests.push(logged);
    return logged;
  }

  /** The fault for this request, taken off the queue once used up. */
  #takeFault(request: FakeRequest): FakeFault | undefined {
    const target = request.url.pathname + request.url.search;
    const index = this.#faults.findIndex(
      (fault) =>
        (fault.match ?? /^\/calendar\/v3\//).test(target) &&
        (fault.method === undefined || fault.method === request.method),
    );
    const fault = this.#faults[index];
    if (fault !== undefined && --fault.times === 0) this.#faults.splice(index, 1);
    return fault;
  }

  /** undefined: the client left during a delay before the request was handled; nothing is sent. */
  async #answer(request: FakeRequest, left: AbortSignal): Promise<FakeResponse | undefined> {
    const fault = this.#takeFault(request);
    const wait = async () => {
      fault?.onHeld?.();
      const signal = AbortSignal.any([this.#closing.signal, left]);
      await delay(fault?.delayMs ?? 0, undefined, { signal }).catch((error: unknown) => {
        if (this.#closing.signal.aborted) throw error;
      });
    };
    const answersLate = fault?.phase === 'after' && fault.status === undefined;
    if (fault?.delayMs !== undefined && !answersLate) {
      await wait();
      if (fault.status === undefined && left.aborted) return undefined;
    }
    if (fault?.status !== undefined) {
      const headers: Record<string, string> =
        fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
      return googleError(fault.status, { ...fault, headers });
    }
    const response = this.#handle(request);
    if (answersLate) await wait();
    return response;
  }

  #handle(request: FakeRequest): FakeResponse {
    const route = routeOf(request.method, request.url.pathname);
    if (route.kind === 'authorize') return this.oauth.authorize(request);
    if (route.kind === 'token') return this.oauth.token(request);
    if (!request.url.pathname.startsWith(`${apiPrefix}/`)) return googleError(404);
    const denied = this.oauth.check(request.headers.authorization, { write: route.kind === 'write' });
    if (denied !== undefined) return denied;
    if (route.kind === 'stop') return this.channels.stop(request.body);
    if (route.kind === 'freeBusy') return this.freeBusy.handle(request);
    if (route.kind === 'watch') {
      const calendarId = route.calendarId ?? '';
      return this.calendars.has(calendarId)
        ? this.channels.watch(calendarId, request.body)
        : googleError(404);
    }
    return route.kind === 'other' ? googleError(404) : this.calendars.handle(request, route);
  }
}
