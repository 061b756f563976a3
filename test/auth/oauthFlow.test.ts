/**
 * The whole authorization flow with an independent client (oauth4webapi) over real HTTP, the
 * person's part through the real pages, on both storage engines: discovery, DCR, PKCE, consent,
 * code exchange bound to a resource, refresh rotation and reuse, revocation, the `iss` check.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { liveGrantsOfUser } from '../../src/store/accessGrants.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { mcpToolsList } from '../helpers/mcpRequest.ts';
import {
  authorizationUrl,
  consent,
  consentAction,
  discover,
  exchangeCode,
  insecure,
  type OAuthHarness,
  reachConsent,
  registerClient,
} from '../helpers/oauth.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

for (const engine of await enginesUnderTest()) {
  describe(`OAuth flow end to end (${engine.name})`, { skip: engine.skip }, () => {
    let t: TestApp;
    let h: OAuthHarness;
    let userId: string;
    let workspaceId: string;
    let work: string;
    let family: string;

    before(async () => {
      t = await startTestApp({ listen: true, database: await engine.open() });
      userId = await seedUser(t.ctx.db, 'ana@example.org');
      workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
      const ids = await seedCalendars(t.ctx.db, { userId, workspaceId }, [
        { name: 'Work' },
        { name: 'Family', access: 'freeBusy' },
      ]);
      work = ids[0]!;
      family = ids[1]!;
      h = await discover(t);
    });
    after(() => t.close());

    it('advertises what MCP clients need in the metadata', () => {
      assert.deepEqual(h.as.code_challenge_methods_supported, ['S256']);
      assert.equal(h.as.authorization_response_iss_parameter_supported, true);
      assert.equal(h.as.client_id_metadata_document_supported, true);
      assert.ok(h.as.grant_types_supported?.includes('client_credentials'));
      for (const endpoint of ['registration_endpoint', 'revocation_endpoint', 'token_endpoint'] as const) {
        assert.ok(h.as[endpoint]?.startsWith(`${h.issuer.href}/`), endpoint);
      }
    });

    it('runs DCR → PKCE → sign-in → consent → code → audience-bound token → refresh rotation → reuse ends the grant', async () => {
      const client = await registerClient(h);
      const attempt = await authorizationUrl(h, client, { scope: 'calendar:read offline_access' });
      const callback = await consent(t, 'ana@example.org', attempt, {
        calendar: [work],
        [`level_${work}`]: 'titles',
      });
      assert.equal(callback.searchParams.get('iss'), h.issuer.href);
      assert.equal(callback.searchParams.get('state'), attempt.state);

      const tokens = await exchangeCode(h, client, attempt, callback);
      const claims = decodeJwt(tokens.access_token);
      assert.equal(claims.aud, h.mcp);
      assert.equal(claims.iss, h.issuer.href);
      assert.equal(claims.sub, userId);
      assert.equal(claims.env, 'test');
      assert.equal(claims.scope, 'calendar:read');
      assert.ok(claims.exp! - claims.iat! <= 600);
      assert.ok(tokens.refresh_token);

      const [grant] = await liveGrantsOfUser(t.ctx.db, userId);
      assert.deepEqual(grant?.calendars, [{ calendarId: work, detailLevel: 'titles' }]);
      assert.equal(grant?.privateDetails, false);

      const mcp = await mcpToolsList(h.mcp, tokens.access_token);
      assert.equal(mcp.status, 200);
      const wrongAudience = await fetch(`${h.v1}/calendars`, { headers: bearer(tokens.access_token) });
      assert.equal(wrongAudience.status, 401);
      assert.match(wrongAudience.headers.get('www-authenticate')!, /error="invalid_token"/);

      const refresh = async (token: string) =>
        oauth.processRefreshTokenResponse(
          h.as,
          client,
          await oauth.refreshTokenGrantRequest(h.as, client, oauth.None(), token, insecure),
        );
      const rotated = await refresh(tokens.refresh_token!);
      assert.notEqual(rotated.refresh_token, tokens.refresh_token);
      assert.equal(decodeJwt(rotated.access_token).aud, h.mcp);

      await assert.rejects(
        refresh(tokens.refresh_token!),
        (e: oauth.ResponseBodyError) => e.error === 'invalid_grant',
      );
      await assert.rejects(
        refresh(rotated.refresh_token!),
        (e: oauth.ResponseBodyError) => e.error === 'invalid_grant',
      );
      const afterReuse = await mcpToolsList(h.mcp, rotated.access_token);
      assert.equal(afterReuse.status, 401);
      assert.deepEqual(await liveGrantsOfUser(t.ctx.db, userId), []);
    });

    it('gives /v1 a token of its own, and lists only the calendars chosen at their effective level', async () => {
      const client = await registerClient(h);
      const attempt = await authorizationUrl(h, client, {
        resource: h.v1,
        scope: 'calendar:read calendar:write',
      });
      const callback = await consent(t, 'ana@example.org', attempt, {
        calendar: [family],
        [`level_${family}`]: 'busy',
      });
      const tokens = await exchangeCode(h, client, attempt, callback, h.v1);
      assert.equal(decodeJwt(tokens.access_token).aud, h.v1);
      // The workspace allows reading only, and /v1 is read-only anyway.
      assert.equal(decodeJwt(tokens.access_token).scope, 'calendar:read');
      const response = await fetch(`${h.v1}/calendars`, { headers: bearer(tokens.access_token) });
      assert.equal(response.status, 200);
      const body = (await response.json()) as {
        data: Array<{ id: string; detailLevel: string }>;
        meta: unknown;
      };
      assert.deepEqual(
        body.data.map((c) => [c.id, c.detailLevel]),
        [[family, 'busy']],
      );
      assert.deepEqual(body.meta, { excluded: [{ reason: 'not_selected', count: 1 }] });
      const onMcp = await mcpToolsList(h.mcp, tokens.access_token);
      assert.equal(onMcp.status, 401);
    });

    it('skips consent for the same or fewer scopes, and asks again with prompt=consent', async () => {
      const client = await registerClient(h);
      const browser = new PageClient(t.app);
      const first = await authorizationUrl(h, client);
      await consent(t, 'ana@example.org', first, { calendar: [work], [`level_${work}`]: 'full' }, browser);

      const again = await authorizationUrl(h, client);
      const callback = await consent(t, 'ana@example.org', again, {}, browser);
      assert.ok(callback.searchParams.get('code'), 'no consent page the second time');
      const tokens = await exchangeCode(h, client, again, callback);
      assert.equal(decodeJwt(tokens.access_token).scope, 'calendar:read');

      const forced = await authorizationUrl(h, client, { prompt: 'consent' });
      const step = await reachConsent(t, browser, 'ana@example.org', forced);
      assert.equal(step.location, undefined, 'prompt=consent shows the consent page again');
      assert.match(consentAction(step.page.body), /^\/authorize\/[^/]+\/consent$/);
    });

    it('asks again when a grant lacks what is asked (the workspace allowed writes since), and keeps one grant per app', async () => {
      const client = await registerClient(h);
      const browser = new PageClient(t.app);
      const asked = { scope: 'calendar:read calendar:write' };
      const choice = { calendar: [work], [`level_${work}`]: 'full' };
      // The workspace allows reading only: the consent page says what it will not allow.
      const first = await authorizationUrl(h, client, asked);
      const shown = await reachConsent(t, browser, 'ana@example.org', first);
      assert.match(
        shown.page.body,
        /id="withheld">It also asked to create, change and delete events, which the workspace/,
      );
      const firstTokens = await exchangeCode(
        h,
        client,
        first,
        await consent(t, 'ana@example.org', first, choice, browser),
      );
      assert.equal(decodeJwt(firstTokens.access_token).scope, 'calendar:read');

      await savePolicy(
        t.ctx.db,
        workspaceId,
        { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write'] },
        0,
      );
      const again = await authorizationUrl(h, client, asked);
      const asking = await reachConsent(t, browser, 'ana@example.org', again);
      assert.equal(asking.location, undefined, 'the consent page, not a silent read-only token');
      assert.doesNotMatch(asking.page.body, /id="withheld"/);
      const tokens = await exchangeCode(
        h,
        client,
        again,
        await consent(t, 'ana@example.org', again, choice, browser),
      );
      assert.equal(decodeJwt(tokens.access_token).scope, 'calendar:read calendar:write');

      // The new consent took the earlier grant's place: one row, and the earlier tokens ended.
      const mine = (await liveGrantsOfUser(t.ctx.db, userId)).filter((g) => g.clientId === client.client_id);
      assert.equal(mine.length, 1);
      assert.equal((await mcpToolsList(h.mcp, firstTokens.access_token)).status, 401);
      assert.equal((await mcpToolsList(h.mcp, tokens.access_token)).status, 200);
      // Everything asked is granted now: the next authorization skips the consent page.
      const third = await authorizationUrl(h, client, asked);
      assert.ok((await reachConsent(t, browser, 'ana@example.org', third)).location, 'no consent page');
      await savePolicy(t.ctx.db, workspaceId, defaultPolicy, 0);
    });

    it('revokes a refresh token at the revocation endpoint, and the access token dies with the grant', async () => {
      const client = await registerClient(h);
      const attempt = await authorizationUrl(h, client);
      const callback = await consent(t, 'ana@example.org', attempt, {
        calendar: [work],
        [`level_${work}`]: 'full',
      });
      const tokens = await exchangeCode(h, client, attempt, callback);
      assert.equal((await mcpToolsList(h.mcp, tokens.access_token)).status, 200);
      await oauth.processRevocationResponse(
        await oauth.revocationRequest(h.as, client, oauth.None(), tokens.refresh_token!, insecure),
      );
      assert.equal((await mcpToolsList(h.mcp, tokens.access_token)).status, 401);
    });

    it('refuses a callback whose iss is not the issuer (mix-up defence on the client side)', async () => {
      const client = await registerClient(h);
      const attempt = await authorizationUrl(h, client);
      const callback = await consent(t, 'ana@example.org', attempt, {
        calendar: [work],
        [`level_${work}`]: 'full',
      });
      callback.searchParams.set('iss', 'https://attacker.example/api/auth');
      assert.throws(() => oauth.validateAuthResponse(h.as, client, callback, attempt.state));
    });
  });
}
