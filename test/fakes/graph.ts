/**
 * A fake Microsoft identity platform + Graph v1.0 over real HTTP on 127.0.0.1: the documented
 * request and response shapes of the subset the adapter uses (OAuth code flow with PKCE,
 * refresh, `/me`, `/me/calendars`, `calendarView`, `events` with its writes, `events/{id}`,
 * `events/{id}/instances`, accept/decline/tentativelyAccept), paging with `@odata.nextLink`,
 * `Prefer: outlook.timezone`, Graph error bodies, and knobs for faults (429/503/401/412,
 * delays before or after a write is applied) and for counting concurrent requests per token.
 * Calendars shared with the user (an `owner` other than the user, `canEdit`) are listed for any
 * token; their events need the `.Shared` scopes the token was granted.
 * For sync: delta queries on calendar views (`graph/delta.ts`), change notifications through
 * webhooks (`graph/subscriptions.ts`) and a count of every request by method and kind.
 * Other people's free/busy through `getSchedule` (`graph/schedules.ts`); rooms through `places`
 * (with Place.Read.All only).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MicrosoftConfig } from '../../src/providers/microsoft/config.ts';
import { DeltaTracker } from './graph/delta.ts';
import { badSegment, calendarEvents, notAllowed, notFound } from './graph/events.ts';
import { graphError, json, oauthError, type Reply, send } from './graph/http.ts';
import { FakeIdentity, type IssuedTokens } from './graph/identity.ts';
import { type GraphNotice, graphNotices } from './graph/notices.ts';
import { FakeSchedules } from './graph/schedules.ts';
import {
  type FakeGraphCalendarSeed,
  type FakeGraphEventSeed,
  type FakeGraphUserSeed,
  renderEvent,
} from './graph/store.ts';
import {
  type ChangeType,
  type FakeSubscription,
  type LifecycleEvent,
  SubscriptionHub,
} from './graph/subscriptions.ts';
import { findItem, updateItem } from './graph/writes.ts';

export type { IssuedTokens } from './graph/identity.ts';
export type { FakeScheduleItem } from './graph/schedules.ts';
export type {
  FakeGraphCalendarSeed,
  FakeGraphEventSeed,
  FakeGraphUserSeed,
  FakeSeries,
} from './graph/store.ts';
export type { FakeSubscription, LifecycleEvent } from './graph/subscriptions.ts';

export interface FakeGraphOptions {
  clientId?: string;
  clientSecret?: string;
  /** Registered redirect URIs (exact match). */
  redirectUris?: string[];
  /**
   * Mailboxes; the first one signs in unless `login_hint` names another. Copied at start (writes
   * change the copy); `FakeGraph.users` may be changed while running.
   */
  users?: FakeGraphUserSeed[];
  /** Most items per page whatever `$top` asks (Graph pages server-side too); default 1000. */
  maxPageSize?: number;
  tokenLifetimeSeconds?: number;
  /** How long a subscription's validation handshake may take (Graph: 10 s). */
  validationTimeoutMs?: number;
}

/** What a request is, for counting: the identity platform's token endpoints, or an API kind. */
export type FakeGraphRequestKind =
  | 'token'
  | 'calendars'
  | 'calendarView'
  | 'delta'
  | 'event'
  | 'write'
  | 'schedule'
  | 'subscription';

/** What the next requests get instead of a normal answer (`api` requests unless `target` says). */
export type FakeGraphFault = {
  target?: 'api' | 'token';
  /** Only requests with this method (or one of these); any method when absent. */
  method?: string | string[];
  /** Wait this long before answering (normally or with `status`); an API wait ends early when the client leaves. */
  delayMs?: number;
  /** Called as the delay begins (the request is held): e.g. a TestDeadline's `expire`. */
  onHeld?: () => void;
  /**
   * For a delay without `status`: `before` (default) waits, then handles the request only if
   * the client is still there (one that timed out finds its write not applied); `after`
   * handles it (a write is applied), then waits before answering.
   */
  phase?: 'before' | 'after';
  /** Answer with this status and a Graph error body; nothing is applied. */
  status?: number;
  /** `Retry-After` header value (seconds or an HTTP date). */
  retryAfter?: string | number;
  code?: string;
};

export interface FakeGraphRequest {
  method: string;
  /** Path below the API root (`/me/calendars`) or the identity path. */
  path: string;
  query: URLSearchParams;
  accessToken?: string;
  prefer?: string;
  ifMatch?: string;
  /** The JSON body of an API write (the raw text when it is not JSON). */
  body?: unknown;
}

const faultCodes: Record<number, [string, string]> = {
  401: ['InvalidAuthenticationToken', 'Access token has expired or is not yet valid.'],
  412: [
    'ErrorIrresolvableConflict',
    'The send or update operation could not be performed because the change key passed in the request does not match the current change key for the item.',
  ],
  429: ['ApplicationThrottled', 'Application is over its MailboxConcurrency limit.'],
  503: ['ServiceNotAvailable', 'The service is temporarily unavailable. Please retry later.'],
};

export class FakeGraph {
  readonly url: string;
  readonly apiBaseUrl: string;
  readonly identity: FakeIdentity;
  readonly users: FakeGraphUserSeed[];
  /** Every request, in arrival order. */
  readonly requests: FakeGraphRequest[] = [];
  /** Every message Exchange would have sent about the writes so far, in order. */
  readonly notices: GraphNotice[] = [];
  /** Other people's schedules, as getSchedule tells them. */
  readonly schedules = new FakeSchedules();
  /** The organisation's rooms, as `GET /places/microsoft.graph.room` lists them (Graph's `room` resource). */
  readonly rooms: Array<Record<string, unknown>> = [];
  /** Added to every API answer (lets concurrent requests overlap). */
  latencyMs = 0;
  readonly #server: Server;
  readonly #options: FakeGraphOptions;
  readonly #faults: Array<FakeGraphFault & { target: 'api' | 'token' }> = [];
  readonly #inFlight = new Map<string, number>();
  readonly #peak = new Map<string, number>();
  readonly #closing = new AbortController();
  readonly #handling = new Set<Promise<void>>();
  readonly #delta = new DeltaTracker();
  readonly #hub: SubscriptionHub;
  /** `METHOD kind` → requests since the last reset. */
  readonly #counts = new Map<string, number>();
  #signInAs: string | undefined;

  static async start(options: FakeGraphOptions = {}): Promise<FakeGraph> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FakeGraph(server, options);
  }

  private constructor(server: Server, options: FakeGraphOptions) {
    const { port } = server.address() as AddressInfo;
    this.#server = server;
    this.#options = options;
    this.url = `http://127.0.0.1:${port}`;
    this.apiBaseUrl = `${this.url}/v1.0`;
    this.users = structuredClone(options.users ?? []);
    this.#hub = new SubscriptionHub(options.validationTimeoutMs ?? 10_000);
    this.identity = new FakeIdentity(
      {
        clientId: options.clientId ?? 'fake-graph-client',
        clientSecret: options.clientSecret ?? 'fake-graph-secret',
        redirectUris: options.redirectUris ?? ['http://127.0.0.1/connect/microsoft/callback'],
      },
      options.tokenLifetimeSeconds ?? 3600,
    );
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const handling = this.#handle(req, res)
        .catch((error: unknown) => send(res, graphError(500, 'generalException', String(error))))
        .finally(() => this.#handling.delete(handling));
      this.#handling.add(handling);
    });
  }

  /** An adapter configuration pointing at this fake (tenant `common`). */
  config(redirectUri = this.identity.client.redirectUris[0]!): MicrosoftConfig {
    return {
      clientId: this.identity.client.clientId,
      clientSecret: this.identity.client.clientSecret,
      tenant: 'common',
      authorizationUrl: `${this.url}/common/oauth2/v2.0/authorize`,
      tokenUrl: `${this.url}/common/oauth2/v2.0/token`,
      apiBaseUrl: this.apiBaseUrl,
      redirectUri,
    };
  }

  /** The service's environment variables pointing at this fake (a service started with them connects here). */
  env(): Record<string, string> {
    const config = this.config();
    return {
      MICROSOFT_CLIENT_ID: config.clientId,
      MICROSOFT_CLIENT_SECRET: config.clientSecret,
      MICROSOFT_AUTH_URL: config.authorizationUrl,
      MICROSOFT_TOKEN_URL: config.tokenUrl,
      MICROSOFT_API_URL: config.apiBaseUrl,
    };
  }

  /**
   * Tokens for a mailbox without the browser round trip, granted `scopes` (default: what a
   * connect asks for today).
   */
  issueTokens(email: string, scopes?: string[]): IssuedTokens {
    return this.identity.issue(email, scopes);
  }

  /** Who signs in at the authorize endpoint when no `login_hint` is given. */
  signInAs(email: string): void {
    this.#signInAs = email;
  }

  /** Revokes every refresh token of the mailbox (the user withdrew consent). */
  revokeRefreshTokens(email: string): void {
    for (const grant of this.identity.refreshTokens.values()) if (grant.email === email) grant.revoked = true;
  }

  /** Invalidates access tokens (all, or one mailbox's), as if they expired. */
  expireAccessTokens(email?: string): void {
    for (const [token, owner] of this.identity.accessTokens) {
      if (email === undefined || owner === email) this.identity.accessTokens.delete(token);
    }
  }

  /** The next `count` requests to `fault.target` (default `api`, with `fault.method` if given) get this fault. */
  failNext(count: number, fault: FakeGraphFault): void {
    for (let i = 0; i < count; i++) this.#faults.push({ ...fault, target: fault.target ?? 'api' });
  }

  /** Resolves once every request received so far is handled (delays included) and every notification sent. */
  async settled(): Promise<void> {
    while (this.#handling.size > 0) await Promise.all(this.#handling);
    await this.#hub.settled();
  }

  /** Requests since the last reset, of one kind and/or method (all when neither is given). */
  requestCount(filter: { kind?: FakeGraphRequestKind; method?: string } = {}): number {
    let total = 0;
    for (const [key, count] of this.#counts) {
      const [method, kind] = key.split(' ');
      if ((filter.kind ?? kind) === kind && (filter.method ?? method) === method) total += count;
    }
    return total;
  }

  /** Requests since the last reset, by `METHOD kind` (`GET delta`, `PATCH write`, `POST token`…). */
  requestCounts(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }

  resetRequestCounts(): void {
    this.#counts.clear();
  }

  /** Invalidates delta and skip tokens (all, or one calendar's): following them answers 410. */
  invalidateDeltaTokens(calendarId?: string): void {
    this.#delta.invalidate(calendarId);
  }

  /** The subscriptions as they stand (expired ones included until deleted). */
  subscriptions(): FakeSubscription[] {
    return [...this.#hub.subscriptions.values()];
  }

  /** Moves a subscription's expiry into the past: it stops notifying. */
  expireSubscription(id: string): void {
    const subscription = this.#hub.subscriptions.get(id);
    if (subscription === undefined) throw new Error(`No subscription ${id} in the fake.`);
    subscription.expirationDateTime = Temporal.Now.instant().subtract({ seconds: 1 });
  }

  /** Sends a lifecycle notification to the subscription's lifecycleNotificationUrl. */
  sendLifecycleNotification(id: string, lifecycleEvent: LifecycleEvent): void {
    this.#hub.lifecycle(id, lifecycleEvent);
  }

  /** The events and series masters of a calendar as stored (all mailboxes searched). */
  storedEvents(calendarId: string): FakeGraphEventSeed[] {
    return this.#calendar(calendarId)?.events ?? [];
  }

  /**
   * Someone else changes an event or one instance (by id) behind the client's back: the
   * properties (Graph names) are applied and it gets a new changeKey, which is returned.
   */
  changeBehindTheBack(eventId: string, properties: Record<string, unknown> = {}): string {
    for (const user of this.users) {
      for (const calendar of user.calendars) {
        const item = findItem(calendar, eventId);
        if (item === undefined) continue;
        const invalid = updateItem(item, properties);
        if (invalid !== undefined)
          throw new Error(`Not a Graph event change: ${JSON.stringify(invalid.body)}`);
        const changeKey = findItem(calendar, eventId)!.changeKey;
        this.#hub.notify(user.email, calendar.id, 'updated', eventId, `W/"${changeKey}"`);
        return changeKey;
      }
    }
    throw new Error(`No event ${eventId} in the fake.`);
  }

  #calendar(calendarId: string): FakeGraphCalendarSeed | undefined {
    return this.users.flatMap((user) => user.calendars).find((calendar) => calendar.id === calendarId);
  }

  /** Most API requests in flight at once with this access token (or with any, without one). */
  peakInFlight(accessToken?: string): number {
    if (accessToken !== undefined) return this.#peak.get(accessToken) ?? 0;
    return Math.max(0, ...this.#peak.values());
  }

  apiRequests(): FakeGraphRequest[] {
    return this.requests.filter((request) => request.path.startsWith('/me'));
  }

  async close(): Promise<void> {
    this.#closing.abort();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const identityPath = /^\/[^/]+\/oauth2\/v2\.0\/(authorize|token)$/.exec(url.pathname);
    if (identityPath) {
      this.requests.push({ method, path: url.pathname, query: url.searchParams });
      this.#count(method, 'token');
      const fault = this.#takeFault('token', method);
      if (fault?.delayMs) await this.#hold(fault);
      if (fault?.status !== undefined) return send(res, faultReply(fault));
      if (identityPath[1] === 'authorize' && method === 'GET') {
        return send(
          res,
          this.identity.authorize(url, (hint) => this.#signIn(hint)),
        );
      }
      if (identityPath[1] === 'token' && method === 'POST') return send(res, await this.identity.token(req));
      return send(res, oauthError(405, 'invalid_request', 'Method not allowed.'));
    }
    if (!url.pathname.startsWith('/v1.0/'))
      return send(res, graphError(404, 'NotFound', 'No such endpoint.'));

    const accessToken = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const prefer = [req.headers.prefer ?? []].flat().join(', ') || undefined;
    const ifMatch = req.headers['if-match'];
    const text = await readText(req);
    const body = text === '' ? undefined : parseJson(text);
    const path = url.pathname.slice('/v1.0'.length);
    this.requests.push({ method, path, query: url.searchParams, accessToken, prefer, ifMatch, body });
    this.#count(method, kindOf(method, path));
    const left = this.#countInFlight(accessToken ?? '', res);
    if (this.latencyMs > 0) await this.#wait(this.latencyMs);
    const fault = this.#takeFault('api', method);
    const answersAfterwards = fault?.phase === 'after' && fault.status === undefined;
    if (fault?.delayMs && !answersAfterwards) await this.#hold(fault, left);
    if (fault?.status !== undefined) return send(res, faultReply(fault));
    // A client that timed out meanwhile has gone: its request is never handled (nothing applied).
    if (left.aborted) return;
    const reply = await this.#api({ method, path, url, accessToken, prefer, ifMatch, body });
    if (fault?.delayMs && answersAfterwards) await this.#hold(fault, left);
    send(res, reply);
  }

  #count(method: string, kind: FakeGraphRequestKind): void {
    const key = `${method} ${kind}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  /** Counts the request while it is open; the signal aborts when the client goes away unanswered. */
  #countInFlight(key: string, res: ServerResponse): AbortSignal {
    const left = new AbortController();
    const now = (this.#inFlight.get(key) ?? 0) + 1;
    this.#inFlight.set(key, now);
    this.#peak.set(key, Math.max(now, this.#peak.get(key) ?? 0));
    res.on('close', () => {
      this.#inFlight.set(key, (this.#inFlight.get(key) ?? 1) - 1);
      if (!res.writableFinished) left.abort();
    });
    return left.signal;
  }

  /** The next queued fault for `target` and `method`, taken off the queue. */
  #takeFault(target: 'api' | 'token', method: string): FakeGraphFault | undefined {
    const index = this.#faults.findIndex(
      (fault) =>
        fault.target === target && (fault.method === undefined || [fault.method].flat().includes(method)),
    );
    return index < 0 ? undefined : this.#faults.splice(index, 1)[0];
  }

  async #wait(ms: number, left?: AbortSignal): Promise<void> {
    const signal = left === undefined ? this.#closing.signal : AbortSignal.any([this.#closing.signal, left]);
    await sleep(ms, undefined, { signal }).catch(() => undefined);
  }

  /** A fault's delay: the request is held (its `onHeld` told) until the delay ends or the client leaves. */
  async #hold(fault: FakeGraphFault, left?: AbortSignal): Promise<void> {
    fault.onHeld?.();
    await this.#wait(fault.delayMs ?? 0, left);
  }

  #signIn(hint: string | null): string | undefined {
    const email = hint ?? this.#signInAs ?? this.users[0]?.email;
    return this.users.some((user) => user.email === email) ? email : undefined;
  }

  #api(request: {
    method: string;
    path: string;
    url: URL;
    accessToken: string | undefined;
    prefer: string | undefined;
    ifMatch: string | undefined;
    body: unknown;
  }): Promise<Reply> | Reply {
    const { method, path, url, accessToken, prefer } = request;
    const email = accessToken === undefined ? undefined : this.identity.accessTokens.get(accessToken);
    const user = this.users.find((candidate) => candidate.email === email);
    if (user === undefined) {
      return graphError(
        401,
        'InvalidAuthenticationToken',
        'Lifetime validation failed, the token is expired.',
        {
          'www-authenticate':
            'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize"',
        },
      );
    }
    const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (segments[0] === 'subscriptions')
      return this.#hub.answer({
        method,
        below: segments.slice(1),
        body: request.body,
        email: user.email,
        calendarIds: user.calendars.map((calendar) => calendar.id),
        apiBaseUrl: this.apiBaseUrl,
      });
    if (segments.join('/') === 'places/microsoft.graph.room') {
      // Listing places needs Place.Read.All, which an administrator consents to.
      if (!this.identity.accessScopes.get(accessToken ?? '')?.includes('Place.Read.All'))
        return graphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
      return method === 'GET' ? this.#page(url, this.rooms) : notAllowed();
    }
    const [me, collection, ...rest] = segments;
    if (me !== 'me') return badSegment(url);
    if (collection === 'calendar' && rest.length === 1 && rest[0] === 'getSchedule')
      return method === 'POST' ? this.schedules.answer(request.body) : notAllowed();
    const readOnly = (reply: () => Reply) => (method === 'GET' ? reply() : notAllowed());
    if (collection === undefined) return readOnly(() => json(this.#me(user)));

    // Events are reached through their calendar, or through /me/events/{id} in any calendar.
    let calendar: FakeGraphCalendarSeed | undefined;
    let below: string[];
    if (collection === 'calendars') {
      const [calendarId, ...under] = rest;
      if (calendarId === undefined)
        return readOnly(() =>
          this.#page(
            url,
            user.calendars.map((c) => renderCalendar(user, c)),
          ),
        );
      calendar = user.calendars.find((candidate) => candidate.id === calendarId);
      if (calendar === undefined) return notFound();
      const found = calendar;
      if (under.length === 0) return readOnly(() => json(renderCalendar(user, found)));
      below = under;
    } else if (collection === 'calendarView' && rest.length === 1 && rest[0] === 'delta') {
      // The default calendar's view.
      calendar = user.calendars.find((candidate) => candidate.isDefaultCalendar) ?? user.calendars[0];
      if (calendar === undefined) return notFound();
      below = ['calendarView', 'delta'];
    } else if (collection === 'events' && rest[0] !== undefined) {
      const eventId = rest[0];
      calendar = user.calendars.find((candidate) => findItem(candidate, eventId) !== undefined);
      if (calendar === undefined) return notFound();
      below = ['events', ...rest];
    } else return badSegment(url);

    const owner = calendar.owner ?? ownerOf(user);
    const refused = sharedAccessRefused(
      owner,
      user,
      method,
      this.identity.accessScopes.get(accessToken ?? ''),
    );
    if (refused !== undefined) return refused;
    const zone = preferredZone(prefer);
    if (below[0] === 'calendarView' && below[1] === 'delta' && below.length === 2) {
      if (method !== 'GET') return notAllowed();
      return this.#delta.answer({
        url,
        endpoint: `${this.url}${url.pathname}`,
        calendar,
        owner,
        zone,
        prefer,
        maxPageSize: this.#options.maxPageSize ?? 1000,
      });
    }
    const eventId = below[0] === 'events' ? below[1] : undefined;
    const writing = method !== 'GET' && below[0] === 'events';
    const rendered = (id: string | undefined) => {
      const item = id === undefined ? undefined : findItem(calendar!, id);
      return item && renderEvent(item, owner, zone);
    };
    const before = writing ? rendered(eventId) : undefined;
    const reply = calendarEvents(calendar, {
      method,
      url,
      below,
      body: request.body,
      ifMatch: request.ifMatch,
      email: user.email,
      owner,
      mailbox: user.calendars,
      zone,
      now: Temporal.Now.instant(),
      page: (pageUrl, items, headers) => this.#page(pageUrl, items, headers),
    });
    if (writing && reply.status < 300) {
      const after = rendered(eventId ?? (reply.body as { id?: string } | undefined)?.id);
      this.notices.push(...graphNotices(method, below[2], request.body, before, after));
    }
    if (method !== 'GET' && reply.status < 300)
      this.#notifyWrite(user.email, calendar.id, method, below, reply);
    return reply;
  }

  /** A write that succeeded notifies the subscriptions covering its calendar. */
  #notifyWrite(email: string, calendarId: string, method: string, below: string[], reply: Reply): void {
    const written = reply.body as { id?: string; '@odata.etag'?: string } | undefined;
    const eventId = below[1] ?? written?.id;
    if (eventId === undefined) return;
    const changeType: ChangeType =
      method === 'DELETE' ? 'deleted' : below[1] === undefined ? 'created' : 'updated';
    this.#hub.notify(email, calendarId, changeType, eventId, written?.['@odata.etag']);
  }

  #me(user: FakeGraphUserSeed): Record<string, unknown> {
    return {
      '@odata.context': `${this.apiBaseUrl}/$metadata#users/$entity`,
      id: `user-${user.email}`,
      displayName: user.displayName ?? user.email,
      mail: user.email,
      userPrincipalName: user.email,
      businessPhones: [],
      givenName: null,
      surname: null,
      jobTitle: null,
      mobilePhone: null,
      officeLocation: null,
      preferredLanguage: 'en-US',
    };
  }

  /** `$top` items from `$skip`, capped by maxPageSize; a nextLink with the same query when more remain. */
  #page(url: URL, items: unknown[], headers: Record<string, string> = {}): Reply {
    const skip = Number(url.searchParams.get('$skip') ?? 0);
    const top = Math.min(Number(url.searchParams.get('$top') ?? 10), this.#options.maxPageSize ?? 1000);
    const body: Record<string, unknown> = { value: items.slice(skip, skip + top) };
    if (skip + top < items.length) {
      const next = new URL(url);
      next.searchParams.set('$skip', String(skip + top));
      body['@odata.nextLink'] = next.toString();
    }
    return json(body, headers);
  }
}

/** The kind a request is counted under. */
function kindOf(method: string, path: string): FakeGraphRequestKind {
  const segments = path.split('/').filter(Boolean);
  if (segments[0] === 'subscriptions') return 'subscription';
  if (segments.at(-1) === 'delta') return 'delta';
  if (segments.at(-1) === 'getSchedule') return 'schedule';
  if (method !== 'GET') return 'write';
  if (segments.includes('calendarView')) return 'calendarView';
  if (segments.includes('events')) return 'event';
  return 'calendars';
}

const ownerOf = (user: FakeGraphUserSeed) => ({ name: user.displayName ?? user.email, address: user.email });

const isUser = (user: FakeGraphUserSeed, address: string) =>
  [user.email, ...(user.aliases ?? [])].some((own) => own.toLowerCase() === address.toLowerCase());

/**
 * Events of a calendar someone else owns need the shared scopes ("Get shared or delegated
 * Outlook calendar and its events"): reading one of them, writing the other; Graph lists such
 * calendars without them, and refuses what is inside.
 */
function sharedAccessRefused(
  owner: { address: string },
  user: FakeGraphUserSeed,
  method: string,
  scopes: string[] = [],
): Reply | undefined {
  if (isUser(user, owner.address)) return undefined;
  const needed =
    method === 'GET'
      ? ['Calendars.Read.Shared', 'Calendars.ReadWrite.Shared']
      : ['Calendars.ReadWrite.Shared'];
  if (needed.some((scope) => scopes.includes(scope))) return undefined;
  return graphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
}

function renderCalendar(user: FakeGraphUserSeed, calendar: FakeGraphCalendarSeed): Record<string, unknown> {
  const canEdit = calendar.canEdit ?? true;
  const owner = calendar.owner ?? ownerOf(user);
  return {
    id: calendar.id,
    name: calendar.name,
    color: 'auto',
    hexColor: calendar.hexColor ?? '',
    isDefaultCalendar: calendar.isDefaultCalendar ?? false,
    changeKey: `ck-${calendar.id}`,
    // "Only the user who created the calendar can share it."
    canShare: isUser(user, owner.address),
    canViewPrivateItems: canEdit,
    canEdit,
    allowedOnlineMeetingProviders: ['teamsForBusiness'],
    defaultOnlineMeetingProvider: 'teamsForBusiness',
    isTallyingResponses: true,
    isRemovable: !calendar.isDefaultCalendar,
    owner,
  };
}

/** The zone named by `Prefer: outlook.timezone="…"` (UTC or an IANA name here), else UTC. */
function preferredZone(prefer: string | undefined): { zone: string; name: string } {
  const name = /outlook\.timezone="([^"]+)"/.exec(prefer ?? '')?.[1];
  if (name === undefined || name === 'UTC') return { zone: 'UTC', name: 'UTC' };
  try {
    return { zone: new Temporal.ZonedDateTime(0n, name).timeZoneId, name };
  } catch {
    return { zone: 'UTC', name: 'UTC' };
  }
}

function faultReply(fault: FakeGraphFault): Reply {
  const [code, message] = faultCodes[fault.status!] ?? ['generalException', 'Injected fault.'];
  const headers: Record<string, string> = {};
  if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
  if (fault.status === 401) headers['www-authenticate'] = 'Bearer realm=""';
  return graphError(fault.status!, fault.code ?? code, message, headers);
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
