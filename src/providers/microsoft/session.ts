/**
 * A connected account's bearer token and the requests that carry it. Tokens are refreshed
 * shortly before they expire or after Graph rejects one, once per account however many calls
 * are waiting, and handed to `saveCredentials` so the refreshed tokens outlive this process.
 * Retries, timeouts and the per-mailbox cap are ProviderHttp's.
 */

import type { Clock } from '../../lib/clock.ts';
import type { AccountAccess, CredentialsOf, OAuthTokens } from '../port.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import { providerName } from './config.ts';

export type MicrosoftAccount = AccountAccess<CredentialsOf<'microsoft'>>;

// Refresh a little early so a token does not expire between our check and Graph's.
const earlyMs = 60_000;

/** Where new tokens come from (oauth.ts), given rather than imported: oauth.ts sends through here. */
export interface TokenSource {
  clock: Clock;
  /** New tokens for `stale`'s refresh token and scopes. */
  refresh(accountKey: string, stale: OAuthTokens): Promise<OAuthTokens>;
}

export class TokenKeeper {
  readonly #deps: TokenSource;
  /** Tokens refreshed during this process, newer than `account.credentials`. */
  readonly #latest = new WeakMap<MicrosoftAccount, OAuthTokens>();
  readonly #refreshing = new Map<string, Promise<OAuthTokens>>();

  constructor(deps: TokenSource) {
    this.#deps = deps;
  }

  /** A usable access token; `fresh` when it was obtained by a refresh just now. */
  async current(account: MicrosoftAccount): Promise<{ accessToken: string; fresh: boolean }> {
    const tokens = this.#tokens(account);
    if (tokens.expiresAt - earlyMs > this.#deps.clock.now().epochMilliseconds) {
      return { accessToken: tokens.accessToken, fresh: false };
    }
    return { accessToken: (await this.#refresh(account, tokens)).accessToken, fresh: true };
  }

  /** The token to use after Graph rejected `rejected`: one refreshed meanwhile, or a new one. */
  async renew(account: MicrosoftAccount, rejected: string): Promise<string> {
    const tokens = this.#tokens(account);
    if (tokens.accessToken !== rejected) return tokens.accessToken;
    return (await this.#refresh(account, tokens)).accessToken;
  }

  #tokens(account: MicrosoftAccount): OAuthTokens {
    return this.#latest.get(account) ?? account.credentials;
  }

  async #refresh(account: MicrosoftAccount, stale: OAuthTokens): Promise<OAuthTokens> {
    let pending = this.#refreshing.get(account.accountKey);
    if (pending === undefined) {
      pending = this.#refreshAndSave(account, stale).finally(() =>
        this.#refreshing.delete(account.accountKey),
      );
      this.#refreshing.set(account.accountKey, pending);
    }
    const tokens = await pending;
    this.#latest.set(account, tokens);
    return tokens;
  }

  async #refreshAndSave(account: MicrosoftAccount, stale: OAuthTokens): Promise<OAuthTokens> {
    const tokens = await this.#deps.refresh(account.accountKey, stale);
    await account.saveCredentials({ kind: 'microsoft', ...tokens });
    return tokens;
  }
}

// Every date-time comes back in UTC; each event's own zone is in originalStartTimeZone.
const utcTimes = 'outlook.timezone="UTC"';

/** A read; `maxPageSize` asks for pages of at most that many items (Graph's `odata.maxpagesize`). */
export function graphGet(
  http: ProviderHttp,
  url: string,
  accessToken: string,
  accountKey: string,
  maxPageSize?: number,
): Promise<Response> {
  const prefer = maxPageSize === undefined ? utcTimes : `${utcTimes}, odata.maxpagesize=${maxPageSize}`;
  return http.request({
    url,
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', prefer },
    idempotent: true,
    accountKey,
    provider: providerName,
  });
}

export interface GraphWrite {
  method: 'POST' | 'PATCH' | 'DELETE';
  url: string;
  /** JSON body, if any. */
  body?: unknown;
  /** The changeKey the write is conditional on. */
  changeKey?: string;
}

/** A write: sent once (ProviderHttp never repeats it), conditional on `changeKey` when given. */
export function graphWrite(
  http: ProviderHttp,
  write: GraphWrite,
  accessToken: string,
  accountKey: string,
): Promise<Response> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${accessToken}`,
    accept: 'application/json',
    prefer: utcTimes,
  };
  if (write.body !== undefined) headers['content-type'] = 'application/json';
  // Graph's entity tag is the changeKey in weak form, as in `@odata.etag`.
  if (write.changeKey !== undefined) headers['if-match'] = `W/"${write.changeKey}"`;
  return http.request({
    url: write.url,
    method: write.method,
    headers,
    body: write.body === undefined ? undefined : JSON.stringify(write.body),
    idempotent: false,
    accountKey,
    provider: providerName,
  });
}
