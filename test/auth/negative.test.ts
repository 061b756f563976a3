/**
 * Every way an authorization request, a token request or a bearer token can be wrong, each
 * answered with the right error — and nothing granted on the way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importJWK, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { createBearerVerifier, requireScopes } from '../../src/auth/bearer.ts';
import { issuerFor, protectedResources } from '../../src/auth/resources.ts';
import { loadSigningKeys } from '../../src/auth/signingKeys.ts';
import { isAppError } from '../../src/errors.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { liveGrantsOfUser } from '../../src/store/accessGrants.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { mcpToolsList } from '../helpers/mcpRequest.ts';
import {
  type AuthorizationAttempt,
  authorizationUrl,
  consent,
  consentAction,
  discover,
  exchangeCode,
  follow,
  insecure,
  type OAuthHarness,
  reachConsent,
  redirectUri,
  registerClient,
  submit,
} from '../helpers/oauth.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('authorization server: refusals', () => {
  let t: TestApp;
  let h: OAuthHarness;
  let ana: string;
  let workspaceId: string;
  let anaCalendar: string;
  let bobCalendar: string;

  const person = 'ana@example.org';
  const choose = (calendar = anaCalendar) => ({ calendar: [calendar], [`level_${calendar}`]: 'full' });

  /** Where the authorization endpoint sends the browser first, without any sign-in. */
  const firstHop = async (attempt: AuthorizationAttempt) =>
    follow(new PageClient(t.app), attempt.url.href, t.ctx.config.baseUrl);

  const grantedTokens = async (client: oauth.Client, params: Record<string, string> = {}) => {
    const attempt = await authorizationUrl(h, client, params);
    const callback = await consent(t, person, attempt, choose());
    return exchangeCode(h, client, attempt, callback, params.resource ?? h.mcp);
  };

  before(async () => {
    t = await startTestApp({ listen: true });
    ana = await seedUser(t.ctx.db, person);
    const bob = await seedUser(t.ctx.db, 'bob@example.org');
    workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [
      [ana, 'owner'],
      [bob, 'member'],
    ]);
    anaCalendar = (await seedCalendars(t.ctx.db, { userId: ana, workspaceId }, [{ name: 'Ana work' }]))[0]!;
    bobCalendar = (
      await seedCalendars(t.ctx.db, { userId: bob, workspaceId }, [{ name: 'Bob private' }])
    )[0]!;
    h = await discover(t);
  });
  after(() => t.close());

  describe('authorization requests', () => {
    it('requires PKCE: a request without code_challenge goes back to the client as invalid_request', async () => {
      const client = await registerClient(h);
      const attempt = await authorizationUrl(h, client);
      attempt.url.searchParams.delete('code_challenge');
      attempt.url.searchParams.delete('code_challenge_method');
      const { location } = await firstHop(attempt);
      assert.equal(location?.origin + location!.pathname, redirectUri);
      assert.equal(location?.searchParams.get('error'), 'invalid_request');
      assert.equal(location?.searchParams.get('state'), attempt.state);
    });

    it('refuses the plain PKCE method', async () => {
      const client = await registerClient(h);
      const attempt = await authorizationUrl(h, client);
      attempt.url.searchParams.set('code_challenge', attempt.verifier);
      attempt.url.searchParams.set('code_challenge_method', 'plain');
      const { location } = await firstHop(attempt);
      assert.equal(location?.searchParams.get('error'), 'invalid_request');
    });

    it('shows a redirect URI that is not exactly registered an error page, never a redirect', async () => {
      const client = await registerClient(h);
      for (const uri of [
        `${redirectUri}/x`,
        `${redirectUri}?a=1`,
        'http://127.0.0.1:8766/callback',
        'https://evil.example/callback',
      ]) {
        const attempt = await authorizationUrl(h, client, { redirect_uri: uri });
        const { page, location } = await firstHop(attempt);
        assert.equal(location, undefined, uri);
        assert.equal(page.statusCode, 400, uri);
        assert.match(page.headers['content-type'] as string, /text\/html/);
        assert.match(page.body, /cannot go on/);
      }
    });

    it('lets the sign-in page of an authorization request send forms on to its redirect origin only', async () => {
      const client = await registerClient(h);
      const { page } = await firstHop(await authorizationUrl(h, client));
      const next = /name="next" value="([^"]+)"/.exec(page.body)![1]!;
      assert.match(next, /^\/authorize\//);
      const formAction = async (path: string) =>
        /form-action ([^;]+)/.exec(
          String((await new PageClient(t.app).get(path)).headers['content-security-policy']),
        )?.[1];
      // Browsers apply form-action along the redirects that follow a form post, up to the client.
      assert.equal(
        await formAction(`/login?next=${encodeURIComponent(next)}`),
        `'self' ${new URL(redirectUri).origin}`,
      );
      assert.equal(await formAction('/login?next=%2Faccount'), "'self'");
      assert.equal(await formAction('/login?next=%2Fauthorize%2Fno-such-request'), "'self'");
    });

    it('refuses an unknown resource indicator', async () => {
      const client = await registerClient(h);
      const attempt = await authorizationUrl(h, client, { resource: 'https://other.example/mcp' });
      const { location } = await firstHop(attempt);
      assert.equal(location?.searchParams.get('error'), 'invalid_target');
    });

    it('answers access_denied when the person denies', async () => {
      const client = await registerClient(h);
      const attempt = await authorizationUrl(h, client);
      const browser = new PageClient(t.app);
      const step = await reachConsent(t, browser, person, attempt);
      const deny = consentAction(step.page.body).replace(/consent$/, 'deny');
      const { location } = await submit(browser, deny, {}, t.ctx.config.baseUrl);
      assert.equal(location?.searchParams.get('error'), 'access_denied');
      assert.equal(location?.searchParams.get('state'), attempt.state);
    });

    it('does not let a workspace owner grant another member’s calendar (no grant is stored)', async () => {
      const client = await registerClient(h);
      const attempt = await authorizationUrl(h, client);
      const browser = new PageClient(t.app);
      const step = await reachConsent(t, browser, person, attempt);
      assert.doesNotMatch(step.page.body, /Bob private/);
      const workspace = /name="workspace" value="([^"]+)"/.exec(step.page.body)![1]!;
      const { page, location } = await submit(
        browser,
        consentAction(step.page.body),
        { workspace, ...choose(bobCalendar) },
        t.ctx.config.baseUrl,
      );
      assert.equal(location, undefined);
      assert.equal(page.statusCode, 403);
      assert.match(page.body, /calendar_not_permitted/);
      assert.equal(
        (await liveGrantsOfUser(t.ctx.db, ana)).filter((g) => g.clientId === client.client_id).length,
        0,
      );
    });

    it('answers access_denied when the workspace policy does not allow the client', async () => {
      const client = await registerClient(h);
      await savePolicy(t.ctx.db, workspaceId, { ...defaultPolicy, allowedClients: ['someone-else'] }, 0);
      try {
        const attempt = await authorizationUrl(h, client);
        const callback = await consent(t, person, attempt, choose());
        assert.equal(callback.searchParams.get('error'), 'access_denied');
      } finally {
        await savePolicy(t.ctx.db, workspaceId, defaultPolicy, 0);
      }
    });
  });

  describe('token requests', () => {
    const codeFor = async (client: oauth.Client) => {
      const attempt = await authorizationUrl(h, client);
      const callback = await consent(t, person, attempt, choose());
      return { attempt, callback };
    };

    it('refuses a wrong code verifier', async () => {
      const client = await registerClient(h);
      const { attempt, callback } = await codeFor(client);
      await assert.rejects(
        exchangeCode(h, client, { ...attempt, verifier: oauth.generateRandomCodeVerifier() }, callback),
        (e: oauth.ResponseBodyError) => e.error === 'invalid_grant',
      );
    });

    it('refuses a reused code and revokes what the first exchange issued', async () => {
      const client = await registerClient(h);
      const { attempt, callback } = await codeFor(client);
      const first = await exchangeCode(h, client, attempt, callback);
      assert.equal((await mcpToolsList(h.mcp, first.access_token)).status, 200);
      await assert.rejects(
        exchangeCode(h, client, attempt, callback),
        (e: oauth.ResponseBodyError) => e.error === 'invalid_grant',
      );
      assert.equal((await mcpToolsList(h.mcp, first.access_token)).status, 401);
      await assert.rejects(
        oauth
          .refreshTokenGrantRequest(h.as, client, oauth.None(), first.refresh_token!, insecure)
          .then((r) => oauth.processRefreshTokenResponse(h.as, client, r)),
        (e: oauth.ResponseBodyError) => e.error === 'invalid_grant',
      );
    });

    it('gives client_credentials a token that reaches no calendar (403 on every data route)', async () => {
      const registered = await oauth.processDynamicClientRegistrationResponse(
        await oauth.dynamicClientRegistrationRequest(
          h.as,
          {
            grant_types: ['client_credentials'],
            response_types: [],
            redirect_uris: [],
            token_endpoint_auth_method: 'client_secret_basic',
          },
          insecure,
        ),
      );
      const secret = registered.client_secret as string;
      for (const [resource, send] of [
        [h.v1, (token: string) => fetch(`${h.v1}/calendars`, { headers: bearer(token) })],
        [h.mcp, (token: string) => mcpToolsList(h.mcp, token)],
      ] as const) {
        const tokens = await oauth.processClientCredentialsResponse(
          h.as,
          registered,
          await oauth.clientCredentialsGrantRequest(
            h.as,
            registered,
            oauth.ClientSecretBasic(secret),
            new URLSearchParams({ resource, scope: 'calendar:read' }),
            insecure,
          ),
        );
        const response = await send(tokens.access_token);
        assert.equal(response.status, 403, resource);
        assert.equal(((await response.json()) as { code: string }).code, 'forbidden');
      }
    });
  });

  describe('bearer tokens at the resources', () => {
    const resources = () => protectedResources(t.ctx.config.baseUrl);

    /** A token signed with the service's own key, with chosen claims. */
    const forge = async (claims: Record<string, unknown>, expiresIn = '5m') => {
      const [key] = await loadSigningKeys(t.ctx.db, t.ctx.box, t.ctx.config.environment, t.ctx.clock);
      const now = Math.floor(Temporal.Now.instant().epochMilliseconds / 1000);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key!.kid })
        .setIssuer(issuerFor(t.ctx.config.baseUrl))
        .setIssuedAt(now - 600)
        .setExpirationTime(expiresIn === 'past' ? now - 60 : now + 300)
        .sign(await importJWK(key!, 'ES256'));
    };

    let real: Record<string, unknown>;
    before(async () => {
      const tokens = await grantedTokens(await registerClient(h));
      const [, payload] = tokens.access_token.split('.');
      real = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
      const { iss: _iss, iat: _iat, exp: _exp, ...rest } = real;
      real = rest;
      // The forged copy of a real token is accepted: the refusals below come from the one claim changed.
      assert.equal((await mcpToolsList(h.mcp, await forge(real))).status, 200);
    });

    const refused = async (token: string, expected: RegExp) => {
      const response = await mcpToolsList(h.mcp, token);
      assert.equal(response.status, 401);
      const challenge = response.headers.get('www-authenticate')!;
      assert.match(challenge, /error="invalid_token"/);
      assert.match(
        challenge,
        /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      assert.match(((await response.json()) as { detail: string }).detail, expected);
    };

    it('refuses a token of another environment', async () =>
      refused(await forge({ ...real, env: 'production' }), /another environment/));

    it('refuses an expired token', async () => refused(await forge(real, 'past'), /expired/));

    it('refuses a token for another audience, or for several', async () => {
      await refused(await forge({ ...real, aud: resources().v1.url }), /another resource/);
      await refused(
        await forge({ ...real, aud: [resources().mcp.url, resources().v1.url] }),
        /another resource/,
      );
    });

    it('refuses a token whose grant is unknown or belongs to someone else', async () => {
      await refused(await forge({ ...real, gid: 'not-a-grant' }), /grant/);
      await refused(await forge({ ...real, sub: 'usr_someone_else' }), /grant/);
    });

    it('refuses a token signed by another key', async () => {
      const token = await forge(real);
      const [header, payload] = token.split('.');
      const other = await new SignJWT(JSON.parse(Buffer.from(payload!, 'base64url').toString()))
        .setProtectedHeader(JSON.parse(Buffer.from(header!, 'base64url').toString()))
        .sign(
          (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']))
            .privateKey,
        );
      await refused(other, /invalid/);
    });

    it('answers a missing token with the resource metadata challenge, not an error code', async () => {
      const response = await mcpToolsList(h.mcp);
      assert.equal(response.status, 401);
      const challenge = response.headers.get('www-authenticate')!;
      assert.doesNotMatch(challenge, /error=/);
      assert.match(challenge, /^Bearer resource_metadata="/);
    });

    it('answers a scope the grant does not hold with 403 insufficient_scope naming it', async () => {
      const verifier = createBearerVerifier({
        db: t.ctx.db,
        clock: t.ctx.clock,
        issuer: issuerFor(t.ctx.config.baseUrl),
        environment: t.ctx.config.environment,
        signingKeys: await loadSigningKeys(t.ctx.db, t.ctx.box, t.ctx.config.environment, t.ctx.clock),
      });
      const mcp = resources().mcp;
      // The token even claims calendar:write; the grant (workspace policy: read only) does not hold it.
      const principal = await verifier.authenticate(
        `Bearer ${await forge({ ...real, scope: 'calendar:read calendar:write' })}`,
        mcp,
      );
      assert.deepEqual(principal.scopes, ['calendar:read']);
      assert.throws(
        () => requireScopes(principal, mcp, ['calendar:write']),
        (e) =>
          isAppError(e) &&
          e.status === 403 &&
          e.code === 'insufficient_scope' &&
          /error="insufficient_scope", scope="calendar:write"/.test(e.challenge ?? ''),
      );
    });
    it("answers without waiting for the record of the grant's last use", async () => {
      // A database whose write of the last use never completes (a lock held elsewhere, say).
      let touched = 0;
      const stalled = {
        set: () => stalled,
        where: () => stalled,
        execute: () => {
          touched += 1;
          return new Promise(() => {});
        },
      };
      const db = new Proxy(t.ctx.db, {
        get(target, key) {
          if (key === 'updateTable')
            return (table: string) =>
              table === 'access_grants' ? stalled : target.updateTable(table as never);
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const verifier = createBearerVerifier({
        db,
        clock: t.ctx.clock,
        issuer: issuerFor(t.ctx.config.baseUrl),
        environment: t.ctx.config.environment,
        signingKeys: await loadSigningKeys(t.ctx.db, t.ctx.box, t.ctx.config.environment, t.ctx.clock),
      });
      const answered = verifier.authenticate(`Bearer ${await forge(real)}`, resources().mcp);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise((resolve) => {
        timer = setTimeout(resolve, 2_000, 'waited');
      });
      const principal = await Promise.race([answered, late]);
      clearTimeout(timer);
      assert.notEqual(principal, 'waited', 'the request waited for the last-use write');
      assert.equal(touched, 1);
    });
  });

  describe('registration', () => {
    const register = (body: unknown) =>
      fetch(h.as.registration_endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    it('refuses non-loopback http, too many redirect URIs, and oversized documents', async () => {
      for (const body of [
        { redirect_uris: ['http://app.example/callback'] },
        { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`) },
        { redirect_uris: ['https://app.example/cb'], client_name: 'x'.repeat(500) },
      ]) {
        const response = await register(body);
        assert.equal(response.status, 400);
        assert.equal(((await response.json()) as { error: string }).error, 'invalid_client_metadata');
      }
      const huge = await register({
        redirect_uris: ['https://app.example/cb'],
        contacts: ['a'.repeat(20_000)],
      });
      assert.equal(huge.status, 413);
    });
  });
});

describe('authorization server: abuse limits', () => {
  it('rate-limits registration per client address', async () => {
    const t = await startTestApp({ listen: true, env: { CLIENT_REGISTRATIONS_PER_MINUTE: '10' } });
    try {
      const h = await discover(t);
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const response = await fetch(h.as.registration_endpoint!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
        });
        statuses.push(response.status);
        if (response.status === 429) assert.ok(Number(response.headers.get('retry-after')) >= 1);
      }
      assert.deepEqual(statuses, [...Array(10).fill(201), 429, 429]);
    } finally {
      await t.close();
    }
  });
});

describe('authorization server: browser-based clients', () => {
  it('answers CORS for discovery, registration and token requests from another origin', async () => {
    const t = await startTestApp({ listen: true });
    try {
      const base = t.ctx.config.baseUrl;
      const origin = 'https://assistant.example';
      const preflight = (path: string, method: string) =>
        fetch(base + path, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': method,
            'access-control-request-headers': 'content-type',
          },
        });
      for (const path of [
        '/.well-known/oauth-authorization-server/api/auth',
        '/.well-known/oauth-protected-resource/mcp',
      ]) {
        const response = await fetch(base + path, { headers: { origin } });
        assert.ok(response.headers.get('access-control-allow-origin'), path);
      }
      const registration = await preflight('/api/auth/reg', 'POST');
      assert.equal(registration.status, 204);
      assert.equal(registration.headers.get('access-control-allow-origin'), '*');
      assert.match(registration.headers.get('access-control-allow-headers') ?? '', /content-type/);
      const registered = await fetch(`${base}/api/auth/reg`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [`${origin}/cb`], token_endpoint_auth_method: 'none' }),
      });
      assert.equal(registered.status, 201);
      assert.equal(registered.headers.get('access-control-allow-origin'), '*');
      assert.equal(
        (await preflight('/api/auth/token', 'POST')).headers.get('access-control-allow-origin'),
        origin,
      );
    } finally {
      await t.close();
    }
  });
});
