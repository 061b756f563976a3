/**
 * The fake identity platform (`/{tenant}/oauth2/v2.0/authorize` and `/token`): authorization
 * codes bound to client, redirect URI and PKCE S256 challenge; access and refresh tokens
 * carrying the scopes the authorization asked for; `invalid_grant` for revoked refresh tokens,
 * bad codes, and refreshes asking for more than the authorization did (the refresh_token
 * grant: "equivalent to or a subset of the scopes requested in the original" request).
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
  /** What the grant was asked for. */
  scopes: string[];
}

/** What the service asks for today, so that tokens issued without a browser match a new connect. */
export const currentScopes = [
  'offline_access',
  'openid',
  'email',
  'Calendars.ReadWrite',
  'User.Read',
  'Calendars.ReadWrite.Shared',
];

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
  /** access token → its scopes. */
  readonly accessScopes = new Map<string, string[]>();
  /** refresh token → mailbox, the scopes of its authorization and whether it was revoked. */
  readonly refreshTokens = new Map<string, { email: string; scopes: string[]; revoked: boolean }>();
  /** `grant_type` of every token request, in order. */
  readonly grants: string[] = [];

  constructor(client: FakeClient, lifetimeSeconds: number) {
    this.client = client;
    this.#lifetimeSeconds = lifetimeSeconds;
  }

  /** `granted`: the authorization's scopes; `scopes`: this access token's (a refresh may ask fewer). */
  issue(email: string, granted: string[] = currentScopes, scopes: string[] = granted): IssuedTokens {
    const accessToken = opaque('at');
    const refreshToken = opaque('rt');
    this.accessTokens.set(accessToken, email);
    this.accessScopes.set(accessToken, scopes);
    this.refreshTokens.set(refreshToken, { email, scopes: granted, revoked: false });
    return {
      accessToken,
      refreshToken,
      expiresAt: Temporal.Now.instant().add({ seconds: this.#lifetimeSeconds }).epochMilliseconds,
      scopes: granted,
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
      return this.#tokens(code.email, code.scopes, code.scopes);
    }
    if (grant === 'refresh_token') {
      const known = this.refreshTokens.get(form.get('refresh_token') ?? '');
      if (known === undefined || known.revoked) {
        return oauthError(400, 'invalid_grant', 'AADSTS70000: The refresh token has been revoked.');
      }
      const asked = (form.get('scope') ?? '').split(' ').filter(Boolean);
      const beyond = asked.filter((scope) => !known.scopes.includes(scope));
      if (beyond.length > 0) {
        return oauthError(
          400,
          'invalid_grant',
          `AADSTS65001: The user or administrator has not consented to use the application: ${beyond.join(' ')}.`,
        );
      }
      return this.#tokens(known.email, known.scopes, asked.length > 0 ? asked : known.scopes);
    }
    return oauthError(400, 'unsupported_grant_type', `AADSTS70003: ${grant} is not supported.`);
  }

  #tokens(email: string, granted: string[], scopes: string[]): Reply {
    const tokens = this.issue(email, granted, scopes);
    const offline = scopes.includes('offline_access');
    if (!offline) this.refreshTokens.delete(tokens.refreshToken);
    return json({
      token_type: 'Bearer',
      scope: scopes.filter((scope) => scope !== 'offline_access').join(' '),
      expires_in: this.#lifetimeSeconds,
      ext_expires_in: this.#lifetimeSeconds,
      access_token: tokens.accessToken,
      ...(offline ? { refresh_token: tokens.refreshToken } : {}),
    });
  }
}
