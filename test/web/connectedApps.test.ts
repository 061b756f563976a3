/**
 * Connected apps on the pages: people see and revoke their grants; workspace admins see grants
 * as metadata only, block an app, and register apps of their own that then work in the real
 * authorization flow (oauth4webapi over HTTP, the person's part through the pages).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { liveGrantsOfUser } from '../../src/store/accessGrants.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { mcpToolsList } from '../helpers/mcpRequest.ts';
import {
  type AuthorizationAttempt,
  authorizationUrl,
  consent,
  discover,
  exchangeCode,
  insecure,
  type OAuthHarness,
  redirectUri,
  registerClient,
} from '../helpers/oauth.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedCalendars, seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

describe('connected apps', () => {
  let t: TestApp;
  let h: OAuthHarness;
  let acme: string;
  const users: Record<string, string> = {};
  const calendars: Record<string, string> = {};

  before(async () => {
    t = await startTestApp({ listen: true });
    for (const name of ['ana', 'ben', 'cid']) users[name] = await seedUser(t.ctx.db, `${name}@example.org`);
    acme = await seedWorkspace(t.ctx.db, 'Acme', [
      [users.ana!, 'owner'],
      [users.ben!, 'member'],
    ]);
    await seedWorkspace(t.ctx.db, 'Elsewhere', [[users.cid!, 'owner']]);
    const [work, family] = await seedCalendars(t.ctx.db, { userId: users.ana!, workspaceId: acme }, [
      { name: 'Work' },
      { name: 'Family', access: 'freeBusy' },
    ]);
    const [dentist] = await seedCalendars(t.ctx.db, { userId: users.ben!, workspaceId: acme }, [
      { name: 'Dentist appointments' },
    ]);
    Object.assign(calendars, { work, family, dentist });
    h = await discover(t);
  });
  after(() => t.close());

  const mcpStatus = async (token: string) => (await mcpToolsList(h.mcp, token)).status;

  // One signed-in browser per person for the whole file: sign-in is rate limited.
  const browsers = new Map<string, PageClient>();
  const signedIn = async (name: string) => {
    let browser = browsers.get(name);
    if (browser === undefined) {
      browser = new PageClient(t.app);
      await browser.signIn(`${name}@example.org`, testPassword);
      browsers.set(name, browser);
    }
    return browser;
  };

  /** The person's part of an authorization, in their own browser. */
  const allow = async (
    name: string,
    attempt: AuthorizationAttempt,
    choice: Record<string, string | string[]>,
  ) => consent(t, `${name}@example.org`, attempt, choice, await signedIn(name));

  /** A new DCR client authorised by the person for one calendar; returns the client and tokens. */
  async function grantTo(name: string, calendar: string, level: string, clientName = 'Test Assistant') {
    const client = await registerClient(h, { client_name: clientName });
    const attempt = await authorizationUrl(h, client);
    const callback = await allow(name, attempt, { calendar: [calendar], [`level_${calendar}`]: level });
    return { client, tokens: await exchangeCode(h, client, attempt, callback) };
  }

  const grantIdOf = async (name: string, clientId: string) =>
    (await liveGrantsOfUser(t.ctx.db, users[name]!)).find((g) => g.clientId === clientId)!.id;

  describe('on the account page', () => {
    it('lists a grant with app, workspace, scopes, calendars and levels, and Revoke ends it', async () => {
      const client = await registerClient(h, { client_name: 'Planner Bot' });
      const attempt = await authorizationUrl(h, client);
      const callback = await allow('ana', attempt, {
        calendar: [calendars.work!, calendars.family!],
        [`level_${calendars.work}`]: 'titles',
        [`level_${calendars.family}`]: 'busy',
      });
      const { access_token } = await exchangeCode(h, client, attempt, callback);
      assert.equal(await mcpStatus(access_token), 200);

      const browser = await signedIn('ana');
      const account = await browser.get('/account');
      assert.match(account.body, /<h2>Your assistants<\/h2>/);
      const card = /<article class="card"[\s\S]*?<\/article>/.exec(account.body)?.[0] ?? '';
      assert.match(card, /<h3 id="app-[^"]+">Planner Bot<\/h3>/);
      assert.doesNotMatch(card, new RegExp(client.client_id), 'names, not ids');
      assert.match(
        card,
        /In Acme · last used <time datetime="2026-03-29T00:30:00Z" title="2026-03-29T00:30\+00:00">just now<\/time>/,
      );
      assert.match(card, /<dt>May<\/dt><dd>Read calendars and events<\/dd>/);
      assert.match(card, /<li>Work: <strong>Titles and times<\/strong><\/li>/);
      assert.match(card, /<li>Family: <strong>Busy\/free only<\/strong><\/li>/);
      assert.match(card, /aria-label="Change what Planner Bot sees in Acme">Change<\/a>/);
      assert.match(card, /class="danger" aria-label="Revoke Planner Bot in Acme">Revoke<\/button>/);

      const grantId = await grantIdOf('ana', client.client_id);
      const revoked = await browser.post(`/account/apps/${grantId}/revoke`, {});
      assert.equal(revoked.statusCode, 303);
      assert.equal(revoked.headers.location, '/account?notice=app-revoked');
      const after = await browser.get('/account?notice=app-revoked');
      assert.match(after.body, /role="status">The app’s access was revoked/);
      assert.doesNotMatch(after.body, /Planner Bot/);
      assert.equal(await mcpStatus(access_token), 401);
    });

    it("answers 404 to revoking someone else's grant, which keeps working", async () => {
      const { client, tokens } = await grantTo('ben', calendars.dentist!, 'full');
      const bensGrant = await grantIdOf('ben', client.client_id);
      const ana = await signedIn('ana');
      await ana.get('/account');
      const attempt = await ana.post(`/account/apps/${bensGrant}/revoke`, {});
      assert.equal(attempt.statusCode, 404);
      assert.match(attempt.body, /<code>not_found<\/code>/);
      assert.equal((await ana.post('/account/apps/grt_unknown/revoke', {})).statusCode, 404);
      assert.equal(await mcpStatus(tokens.access_token), 200);
    });

    it("changes only one's own grants, within what consent allows, and the grant is unchanged by a refusal", async () => {
      const { client } = await grantTo('ben', calendars.dentist!, 'full');
      const bensGrant = await grantIdOf('ben', client.client_id);
      const ana = await signedIn('ana');
      await ana.get('/account');
      assert.equal((await ana.get(`/account/apps/${bensGrant}`)).statusCode, 404);
      const foreign = await ana.post(`/account/apps/${bensGrant}`, {
        calendar: [calendars.work!],
        [`level_${calendars.work}`]: 'full',
      });
      assert.equal(foreign.statusCode, 404);

      const own = await grantTo('ana', calendars.work!, 'titles');
      const grantId = await grantIdOf('ana', own.client.client_id);
      const form = await ana.get(`/account/apps/${grantId}`);
      assert.equal(form.statusCode, 200);
      assert.match(
        form.body,
        new RegExp(`id="cal-${calendars.work}" name="calendar" value="${calendars.work}" checked`),
      );
      assert.match(form.body, /<option value="titles" selected>Titles and times<\/option>/);
      const none = await ana.post(`/account/apps/${grantId}`, {});
      assert.equal(none.statusCode, 400);
      assert.match(none.body, /Choose at least one calendar/);
      // Family is free/busy at the provider: more than busy is not offered, and refused when sent.
      const tooMuch = await ana.post(`/account/apps/${grantId}`, {
        calendar: [calendars.family!],
        [`level_${calendars.family}`]: 'full',
      });
      assert.equal(tooMuch.statusCode, 400);
      const forged = await ana.post(`/account/apps/${grantId}`, {
        _csrf: 'forged',
        calendar: [calendars.family!],
        [`level_${calendars.family}`]: 'busy',
      });
      assert.equal(forged.statusCode, 403);
      const [grant] = (await liveGrantsOfUser(t.ctx.db, users.ana!)).filter((g) => g.id === grantId);
      assert.deepEqual(grant?.calendars, [{ calendarId: calendars.work, detailLevel: 'titles' }]);

      // The policy allows less since: the form shows the level read now, not one it cannot offer.
      await savePolicy(t.ctx.db, acme, { ...defaultPolicy, maxDetailLevel: 'busy' }, 0);
      const capped = await ana.get(`/account/apps/${grantId}`);
      await savePolicy(t.ctx.db, acme, defaultPolicy, 0);
      assert.match(capped.body, new RegExp(`name="level_${calendars.work}"><option value="busy" selected>`));
    });

    it('needs the CSRF token to revoke', async () => {
      const { client, tokens } = await grantTo('ana', calendars.work!, 'full');
      const browser = await signedIn('ana');
      const grantId = await grantIdOf('ana', client.client_id);
      const forged = await browser.post(`/account/apps/${grantId}/revoke`, { _csrf: 'forged' });
      assert.equal(forged.statusCode, 403);
      assert.equal(await mcpStatus(tokens.access_token), 200);
    });
  });

  describe('on the admin page', () => {
    it('lists the workspace grants as metadata only: no calendar names', async () => {
      const { client } = await grantTo('ben', calendars.dentist!, 'titles', 'Ben Helper');
      const admin = await signedIn('ana');
      const page = await admin.get(`/admin/workspaces/${acme}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<h2>Apps with access<\/h2>/);
      assert.match(
        page.body,
        new RegExp(
          `<td data-label="Member">ben@example.org</td><td data-label="App">Ben Helper<br><code>${client.client_id}</code></td>`,
        ),
      );
      assert.match(
        page.body,
        /<li>Read calendars and events<\/li><\/ul><\/td>\n<td data-label="Calendars">1<\/td>/,
      );
      assert.doesNotMatch(page.body, /Dentist/, 'admins never learn calendar names');
      assert.doesNotMatch(page.body, /Titles and times<\/li>|: Titles and times/);
      assert.match(
        page.body,
        /<button type="submit" aria-label="Block this app in the workspace: Ben Helper">/,
      );
    });

    it('keeps members (403) and admins of other workspaces (404) out of the section and the block', async () => {
      const { client, tokens } = await grantTo('ben', calendars.dentist!, 'full', 'Kept App');
      const member = await signedIn('ben');
      await member.get('/account');
      const page = await member.get(`/admin/workspaces/${acme}`);
      assert.equal(page.statusCode, 403);
      assert.doesNotMatch(page.body, /Apps with access|Kept App/);
      const block = await member.post(`/admin/workspaces/${acme}/clients/block`, {
        clientId: client.client_id,
      });
      assert.equal(block.statusCode, 403);
      const register = await member.post(`/admin/workspaces/${acme}/clients`, {
        name: 'Sneaky',
        redirectUris: redirectUri,
        type: 'public',
      });
      assert.equal(register.statusCode, 403);

      const outsider = await signedIn('cid');
      await outsider.get('/account');
      assert.equal((await outsider.get(`/admin/workspaces/${acme}`)).statusCode, 404);
      assert.equal(
        (await outsider.post(`/admin/workspaces/${acme}/clients/block`, { clientId: client.client_id }))
          .statusCode,
        404,
      );
      assert.equal(await mcpStatus(tokens.access_token), 200);
    });

    it('blocks an app: its grants end, and a new authorization answers access_denied', async () => {
      const client = await registerClient(h, { client_name: 'Blocked Bot' });
      const issue = async (name: string, calendar: string) => {
        const attempt = await authorizationUrl(h, client);
        const callback = await allow(name, attempt, { calendar: [calendar], [`level_${calendar}`]: 'full' });
        return exchangeCode(h, client, attempt, callback);
      };
      const bens = await issue('ben', calendars.dentist!);
      const anas = await issue('ana', calendars.work!);
      assert.equal(await mcpStatus(bens.access_token), 200);

      const admin = await signedIn('ana');
      await admin.get(`/admin/workspaces/${acme}`);
      const blocked = await admin.post(`/admin/workspaces/${acme}/clients/block`, {
        clientId: client.client_id,
      });
      assert.equal(blocked.statusCode, 303);
      const page = await admin.get(blocked.headers.location as string);
      assert.match(page.body, /The app was blocked in this workspace; 2 grants to it ended\./);
      const withAccess = /<section id="apps"[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
      assert.match(withAccess, /<h2>Apps with access<\/h2>/);
      assert.doesNotMatch(withAccess, /Blocked Bot/);
      assert.match(
        page.body,
        /Blocked <strong>Blocked Bot<\/strong> <code>[^<]+<\/code> in the workspace; 2 grants to it ended/,
      );
      assert.match(page.body, new RegExp(`>[^<]*${client.client_id}[^<]*</textarea>`), 'in the policy');

      assert.equal(await mcpStatus(bens.access_token), 401);
      assert.equal(await mcpStatus(anas.access_token), 401);
      const attempt = await authorizationUrl(h, client);
      const callback = await allow('ben', attempt, {});
      assert.equal(callback.searchParams.get('error'), 'access_denied');
      assert.equal(callback.searchParams.get('state'), attempt.state);
    });
  });

  describe('apps registered by a workspace admin', () => {
    const register = async (browser: PageClient, form: Record<string, string>) => {
      await browser.get(`/admin/workspaces/${acme}`);
      return browser.post(`/admin/workspaces/${acme}/clients`, form);
    };

    async function authorize(
      client: oauth.Client,
    ): Promise<{ attempt: AuthorizationAttempt; callback: URL }> {
      const attempt = await authorizationUrl(h, client);
      const callback = await allow('ana', attempt, {
        calendar: [calendars.work!],
        [`level_${calendars.work}`]: 'full',
      });
      return { attempt, callback };
    }

    it('registers a public app that completes authorization_code + PKCE', async () => {
      const admin = await signedIn('ana');
      const page = await register(admin, { name: 'Team Board', redirectUris: redirectUri, type: 'public' });
      assert.equal(page.statusCode, 200);
      const clientId = /<code id="new-client-id">(cli_[\w-]{22})<\/code>/.exec(page.body)?.[1];
      assert.ok(clientId, 'the client id is shown');
      assert.doesNotMatch(page.body, /new-client-secret/, 'a public app has no secret');

      const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };
      const { attempt, callback } = await authorize(client);
      const tokens = await exchangeCode(h, client, attempt, callback);
      assert.equal(await mcpStatus(tokens.access_token), 200);

      const again = await admin.get(`/admin/workspaces/${acme}`);
      assert.match(again.body, /<h2>Apps registered for this workspace<\/h2>/);
      assert.match(
        again.body,
        new RegExp(
          `<td data-label="App">Team Board<br><code>${clientId}</code></td><td data-label="Type">public</td>`,
        ),
      );
      assert.match(
        again.body,
        new RegExp(
          `<td data-label="Who">ana <span class="muted">\\(ana@example.org\\)</span></td><td data-label="What">Registered <strong>Team Board</strong> <code>${clientId}</code> \\(public\\)</td>`,
        ),
      );
    });

    it('offers an app registered for one workspace in no other workspace', async () => {
      const page = await register(await signedIn('ana'), {
        name: 'Acme only',
        redirectUris: redirectUri,
        type: 'public',
      });
      const clientId = /<code id="new-client-id">(cli_[\w-]{22})<\/code>/.exec(page.body)![1]!;
      // cid belongs only to another workspace: the authorization ends with access_denied, no consent page.
      const attempt = await authorizationUrl(h, { client_id: clientId, token_endpoint_auth_method: 'none' });
      const callback = await allow('cid', attempt, {});
      assert.equal(callback.searchParams.get('error'), 'access_denied');
    });

    it('registers a confidential app whose secret is shown once and authenticates with client_secret_basic', async () => {
      const admin = await signedIn('ana');
      const page = await register(admin, {
        name: 'Server Sync',
        redirectUris: `https://sync.example.com/cb\n${redirectUri}\n`,
        type: 'confidential',
      });
      assert.equal(page.statusCode, 200);
      const clientId = /<code id="new-client-id">([^<]+)<\/code>/.exec(page.body)![1]!;
      const secret = /<code id="new-client-secret">([\w-]{43})<\/code>/.exec(page.body)?.[1];
      assert.ok(secret, 'the secret is shown');

      const client: oauth.Client = { client_id: clientId };
      const { attempt, callback } = await authorize(client);
      const params = oauth.validateAuthResponse(h.as, client, callback, attempt.state);
      const exchange = (auth: oauth.ClientAuth) =>
        oauth.authorizationCodeGrantRequest(h.as, client, auth, params, redirectUri, attempt.verifier, {
          additionalParameters: { resource: h.mcp },
          ...insecure,
        });
      const wrong = await exchange(oauth.ClientSecretBasic('not-the-secret'));
      assert.equal(wrong.status, 401);
      const tokens = await oauth.processAuthorizationCodeResponse(
        h.as,
        client,
        await exchange(oauth.ClientSecretBasic(secret)),
      );
      assert.equal(await mcpStatus(tokens.access_token), 200);

      const later = await admin.get(`/admin/workspaces/${acme}`);
      assert.match(
        later.body,
        /Server Sync<br><code>[^<]+<\/code><\/td><td data-label="Type">confidential<\/td>/,
      );
      assert.ok(!later.body.includes(secret), 'never shown again');
    });

    it('shows the form again with the error for a redirect URI that is not https or loopback', async () => {
      const admin = await signedIn('ana');
      const page = await register(admin, {
        name: 'Plain HTTP',
        redirectUris: 'http://example.com/callback',
        type: 'confidential',
      });
      assert.equal(page.statusCode, 400);
      assert.match(page.body, /role="alert">Redirect URIs must use https/);
      assert.match(page.body, /<input id="client-name" name="name" type="text" required value="Plain HTTP">/);
      assert.match(page.body, /required>http:\/\/example.com\/callback<\/textarea>/);
      assert.match(page.body, /id="client-type-confidential" name="type" value="confidential" checked/);
      assert.doesNotMatch(page.body, /new-client-id/);
    });

    it("applies oidc-provider's own rules too (no fragments), and requires a name", async () => {
      const admin = await signedIn('ana');
      const fragment = await register(admin, {
        name: 'Fragment',
        redirectUris: 'https://app.example.com/cb#frag',
        type: 'public',
      });
      assert.equal(fragment.statusCode, 400);
      assert.match(
        fragment.body,
        /role="alert">The app cannot be registered: redirect_uris must not contain fragments/,
      );
      const nameless = await register(admin, { name: ' ', redirectUris: redirectUri, type: 'public' });
      assert.equal(nameless.statusCode, 400);
      assert.match(nameless.body, /role="alert">Enter a name for the app\./);
    });
  });
});
