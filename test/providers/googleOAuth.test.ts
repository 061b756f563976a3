/** Connecting a Google account: authorization URL → (fake) consent → code → tokens, and refresh. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import { googleEndpoints } from '../../src/providers/google/config.ts';
import {
  exchangeGoogleCode,
  type GoogleAuthDeps,
  googleAuthorizationUrl,
  pkceChallenge,
  refreshGoogleTokens,
} from '../../src/providers/google/oauth.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { FakeGoogle } from '../fakes/google.ts';
import { TestClock } from '../helpers/clock.ts';

describe('Google connect flow', () => {
  const clock = new TestClock('2026-10-20T12:00:00Z');
  let google: FakeGoogle;
  let deps: GoogleAuthDeps;

  /** What the browser would do: follow the authorization URL to the redirect back to us. */
  async function authorize(codeVerifier: string, state = randomBytes(16).toString('base64url')) {
    const response = await fetch(googleAuthorizationUrl(deps.config, { state, codeVerifier }), {
      redirect: 'manual',
    });
    assert.equal(response.status, 302);
    const back = new URL(response.headers.get('location')!);
    assert.equal(`${back.origin}${back.pathname}`, deps.config.redirectUri);
    assert.equal(back.searchParams.get('state'), state);
    return back.searchParams;
  }
  /** The code and reason; a grant Google refused names Google's own error beside `grant_refused`. */
  const rejectsWith = (promise: Promise<unknown>, code: string, reason: string) =>
    assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, code);
      if (reason === 'invalid_grant' || reason === 'invalid_client') {
        assert.equal(error.details?.reason, 'grant_refused');
        assert.equal(error.details?.error, reason);
      } else assert.equal(error.details?.reason, reason);
      return true;
    });
  const verifier = () => randomBytes(32).toString('base64url');

  before(async () => {
    google = await FakeGoogle.start({
      clock,
      user: { email: 'person@example.com' },
      calendars: [
        { id: 'person@example.com', summary: 'Me', timeZone: 'Europe/Berlin', accessRole: 'owner' },
      ],
    });
    deps = { http: new ProviderHttp({ sleep: async () => {} }), config: google.config(), clock };
  });
  after(() => google.close());

  it('defaults to the real Google endpoints', () => {
    assert.deepEqual(googleEndpoints, {
      authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      apiBaseUrl: 'https://www.googleapis.com/calendar/v3',
    });
  });

  it('builds the authorization URL with PKCE S256 and offline access', () => {
    const codeVerifier = verifier();
    const url = new URL(
      googleAuthorizationUrl(deps.config, { state: 'st', codeVerifier, loginHint: 'p@example.com' }),
    );
    assert.equal(`${url.origin}${url.pathname}`, `${google.url}/o/oauth2/v2/auth`);
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      client_id: deps.config.clientId,
      redirect_uri: deps.config.redirectUri,
      response_type: 'code',
      scope: 'https://www.googleapis.com/auth/calendar openid email',
      state: 'st',
      code_challenge: pkceChallenge(codeVerifier),
      code_challenge_method: 'S256',
      access_type: 'offline',
      prompt: 'consent',
      login_hint: 'p@example.com',
    });
    assert.doesNotMatch(url.href, new RegExp(codeVerifier));
  });

  it('exchanges the code for tokens and the account e-mail, and the tokens read calendars', async () => {
    const codeVerifier = verifier();
    const params = await authorize(codeVerifier);
    const connection = await exchangeGoogleCode(deps, { code: params.get('code')!, codeVerifier });
    assert.equal(connection.email, 'person@example.com');
    assert.deepEqual(connection.scopes, ['https://www.googleapis.com/auth/calendar', 'openid', 'email']);
    assert.match(connection.tokens.accessToken, /^ya29\./);
    assert.match(connection.tokens.refreshToken, /^1\/\//);
    assert.equal(connection.tokens.expiresAt, clock.now().epochMilliseconds + 3_600_000);

    const provider = createGoogleProvider(deps);
    const calendars = await provider.listCalendars({
      accountKey: 'acc_connect',
      credentials: { kind: 'google', ...connection.tokens },
      saveCredentials: async () => assert.fail('nothing to save'),
    });
    assert.deepEqual(
      calendars.map((c) => c.name),
      ['Me'],
    );
  });

  it('refreshes tokens, keeping the refresh token Google does not rotate', async () => {
    const issued = google.oauth.issue();
    clock.advance({ minutes: 5 });
    const tokens = await refreshGoogleTokens(deps, {
      accountKey: 'acc_1',
      refreshToken: issued.refreshToken,
    });
    assert.equal(tokens.refreshToken, issued.refreshToken);
    assert.notEqual(tokens.accessToken, issued.accessToken);
    assert.equal(tokens.expiresAt, clock.now().epochMilliseconds + 3_600_000);
  });

  it('asks for a reconnect when the verifier does not match, a code is reused or a grant is revoked', async () => {
    const codeVerifier = verifier();
    const code = (await authorize(codeVerifier)).get('code')!;
    await rejectsWith(
      exchangeGoogleCode(deps, { code, codeVerifier: verifier() }),
      'reconnect_required',
      'invalid_grant',
    );
    await rejectsWith(
      exchangeGoogleCode(deps, { code, codeVerifier }),
      'reconnect_required',
      'invalid_grant',
    );

    const issued = google.oauth.issue();
    google.oauth.revokeRefreshTokens();
    await rejectsWith(
      refreshGoogleTokens(deps, { accountKey: 'acc_1', refreshToken: issued.refreshToken }),
      'reconnect_required',
      'invalid_grant',
    );
  });

  it('refuses a connection without calendar access and reports a wrong client secret', async () => {
    google.oauth.consent = { scopes: ['openid', 'email'] };
    try {
      const codeVerifier = verifier();
      const code = (await authorize(codeVerifier)).get('code')!;
      await rejectsWith(
        exchangeGoogleCode(deps, { code, codeVerifier }),
        'reconnect_required',
        'scope_not_granted',
      );
    } finally {
      google.oauth.consent = {};
    }
    const wrongSecret = { ...deps, config: google.config({ clientSecret: 'wrong' }) };
    const codeVerifier = verifier();
    const code = (await authorize(codeVerifier)).get('code')!;
    await rejectsWith(
      exchangeGoogleCode(wrongSecret, { code, codeVerifier }),
      'reconnect_required',
      'invalid_client',
    );
  });

  it('turns a token endpoint outage into provider_unavailable', async () => {
    google.inject({ status: 503, match: /^\/token/, times: 3 });
    const issued = google.oauth.issue();
    await rejectsWith(
      refreshGoogleTokens(deps, { accountKey: 'acc_1', refreshToken: issued.refreshToken }),
      'provider_unavailable',
      'server_error',
    );
  });
});
