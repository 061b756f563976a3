/**
 * A fake Microsoft identity platform + Graph v1.0 over real HTTP on 127.0.0.1: the documented
 * request and response shapes of the subset the adapter uses (OAuth code flow with PKCE,
 * refresh, `/me`, `/me/calendars`, `calendarView`, `events/{id}`, `events/{id}/instances`),
 * paging with `@odata.nextLink`, `Prefer: outlook.timezone`, Graph error bodies, and knobs
 * for faults (429/503/401, delays) and for counting concurrent requests per access token.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MicrosoftConfig } from '../../src/calendars/microsoft/config.ts';
import { graphError, json, oauthError, type Reply, send } from './graph/http.ts';
import { FakeIdentity, type IssuedTokens } from './graph/identity.ts';
import {
  type FakeGraphCalendarSeed,
  type FakeGraphUserSeed,
  inWindow,
  renderEvent,
  type StoredItem,
  seriesInstances,
  storedEvent,
} from './graph/store.ts';

export type { IssuedTokens } from './graph/identity.ts';
export type {
  FakeGraphCalendarSeed,
  FakeGraphEventSeed,
  FakeGraphUserSeed,
  FakeWeeklySeries,
} from './graph/store.ts';

export interface FakeGraphOptions {
  clientId?: string;
  clientSecret?: string;
  /** Registered redirect URIs (exact match). */
  redirectUris?: string[];
  /** Mailboxes; the first one signs in unless `login_hint` names another. Mutable while running. */
  users?: FakeGraphUserSeed[];
  /** Most items per page whatever `$top` asks (Graph pages server-side too); default 1000. */
  maxPageSize?: number;
  tokenLifetimeSeconds?: number;
}

/** What the next requests get instead of a normal answer (`api` requests unless `target` says). */
export type FakeGraphFault = {
  target?: 'api' | 'token';
  /** Wait this long before answering (normally or with `status`). */
  delayMs?: number;
  /** Answer with this status and a Graph error body. */
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
}

const faultCodes: Record<number, [string, string]> = {
  401: ['InvalidAuthenticationToken', 'Access token has expired or is not yet valid.'],
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
  /** Added to every API answer (lets concurrent requests overlap). */
  latencyMs = 0;
  readonly #server: Server;
  readonly #options: FakeGraphOptions;
  readonly #faults: Array<FakeGraphFault & { target: 'api' | 'token' }> = [];
  readonly #inFlight = new Map<string, number>();
  readonly #peak = new Map<string, number>();
  readonly #closing = new AbortController();
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
    this.users = options.users ?? [];
    this.identity = new FakeIdentity(
      {
        clientId: options.clientId ?? 'fake-graph-client',
        clientSecret: options.clientSecret ?? 'fake-graph-secret',
        redirectUris: options.redirectUris ?? ['http://127.0.0.1/connect/microsoft/callback'],
      },
      options.tokenLifetimeSeconds ?? 3600,
    );
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.#handle(req, res).catch((error: unknown) => {
        send(res, graphError(500, 'generalException', String(error)));
      });
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

  /** Tokens for a mailbox without the browser round trip. */
  issueTokens(email: string): IssuedTokens {
    return this.identity.issue(email);
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

  /** The next `count` requests to `fault.target` (default `api`) get this fault. */
  failNext(count: number, fault: FakeGraphFault): void {
    for (let i = 0; i < count; i++) this.#faults.push({ ...fault, target: fault.target ?? 'api' });
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
      const fault = await this.#fault('token');
      if (fault) return send(res, fault);
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
    const path = url.pathname.slice('/v1.0'.length);
    this.requests.push({ method, path, query: url.searchParams, accessToken, prefer });
    this.#countInFlight(accessToken ?? '', res);
    if (this.latencyMs > 0) await this.#wait(this.latencyMs);
    send(res, (await this.#fault('api')) ?? this.#api(method, path, url, accessToken, prefer));
  }

  #countInFlight(key: string, res: ServerResponse): void {
    const now = (this.#inFlight.get(key) ?? 0) + 1;
    this.#inFlight.set(key, now);
    this.#peak.set(key, Math.max(now, this.#peak.get(key) ?? 0));
    res.on('close', () => this.#inFlight.set(key, (this.#inFlight.get(key) ?? 1) - 1));
  }

  /** The next queued fault for `target`, after its delay; undefined to answer normally. */
  async #fault(target: 'api' | 'token'): Promise<Reply | undefined> {
    const index = this.#faults.findIndex((fault) => fault.target === target);
    if (index < 0) return undefined;
    const [fault] = this.#faults.splice(index, 1);
    if (fault?.delayMs) await this.#wait(fault.delayMs);
    if (fault?.status === undefined) return undefined;
    const [code, message] = faultCodes[fault.status] ?? ['generalException', 'Injected fault.'];
    const headers: Record<string, string> = {};
    if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
    if (fault.status === 401) headers['www-authenticate'] = 'Bearer realm=""';
    return graphError(fault.status, fault.code ?? code, message, headers);
  }

  async #wait(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.#closing.signal }).catch(() => undefined);
  }

  #signIn(hint: string | null): string | undefined {
    const email = hint ?? this.#signInAs ?? this.users[0]?.email;
    return this.users.some((user) => user.email === email) ? email : undefined;
  }

  #api(
    method: string,
    path: string,
    url: URL,
    accessToken: string | undefined,
    prefer: string | undefined,
  ): Reply {
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
    if (method !== 'GET') return graphError(405, 'Request_BadRequest', 'Method not allowed.');
    const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
    const [me, calendars, calendarId, sub, eventId, instances, ...rest] = segments;
    const badSegment = graphError(400, 'BadRequest', `Resource not found for the segment '${path}'.`);
    if (me !== 'me' || rest.length > 0) return badSegment;
    if (calendars === undefined) return json(this.#me(user));
    if (calendars !== 'calendars') return badSegment;
    if (calendarId === undefined)
      return this.#page(
        url,
        user.calendars.map((c) => renderCalendar(user, c)),
      );
    const calendar = user.calendars.find((candidate) => candidate.id === calendarId);
    if (calendar === undefined) return notFound();
    if (sub === undefined) return json(renderCalendar(user, calendar));
    const zone = preferredZone(prefer);
    const headers = { 'preference-applied': `outlook.timezone="${zone.name}"` };
    const render = (item: StoredItem) => renderEvent(item, calendar.owner ?? ownerOf(user), zone);
    const items = calendar.events?.map(storedEvent) ?? [];

    if (sub === 'calendarView' && eventId === undefined) {
      const window = timeWindow(url);
      if ('status' in window) return window;
      const visible = items
        .flatMap((item) => (item.type === 'seriesMaster' ? seriesInstances(item) : [item]))
        .filter((item) => inWindow(item, window.from, window.to));
      return this.#page(url, byStart(visible).map(render), headers);
    }
    if (sub !== 'events' || eventId === undefined) return badSegment;
    const event = items
      .flatMap((item) => [item, ...seriesInstances(item)])
      .find((item) => item.id === eventId);
    if (event === undefined) return notFound();
    if (instances === undefined) return json(render(event), headers);
    if (instances !== 'instances') return badSegment;
    const window = timeWindow(url);
    if ('status' in window) return window;
    const inside = seriesInstances(event).filter((item) => inWindow(item, window.from, window.to));
    return this.#page(url, byStart(inside).map(render), headers);
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

const ownerOf = (user: FakeGraphUserSeed) => ({ name: user.displayName ?? user.email, address: user.email });

function renderCalendar(user: FakeGraphUserSeed, calendar: FakeGraphCalendarSeed): Record<string, unknown> {
  const canEdit = calendar.canEdit ?? true;
  return {
    id: calendar.id,
    name: calendar.name,
    color: 'auto',
    hexColor: calendar.hexColor ?? '',
    isDefaultCalendar: calendar.isDefaultCalendar ?? false,
    changeKey: `ck-${calendar.id}`,
    canShare: canEdit,
    canViewPrivateItems: canEdit,
    canEdit,
    allowedOnlineMeetingProviders: ['teamsForBusiness'],
    defaultOnlineMeetingProvider: 'teamsForBusiness',
    isTallyingResponses: true,
    isRemovable: !calendar.isDefaultCalendar,
    owner: calendar.owner ?? ownerOf(user),
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

/** startDateTime/endDateTime: with an offset, or else read as UTC. */
function timeWindow(url: URL): { from: Temporal.Instant; to: Temporal.Instant } | Reply {
  const read = (name: string): Temporal.Instant | undefined => {
    const value = url.searchParams.get(name);
    if (value === null) return undefined;
    try {
      return /(Z|[+-]\d{2}:\d{2})$/i.test(value)
        ? Temporal.Instant.from(value)
        : Temporal.PlainDateTime.from(value).toZonedDateTime('UTC').toInstant();
    } catch {
      return undefined;
    }
  };
  const from = read('startDateTime');
  const to = read('endDateTime');
  if (from !== undefined && to !== undefined) return { from, to };
  return graphError(
    400,
    'ErrorInvalidParameter',
    'This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.',
  );
}

const byStart = (items: StoredItem[]) =>
  [...items].sort(
    (a, b) => Temporal.Instant.compare(a.start.toInstant(), b.start.toInstant()) || a.id.localeCompare(b.id),
  );

const notFound = () =>
  graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
