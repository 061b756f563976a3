/**
 * Authorized reads for one connected account. The access token is refreshed before it expires
 * or once after a 401, and the new tokens are persisted through `saveCredentials`. A refresh
 * Google refuses, or a 401 for a token just issued, ends in `reconnect_required`: retrying the
 * same rejected grant cannot succeed.
 */
import { AppError } from '../../errors.ts';
import type { AccountAccess, CredentialsOf } from '../provider.ts';
import { providerName } from './config.ts';
import { type GoogleAuthDeps, refreshGoogleTokens } from './oauth.ts';

export type GoogleCredentials = CredentialsOf<'google'>;
export type GoogleAccount = AccountAccess<GoogleCredentials>;

export interface GoogleSession {
  /** GET with the account's bearer token; any status but 401 is the caller's to interpret. */
  get(url: string): Promise<Response>;
}

/** Refresh this long before the stated expiry, so a token does not lapse in flight. */
const expiryMarginMs = 60_000;

export function createGoogleSessions(deps: GoogleAuthDeps): { open(account: GoogleAccount): GoogleSession } {
  // Concurrent calls for one account share a refresh instead of racing to the token endpoint.
  const refreshing = new Map<string, Promise<GoogleCredentials>>();

  function refresh(account: GoogleAccount, stale: GoogleCredentials): Promise<GoogleCredentials> {
    let pending = refreshing.get(account.accountKey);
    if (pending === undefined) {
      pending = (async () => {
        const tokens = await refreshGoogleTokens(deps, {
          accountKey: account.accountKey,
          refreshToken: stale.refreshToken,
        });
        const credentials: GoogleCredentials = { kind: 'google', ...tokens };
        await account.saveCredentials(credentials);
        return credentials;
      })().finally(() => refreshing.delete(account.accountKey));
      refreshing.set(account.accountKey, pending);
    }
    return pending;
  }

  function open(account: GoogleAccount): GoogleSession {
    let credentials = account.credentials;
    let fresh = false;
    const send = (url: string) =>
      deps.http.request({
        url,
        headers: { authorization: `Bearer ${credentials.accessToken}`, accept: 'application/json' },
        idempotent: true,
        accountKey: account.accountKey,
        provider: providerName,
      });
    const renew = async () => {
      credentials = await refresh(account, credentials);
      fresh = true;
    };

    return {
      async get(url) {
        if (credentials.expiresAt - expiryMarginMs <= deps.clock.now().epochMilliseconds) await renew();
        const response = await send(url);
        if (response.status !== 401) return response;
        await response.body?.cancel();
        if (fresh) throw rejected();
        await renew();
        const retried = await send(url);
        if (retried.status !== 401) return retried;
        await retried.body?.cancel();
        throw rejected();
      },
    };
  }

  return { open };
}

const rejected = () =>
  new AppError('reconnect_required', `${providerName} rejected a freshly issued access token.`, {
    details: { reason: 'token_rejected' },
  });
