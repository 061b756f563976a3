/**
 * The fake identity platform (`/{tenant}/oauth2/v2.0/authorize` and `/token`): authorization
 * codes bound to client, redirect URI and PKCE S256 challenge; access and refresh tokens;
 * `invalid_grant` for revoked refresh tokens and bad codes.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { json, oauthError, type Reply, readForm, redirect } from './http.ts';

export interface FakeClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds (real time). */
  expiresAt: number;
}

interface Code {
  email: string;
  redirectUri: string;
  challenge: string;
  scopes: string[];
}

const opaque = (prefix: string) => `${prefix}.${randomBytes(24).toString('base64url')}`;

export class FakeIdentity {
  readonly client: FakeClient;
  readonly #lifetimeSeconds: number;
  readonly #codes = new Map<string, Code>();
  /** access token → mailbox, while valid. */
  readonly accessTokens = new Map<string, string>();
  /** refresh token → mailbox and whether it was revoked. */
  readonly refreshTokens = new Map<string, { email: string; revoked: boolean }>();
  /** `grant_type` of every token request, in order. */
  readonly grants: string[] = [];

  constructor(client: FakeClient, lifetimeSeconds: number) {
    this.client = client;
    this.#lifetimeSeconds = lifetimeSeconds;
  }

  issue(email: string): IssuedTokens {
    const accessToken = opaque('at');
    const refreshToken = opaque('rt');
    this.accessTokens.set(accessToken, email);
    this.refreshTokens.set(refreshToken, { email, revoked: false });
    return {
      accessToken,
      refreshToken,
      expiresAt: Temporal.Now.instant().add({ seconds: this.#lifetimeSeconds }).epochMilliseconds,
    };
  }

  /** Errors about the client or redirect URI are shown, never redirected (they could be forged). */
  authorize(url: URL, signIn: (hint: string | null) => string | undefined): Reply {
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri') ?? '';
    if (query.get('client_id') !== this.client.clientId) {
      return oauthError(400, 'unauthorized_client', 'AADSTS700016: Application not found.');
    }
    if (!this.client.redirectUris.includes(redirectUri)) {
      return oauthError(400, 'invalid_request', 'AADSTS50011: The redirect URI does not match.');
    }
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const fail = (error: string, description: string) => {
      back.searchParams.set('error', error);
      back.searchParams.set('error_description', description);
      return redirect(back);
    };
    if (query.get('response_type') !== 'code')
      return fail('unsupported_response_type', 'Only code is supported.');
    const challenge = query.get('code_challenge');
    if (!challenge || query.get('code_challenge_method') !== 'S256') {
      return fail('invalid_request', 'AADSTS501491: PKCE with code_challenge_method S256 is required.');
    }
    const scopes = (query.get('scope') ?? '').split(' ').filter(Boolean);
    if (scopes.length === 0) return fail('invalid_request', 'AADSTS900144: The request must contain scope.');
    const email = signIn(query.get('login_hint'));
    if (email === undefined) return fail('access_denied', 'AADSTS50020: User account does not exist.');
    const code = opaque('code');
    this.#codes.set(code, { email, redirectUri, challenge, scopes });
    back.searchParams.set('code', code);
    return redirect(back);
  }

  async token(req: IncomingMessage): Promise<Reply> {
    const form = await readForm(req);
    const grant = form.get('grant_type') ?? '';
    this.grants.push(grant);
    if (
      form.get('client_id') !== this.client.clientId ||
      form.get('client_secret') !== this.client.clientSecret
    ) {
      return oauthError(401, 'invalid_client', 'AADSTS7000215: Invalid client secret provided.');
    }
    if (grant === 'authorization_code') {
      const code = this.#codes.get(form.get('code') ?? '');
      this.#codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (
        code === undefined ||
        code.redirectUri !== form.get('redirect_uri') ||
        code.challenge !== challenge
      ) {
        return oauthError(400, 'invalid_grant', 'AADSTS70008: The provided authorization code is invalid.');
      }
      return this.#tokens(code.email, code.scopes.includes('offline_access'));
    }
    if (grant === 'refresh_token') {
      const known = this.refreshTokens.get(form.get('refresh_token') ?? '');
      if (known === undefined || known.revoked) {
        return oauthError(400, 'invalid_grant', 'AADSTS70000: The refresh token has been revoked.');
      }
      return this.#tokens(known.email, true);
    }
    return oauthError(400, 'unsupported_grant_type', `AADSTS70003: ${grant} is not supported.`);
  }

  #tokens(email: string, offline: boolean): Reply {
    const tokens = this.issue(email);
    if (!offline) this.refreshTokens.delete(tokens.refreshToken);
    return json({
      token_type: 'Bearer',
      scope: 'Calendars.ReadWrite User.Read openid email profile',
      expires_in: this.#lifetimeSeconds,
      ext_expires_in: this.#lifetimeSeconds,
      access_token: tokens.accessToken,
      ...(offline ? { refresh_token: tokens.refreshToken } : {}),
    });
  }
}
