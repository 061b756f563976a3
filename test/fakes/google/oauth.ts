/**
 * The fake's Google OAuth 2.0: the authorization endpoint (answers at once as if the person
 * consented — no browser), the token endpoint (authorization_code with PKCE S256,
 * refresh_token) and bearer checks for the Calendar API, with Google's error answers.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../../src/lib/clock.ts';
import { type FakeRequest, type FakeResponse, googleError, json } from './http.ts';

export interface FakeOAuthOptions {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  user: { email: string; sub: string };
  accessTokenTtlSeconds: number;
  clock: Clock;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds, on the fake's clock. */
  expiresAt: number;
}

interface PendingCode {
  redirectUri: string;
  challenge: string;
  scopes: string[];
  offline: boolean;
  expiresAt: number;
}

/** Scopes that allow changing events (the read-only ones do not). */
const writeScopes = new Set([
  'https://www.googleapis.com/auth/calendar',
  'https://www.googleapis.com/auth/calendar.events',
]);
const token = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const oauthError = (status: number, error: string, description: string) =>
  json({ error, error_description: description }, status, { 'cache-control': 'no-store' });
const page = (status: number, text: string): FakeResponse => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: `<!doctype html><title>Error</title><p>${text}</p>`,
});

export class FakeOAuth {
  /** What the consent screen answers next: every requested scope, a subset, or a refusal. */
  consent: { deny?: boolean; scopes?: string[] } = {};
  readonly #options: FakeOAuthOptions;
  readonly #codes = new Map<string, PendingCode>();
  readonly #accessTokens = new Map<string, { expiresAt: number; scopes: string[] }>();
  readonly #refreshTokens = new Map<string, { scopes: string[]; revoked: boolean }>();

  constructor(options: FakeOAuthOptions) {
    this.#options = options;
  }

  /** Tokens as if a connect flow had completed, for tests that start connected. */
  issue(
    scopes = ['https://www.googleapis.com/auth/calendar', 'openid', 'email'],
    ttlSeconds?: number,
  ): IssuedTokens {
    const refreshToken = token('1//fake-refresh-');
    this.#refreshTokens.set(refreshToken, { scopes, revoked: false });
    return { ...this.#accessToken(scopes, ttlSeconds), refreshToken };
  }

  /** Every refresh token answers invalid_grant from now on (the person revoked access). */
  revokeRefreshTokens(): void {
    for (const grant of this.#refreshTokens.values()) grant.revoked = true;
  }

  /** Every access token issued so far answers 401, whatever its expiry. */
  expireAccessTokens(): void {
    this.#accessTokens.clear();
  }

  authorize(request: FakeRequest): FakeResponse {
    const params = request.url.searchParams;
    if (params.get('client_id') !== this.#options.clientId) return page(401, 'Error 401: invalid_client');
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!this.#options.redirectUris.includes(redirectUri))
      return page(400, 'Error 400: redirect_uri_mismatch');
    const challenge = params.get('code_challenge') ?? '';
    const problem =
      params.get('response_type') !== 'code'
        ? 'unsupported_response_type'
        : !params.get('scope')
          ? 'invalid_scope'
          : params.get('code_challenge_method') !== 'S256' || !/^[\w-]{43}$/.test(challenge)
            ? 'invalid_request'
            : undefined;
    const back = new URL(redirectUri);
    const state = params.get('state');
    if (state !== null) back.searchParams.set('state', state);
    if (problem !== undefined || this.consent.deny) {
      back.searchParams.set('error', problem ?? 'access_denied');
      return { status: 302, headers: { location: back.href } };
    }
    const requested = (params.get('scope') ?? '').split(' ').filter(Boolean);
    const scopes = this.consent.scopes ?? requested;
    const code = token('4/fake-code-');
    this.#codes.set(code, {
      redirectUri,
      challenge,
      scopes,
      offline: params.get('access_type') === 'offline',
      expiresAt: this.#now() + 600_000,
    });
    back.searchParams.set('code', code);
    back.searchParams.set('scope', scopes.join(' '));
    return { status: 302, headers: { location: back.href } };
  }

  token(request: FakeRequest): FakeResponse {
    if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'POST required');
    const form = new URLSearchParams(request.body);
    const [clientId, clientSecret] = this.#clientCredentials(request, form);
    if (clientId !== this.#options.clientId || clientSecret !== this.#options.clientSecret) {
      return oauthError(401, 'invalid_client', 'Unauthorized');
    }
    switch (form.get('grant_type')) {
      case 'authorization_code':
        return this.#exchange(form);
      case 'refresh_token':
        return this.#refresh(form);
      default:
        return oauthError(400, 'unsupported_grant_type', 'Invalid grant_type');
    }
  }

  /** undefined when the bearer token may read (or write) calendars; else Google's 401/403 answer. */
  check(authorization: string | undefined, access: { write?: boolean } = {}): FakeResponse | undefined {
    const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (bearer === undefined) {
      return googleError(401, { reason: 'required', message: 'Login Required.' });
    }
    const grant = this.#accessTokens.get(bearer);
    if (grant === undefined || grant.expiresAt <= this.#now()) return googleError(401);
    const allowed = access.write
      ? (scope: string) => writeScopes.has(scope)
      : (scope: string) => scope.startsWith('https://www.googleapis.com/auth/calendar');
    if (!grant.scopes.some(allowed)) {
      return googleError(403, {
        reason: 'insufficientPermissions',
        domain: 'global',
        message: 'Insufficient Permission',
      });
    }
    return undefined;
  }

  #exchange(form: URLSearchParams): FakeResponse {
    const code = form.get('code') ?? '';
    const pending = this.#codes.get(code);
    this.#codes.delete(code); // single use, even when the exchange fails
    if (pending === undefined || pending.expiresAt <= this.#now()) {
      return oauthError(400, 'invalid_grant', 'Malformed auth code.');
    }
    if (form.get('redirect_uri') !== pending.redirectUri) {
      return oauthError(400, 'redirect_uri_mismatch', 'Bad Request');
    }
    if (s256(form.get('code_verifier') ?? '') !== pending.challenge) {
      return oauthError(400, 'invalid_grant', 'Invalid code verifier.');
    }
    const access = this.#accessToken(pending.scopes);
    const body: Record<string, unknown> = this.#tokenBody(access.accessToken, pending.scopes);
    if (pending.offline) {
      body.refresh_token = token('1//fake-refresh-');
      this.#refreshTokens.set(body.refresh_token as string, { scopes: pending.scopes, revoked: false });
    }
    if (pending.scopes.includes('openid')) body.id_token = this.#idToken(pending.scopes);
    return json(body, 200, { 'cache-control': 'no-store' });
  }

  #refresh(form: URLSearchParams): FakeResponse {
    const grant = this.#refreshTokens.get(form.get('refresh_token') ?? '');
    if (grant === undefined || grant.revoked) {
      return oauthError(400, 'invalid_grant', 'Token has been expired or revoked.');
    }
    const access = this.#accessToken(grant.scopes);
    return json(this.#tokenBody(access.accessToken, grant.scopes), 200, { 'cache-control': 'no-store' });
  }

  #accessToken(scopes: string[], ttlSeconds = this.#options.accessTokenTtlSeconds) {
    const accessToken = token('ya29.fake-');
    const expiresAt = this.#now() + ttlSeconds * 1000;
    this.#accessTokens.set(accessToken, { expiresAt, scopes });
    return { accessToken, expiresAt };
  }

  #tokenBody(accessToken: string, scopes: string[]): Record<string, unknown> {
    return {
      access_token: accessToken,
      expires_in: this.#options.accessTokenTtlSeconds,
      scope: scopes.join(' '),
      token_type: 'Bearer',
    };
  }

  /** Shaped like Google's (RS256 header, standard claims); the signature is not real. */
  #idToken(scopes: string[]): string {
    const now = Math.floor(this.#now() / 1000);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = {
      iss: 'https://accounts.google.com',
      azp: this.#options.clientId,
      aud: this.#options.clientId,
      sub: this.#options.user.sub,
      ...(scopes.includes('email') ? { email: this.#options.user.email, email_verified: true } : {}),
      iat: now,
      exp: now + 3600,
    };
    return `${part({ alg: 'RS256', kid: 'fake', typ: 'JWT' })}.${part(claims)}.${randomBytes(32).toString('base64url')}`;
  }

  /** client_secret_post or client_secret_basic (form-urlencoded parts, RFC 6749 §2.3.1). */
  #clientCredentials(request: FakeRequest, form: URLSearchParams): [string | null, string | null] {
    const basic = /^Basic (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (basic === undefined) return [form.get('client_id'), form.get('client_secret')];
    const [id = '', secret = ''] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    return [decodeURIComponent(id), decodeURIComponent(secret)];
  }

  #now(): number {
    return this.#options.clock.now().epochMilliseconds;
  }
}
