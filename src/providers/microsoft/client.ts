/**
 * Graph as a connected account: bearer tokens (one refresh on a first 401, then
 * reconnect_required), typed JSON, paging over `@odata.nextLink` (pages read within a limit),
 * and writes sent once.
 */
import { AppError } from '../../errors.ts';
import { providerName } from './config.ts';
import { graphAnswerText, graphJson, graphPage, graphWriteFailure } from './errors.ts';
import { type OAuthDeps, refreshTokens } from './oauth.ts';
import { type GraphWrite, graphGet, graphWrite, type MicrosoftAccount, TokenKeeper } from './session.ts';
import type { GraphPage } from './wire.ts';

/** Query parameters; OData names keep their `$` (Graph reads them unencoded). */
export type GraphQuery = Record<string, string>;

export class GraphClient {
  readonly #deps: OAuthDeps;
  readonly #tokens: TokenKeeper;
  readonly #root: URL;

  constructor(deps: OAuthDeps) {
    this.#deps = deps;
    this.#tokens = new TokenKeeper({
      clock: deps.clock,
      refresh: (accountKey, stale) => refreshTokens(deps, accountKey, stale),
    });
    this.#root = new URL(`${deps.config.apiBaseUrl}/`);
  }

  /** `path` below the API root, e.g. `/me/calendars`. */
  async get<T>(account: MicrosoftAccount, path: string, query: GraphQuery = {}): Promise<T> {
    const url = this.url(path, query);
    return graphJson<T>(await this.#authorized(account, (token) => this.#read(account, url, token)));
  }

  /** Every item of a collection, following `@odata.nextLink` page by page. */
  async getAll<T>(account: MicrosoftAccount, path: string, query: GraphQuery = {}): Promise<T[]> {
    const items: T[] = [];
    let url: string | undefined = this.url(path, query);
    while (url !== undefined) {
      const page: GraphPage<T> = await this.page<T>(account, url);
      items.push(...page.value);
      url = page['@odata.nextLink'];
    }
    return items;
  }

  /**
   * One page of a collection at `url`, a link Graph gave (followed only below the API root:
   * the bearer token goes nowhere else); `maxPageSize` is sent as Graph's `odata.maxpagesize`.
   */
  async page<T>(account: MicrosoftAccount, url: string, maxPageSize?: number): Promise<GraphPage<T>> {
    if (!this.isApiLink(url))
      throw new AppError('provider_unavailable', `${providerName} sent a next-page link to another host.`, {
        details: { reason: 'other_origin' },
      });
    return graphPage<T>(
      await this.#authorized(account, (token) => this.#read(account, url, token, maxPageSize)),
    );
  }

  /** Whether `link` is an address below the configured API root (and carries no user name). */
  isApiLink(link: string): boolean {
    if (!URL.canParse(link)) return false;
    const url = new URL(link);
    return (
      url.origin === this.#root.origin &&
      url.pathname.startsWith(this.#root.pathname) &&
      url.username === '' &&
      url.password === ''
    );
  }

  /**
   * A write to `path`, sent once: never repeated, except after a 401 (Graph applied nothing).
   * Resolves with the JSON answer, or undefined when there is none (202, 204).
   */
  async write<T>(
    account: MicrosoftAccount,
    path: string,
    write: Omit<GraphWrite, 'url'>,
    maxAnswerBytes?: number,
  ): Promise<T | undefined> {
    const request = { ...write, url: this.url(path, {}) };
    const response = await this.#authorized(account, (token) =>
      graphWrite(this.#deps.http, request, token, account.accountKey),
    );
    if (!response.ok) throw await graphWriteFailure(response);
    const text = await graphAnswerText(response, maxAnswerBytes);
    if (text === '') return undefined;
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      // Graph accepted the write but its answer cannot be read: what happened is for a read to tell.
      throw new AppError('provider_unavailable', `${providerName} sent an unreadable answer.`, {
        cause,
        details: { reason: 'unreadable', status: response.status },
      });
    }
  }

  #read(account: MicrosoftAccount, url: string, token: string, maxPageSize?: number): Promise<Response> {
    return graphGet(this.#deps.http, url, token, account.accountKey, maxPageSize);
  }

  /** The address of `path` below the API root, with `query`. */
  url(path: string, query: GraphQuery): string {
    const search = Object.entries(query)
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join('&');
    return `${this.#deps.config.apiBaseUrl}${path}${search === '' ? '' : `?${search}`}`;
  }

  async #authorized(
    account: MicrosoftAccount,
    send: (token: string) => Promise<Response>,
  ): Promise<Response> {
    const { accessToken, fresh } = await this.#tokens.current(account);
    const response = await send(accessToken);
    // A just-refreshed token that is still refused will not get better by refreshing again.
    if (response.status !== 401 || fresh) return response;
    await response.body?.cancel();
    return send(await this.#tokens.renew(account, accessToken));
  }
}
