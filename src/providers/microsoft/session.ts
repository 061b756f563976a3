/**
 * Access tokens per connected account: refreshed shortly before they expire or after Graph
 * rejects one, once per account however many calls are waiting, and handed to
 * `saveCredentials` so the refreshed tokens outlive this process.
 */
import type { AccountAccess, CredentialsOf, OAuthTokens } from '../port.ts';
import { type OAuthDeps, refreshTokens } from './oauth.ts';

export type MicrosoftAccount = AccountAccess<CredentialsOf<'microsoft'>>;

// Refresh a little early so a token does not expire between our check and Graph's.
const earlyMs = 60_000;

export class TokenKeeper {
  readonly #deps: OAuthDeps;
  /** Tokens refreshed during this process, newer than `account.credentials`. */
  readonly #latest = new WeakMap<MicrosoftAccount, OAuthTokens>();
  readonly #refreshing = new Map<string, Promise<OAuthTokens>>();

  constructor(deps: OAuthDeps) {
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
    const tokens = await refreshTokens(this.#deps, account.accountKey, stale.refreshToken);
    await account.saveCredentials({ kind: 'microsoft', ...tokens });
    return tokens;
  }
}
