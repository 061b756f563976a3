/**
 * Google's OAuth 2.0 for web server apps: the authorization URL (PKCE S256, offline access),
 * the code exchange and token refresh. A grant Google refuses means the person must connect
 * again, so 400/401 from the token endpoint become `reconnect_required`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { AppError, type ErrorDetails } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { OAuthTokens } from '../port.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import { calendarScope, type GoogleConfig, googleScopes } from './config.ts';

export interface GoogleAuthDeps {
  http: ProviderHttp;
  config: GoogleConfig;
  clock: Clock;
}

export interface AuthorizationRequest {
  state: string;
  /** RFC 7636 verifier (43–128 unreserved characters); only its S256 hash leaves the service. */
  codeVerifier: string;
  /** Pre-fills the account chooser when reconnecting a known account. */
  loginHint?: string;
}

export interface GoogleConnection {
  tokens: OAuthTokens;
  /** From the id_token, when Google vouches for it. */
  email?: string;
  scopes: string[];
}

interface TokenResponse {
  access_token?: unknown;
  expires_in?: unknown;
  refresh_token?: unknown;
  scope?: unknown;
  id_token?: unknown;
  error?: unknown;
}

export const pkceChallenge = (verifier: string): string =>
  createHash('sha256').update(verifier).digest('base64url');

export function googleAuthorizationUrl(config: GoogleConfig, request: AuthorizationRequest): string {
  const url = new URL(config.authorizationUrl);
  const params = {
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    response_type: 'code',
    scope: (config.scopes ?? googleScopes).join(' '),
    state: request.state,
    code_challenge: pkceChallenge(request.codeVerifier),
    code_challenge_method: 'S256',
    // A refresh token is only issued with offline access, and again on reconnect only with consent.
    access_type: 'offline',
    prompt: 'consent',
    ...(request.loginHint === undefined ? {} : { login_hint: request.loginHint }),
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

export async function exchangeGoogleCode(
  deps: GoogleAuthDeps,
  grant: { code: string; codeVerifier: string },
): Promise<GoogleConnection> {
  const body = await tokenRequest(
    deps,
    {
      grant_type: 'authorization_code',
      code: grant.code,
      code_verifier: grant.codeVerifier,
      redirect_uri: deps.config.redirectUri,
    },
    // No account exists yet, so there is no shared concurrency budget to respect.
    `google-connect:${randomUUID()}`,
    false,
  );
  if (typeof body.refresh_token !== 'string') {
    throw reconnect('Google did not grant offline access.', { reason: 'no_refresh_token' });
  }
  const scopes = typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [];
  // Granular consent lets people untick the calendar; such a connection would be useless.
  if (scopes.length > 0 && !scopes.includes(calendarScope)) {
    throw reconnect('Calendar access was not granted.', { reason: 'scope_not_granted' });
  }
  return {
    tokens: tokensFrom(deps.clock, body, body.refresh_token),
    email: emailFromIdToken(body.id_token, deps.config.clientId),
    scopes,
  };
}

export async function refreshGoogleTokens(
  deps: GoogleAuthDeps,
  account: { accountKey: string; refreshToken: string },
): Promise<OAuthTokens> {
  const body = await tokenRequest(
    deps,
    { grant_type: 'refresh_token', refresh_token: account.refreshToken },
    account.accountKey,
    // Google does not rotate refresh tokens, so repeating a refresh after a 5xx is harmless.
    true,
  );
  const refreshToken = typeof body.refresh_token === 'string' ? body.refresh_token : account.refreshToken;
  return tokensFrom(deps.clock, body, refreshToken);
}

async function tokenRequest(
  deps: GoogleAuthDeps,
  params: Record<string, string>,
  accountKey: string,
  idempotent: boolean,
): Promise<TokenResponse> {
  const response = await deps.http.request({
    url: deps.config.tokenUrl,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      ...params,
      client_id: deps.config.clientId,
      client_secret: deps.config.clientSecret,
    }).toString(),
    idempotent,
    accountKey,
    provider: 'Google sign-in',
  });
  const body = (await response.json().catch(() => ({}))) as TokenResponse;
  if (response.status === 400 || response.status === 401) {
    const error = typeof body.error === 'string' ? body.error : 'rejected';
    throw reconnect(`Google refused the grant (${error}); connect the account again.`, {
      reason: 'grant_refused',
      error,
    });
  }
  if (!response.ok) {
    throw new AppError('provider_unavailable', `Google sign-in failed (HTTP ${response.status}).`, {
      details: { reason: 'server_error', status: response.status },
    });
  }
  return body;
}

function tokensFrom(clock: Clock, body: TokenResponse, refreshToken: string): OAuthTokens {
  if (typeof body.access_token !== 'string' || typeof body.expires_in !== 'number') {
    throw new AppError('provider_unavailable', 'Google sign-in answered without an access token.', {
      details: { reason: 'bad_response' },
    });
  }
  return {
    accessToken: body.access_token,
    refreshToken,
    expiresAt: clock.now().epochMilliseconds + body.expires_in * 1000,
  };
}

/**
 * The id_token came straight from the token endpoint over TLS, so its signature need not be
 * checked (OpenID Connect Core §3.1.3.7); the audience still must be us.
 */
function emailFromIdToken(idToken: unknown, clientId: string): string | undefined {
  if (typeof idToken !== 'string') return undefined;
  try {
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(clientId) || claims.email_verified === false) return undefined;
    return typeof claims.email === 'string' ? claims.email : undefined;
  } catch {
    return undefined;
  }
}

const reconnect = (message: string, details: ErrorDetails) =>
  new AppError('reconnect_required', message, { details });
