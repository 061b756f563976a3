/**
 * Connecting a Microsoft account: the authorization URL (code flow with PKCE S256), the code
 * exchange and token refresh at the v2.0 token endpoint. A refused grant means the user must
 * connect again; it is never retried.
 */
import { createHash, randomUUID } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { type Clock, epochMs } from '../../lib/clock.ts';
import type { OAuthTokens } from '../port.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import { type MicrosoftConfig, providerName } from './config.ts';
import { graphJson } from './errors.ts';
import { graphGet } from './session.ts';
import type { GraphUser } from './wire.ts';

/** What accounts connected before shared calendars were asked for; their refreshes ask for no more. */
const scopesBeforeShared = ['offline_access', 'openid', 'email', 'Calendars.ReadWrite', 'User.Read'];

/** Calendars.ReadWrite.Shared: the calendars others share with the person, written where the share allows. */
const sharedScope = 'Calendars.ReadWrite.Shared';

export const microsoftScopes = [...scopesBeforeShared, sharedScope];

/**
 * The scopes a refresh may ask for: Microsoft refuses more than the authorization asked
 * (invalid_grant), so an account connected before shared calendars keeps the older list.
 */
const scopesOf = (tokens: Pick<OAuthTokens, 'scopes'>): string[] => tokens.scopes ?? scopesBeforeShared;

/** Whether the account's grant reaches calendars shared with the person (else: reconnect). */
export const reachesSharedCalendars = (tokens: Pick<OAuthTokens, 'scopes'>): boolean =>
  scopesOf(tokens).includes(sharedScope);

export interface OAuthDeps {
  http: ProviderHttp;
  config: MicrosoftConfig;
  clock: Clock;
}

export interface ConnectedAccount {
  tokens: OAuthTokens;
  /** The mailbox address (`mail`, else `userPrincipalName`). */
  email: string;
}

/** The URL to send the user to; the caller keeps `state` and `codeVerifier` for the callback. */
export function authorizationUrl(
  config: MicrosoftConfig,
  request: { state: string; codeVerifier: string },
): string {
  const url = new URL(config.authorizationUrl);
  url.search = new URLSearchParams({
    client_id: config.clientId,
    response_type: 'code',
    redirect_uri: config.redirectUri,
    response_mode: 'query',
    scope: microsoftScopes.join(' '),
    state: request.state,
    code_challenge: createHash('sha256').update(request.codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return url.toString();
}

/** Redeems the authorization code and reads who signed in. */
export async function exchangeCode(
  deps: OAuthDeps,
  code: string,
  codeVerifier: string,
): Promise<ConnectedAccount> {
  // No account exists yet; a one-off key keeps connects out of each other's concurrency slots.
  const accountKey = `microsoft-connect:${randomUUID()}`;
  const tokens = await tokenRequest(deps, accountKey, microsoftScopes, {
    grant_type: 'authorization_code',
    code,
    code_verifier: codeVerifier,
    redirect_uri: deps.config.redirectUri,
  });
  if (tokens.refreshToken === undefined) {
    throw new AppError(
      'reconnect_required',
      'Microsoft did not grant offline access; connect the account again.',
    );
  }
  const me = await readMe(deps, accountKey, tokens.accessToken);
  const email = me.mail ?? me.userPrincipalName;
  if (!email)
    throw new AppError('provider_unavailable', `${providerName} did not name the signed-in mailbox.`);
  return { tokens: { ...tokens, refreshToken: tokens.refreshToken, scopes: microsoftScopes }, email };
}

/**
 * New tokens for the account's refresh token, for the scopes it was granted (kept on the new
 * tokens); Microsoft may rotate the refresh token, else the old one stays valid.
 */
export async function refreshTokens(
  deps: OAuthDeps,
  accountKey: string,
  stale: OAuthTokens,
): Promise<OAuthTokens> {
  const tokens = await tokenRequest(deps, accountKey, scopesOf(stale), {
    grant_type: 'refresh_token',
    refresh_token: stale.refreshToken,
  });
  const refreshed = { ...tokens, refreshToken: tokens.refreshToken ?? stale.refreshToken };
  return stale.scopes === undefined ? refreshed : { ...refreshed, scopes: stale.scopes };
}

interface TokenResponse {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number | string;
  error?: string;
}

// Both mean the grant is gone (expired, revoked, consent withdrawn, policy changed).
const grantRefused = new Set(['invalid_grant', 'interaction_required']);

async function tokenRequest(
  deps: OAuthDeps,
  accountKey: string,
  scopes: string[],
  grant: Record<string, string>,
): Promise<Omit<OAuthTokens, 'refreshToken' | 'scopes'> & { refreshToken?: string }> {
  const response = await deps.http.request({
    url: deps.config.tokenUrl,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      client_id: deps.config.clientId,
      client_secret: deps.config.clientSecret,
      scope: scopes.join(' '),
      ...grant,
    }).toString(),
    accountKey,
    provider: providerName,
  });
  const body = (await response.json().catch(() => ({}))) as TokenResponse;
  if (response.ok && body.access_token) {
    return {
      accessToken: body.access_token,
      refreshToken: body.refresh_token,
      expiresAt: epochMs(deps.clock) + Number(body.expires_in ?? 3600) * 1000,
    };
  }
  if (body.error !== undefined && grantRefused.has(body.error)) {
    throw new AppError(
      'reconnect_required',
      'Microsoft refused the account grant; connect the account again.',
      {
        details: { reason: 'grant_refused', error: body.error },
      },
    );
  }
  throw new AppError('provider_unavailable', `${providerName} sign-in failed (HTTP ${response.status}).`, {
    details: { reason: 'oauth_error', status: response.status, error: body.error },
  });
}

function readMe(deps: OAuthDeps, accountKey: string, accessToken: string): Promise<GraphUser> {
  const url = `${deps.config.apiBaseUrl}/me?$select=id,mail,userPrincipalName`;
  return graphGet(deps.http, url, accessToken, accountKey).then((response) => graphJson<GraphUser>(response));
}
