/**
 * Authorized requests for one connected account. The access token is refreshed before it
 * expires or once after a 401, and the new tokens are persisted through `saveCredentials`. A
 * refresh Google refuses, or a 401 for a token just issued, ends in `reconnect_required`:
 * retrying the same rejected grant cannot succeed. Writes are sent once (ProviderHttp never
 * repeats them); only a 401 — refused before anything was applied — sends one again.
 */
import { AppError } from '../../errors.ts';
import type { AccountAccess, CredentialsOf } from '../port.ts';
import { providerName } from './config.ts';
import { type GoogleAuthDeps, refreshGoogleTokens } from './oauth.ts';

export type GoogleCredentials = CredentialsOf<'google'>;
export type GoogleAccount = AccountAccess<GoogleCredentials>;

export interface GoogleWrite {
  url: string;
  method: 'POST' | 'PATCH' | 'DELETE';
  /** Sent as JSON. */
  body?: unknown;
  /** The etag the write is conditional on. */
  ifMatch?: string;
}

export interface GoogleSession {
  /** GET with the account's bearer token; any status but 401 is the caller's to interpret. */
  get(url: string): Promise<Response>;
  /** A write with the account's bearer token, never retried; any status but 401 is the caller's. */
  write(request: GoogleWrite): Promise<Response>;
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
    const send = (request: GoogleWrite | { url: string; method?: undefined }) => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${credentials.accessToken}`,
        accept: 'application/json',
      };
      const write = request.method !== undefined;
      if (write && request.body !== undefined) headers['content-type'] = 'application/json';
      if (write && request.ifMatch !== undefined) headers['if-match'] = request.ifMatch;
      return deps.http.request({
        url: request.url,
        method: request.method ?? 'GET',
        headers,
        body: write && request.body !== undefined ? JSON.stringify(request.body) : undefined,
        idempotent: !write,
        accountKey: account.accountKey,
        provider: providerName,
      });
    };
    const renew = async () => {
      credentials = await refresh(account, credentials);
      fresh = true;
    };
    const authorized = async (request: Parameters<typeof send>[0]) => {
      if (credentials.expiresAt - expiryMarginMs <= deps.clock.now().epochMilliseconds) await renew();
      const response = await send(request);
      if (response.status !== 401) return response;
      await response.body?.cancel();
      if (fresh) throw rejected();
      await renew();
      const retried = await send(request);
      if (retried.status !== 401) return retried;
      await retried.body?.cancel();
      throw rejected();
    };

    return {
      get: (url) => authorized({ url }),
      write: (request) => authorized(request),
    };
  }

  return { open };
}

const rejected = () =>
  new AppError('reconnect_required', `${providerName} rejected a freshly issued access token.`, {
    details: { reason: 'token_rejected' },
  });
