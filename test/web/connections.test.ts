/** Connecting calendar accounts from the account page, through the providers' own OAuth pages (fakes). */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import { accountsOf, calendarsOfAccount, sealedCredentialsOf } from '../../src/store/connectedAccounts.ts';
import { FakeGoogle } from '../fakes/google.ts';
import { alice, sampleUsers } from '../fakes/graph/sampleMailbox.ts';
import { FakeGraph } from '../fakes/graph.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const baseUrl = 'http://localhost:3000';

describe('connecting a Google account from the account page', () => {
  let google: FakeGoogle;
  let t: TestApp;
  let userId: string;
  let workspaceId: string;

  before(async () => {
    google = await FakeGoogle.start({
      redirectUris: [`${baseUrl}/account/connect/google/callback`],
      user: { email: 'ana@gmail.example' },
      calendars: [
        { id: 'primary-cal', summary: 'Ana', timeZone: 'Europe/Berlin', accessRole: 'owner', primary: true },
        { id: 'team-cal', summary: 'Team', timeZone: 'Europe/Berlin', accessRole: 'reader' },
      ],
    });
    const cfg = google.config();
    const env = {
      BASE_URL: baseUrl,
      GOOGLE_CLIENT_ID: cfg.clientId,
      GOOGLE_CLIENT_SECRET: cfg.clientSecret,
      GOOGLE_AUTH_URL: cfg.authorizationUrl,
      GOOGLE_TOKEN_URL: cfg.tokenUrl,
      GOOGLE_API_URL: cfg.apiBaseUrl,
    };
    t = await startTestApp({ env, adapters: { sleep: async () => {} } });
    userId = await seedUser(t.ctx.db, 'ana@example.org');
    workspaceId = await seedWorkspace(t.ctx.db, 'Home', [[userId, 'owner']]);
    await seedUser(t.ctx.db, 'mallory@example.org');
  });
  after(async () => {
    await t?.close();
    await google?.close();
  });

  /** Follows the provider's redirect back to our callback, as the browser would. */
  async function throughProvider(location: string): Promise<string> {
    const answer = await fetch(location, { redirect: 'manual' });
    assert.equal(answer.status, 302);
    const back = new URL(answer.headers.get('location')!);
    assert.equal(`${back.origin}${back.pathname}`, `${baseUrl}/account/connect/google/callback`);
    return back.pathname + back.search;
  }

  it('connects through the provider, stores its calendars and seals the tokens', async () => {
    const browser = new PageClient(t.app);
    await browser.signIn('ana@example.org', testPassword);
    const page = await browser.get('/account');
    assert.match(page.body, /<button type="submit">Connect Google Calendar<\/button>/);
    const start = await browser.post(`/account/workspaces/${workspaceId}/connections/google`, {});
    assert.equal(start.statusCode, 303);
    const authorize = new URL(start.headers.location as string);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('redirect_uri'), `${baseUrl}/account/connect/google/callback`);

    const done = await browser.get(await throughProvider(authorize.href));
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, '/account?notice=connected');
    const account = await browser.get('/account?notice=connected');
    assert.match(account.body, /ana@gmail\.example/);
    assert.match(
      account.body,
      /<li>Team <span class="muted">\(read-only\)<\/span>\s*<div class="copy-state">/,
    );

    const [stored] = await accountsOf(t.ctx.db, userId, workspaceId);
    assert.ok(stored);
    assert.deepEqual(
      (await calendarsOfAccount(t.ctx.db, stored.id)).map((c) => [c.name, c.access, c.primary]),
      [
        ['Ana', 'owner', true],
        ['Team', 'reader', false],
      ],
    );
    const sealed = (await sealedCredentialsOf(t.ctx.db, stored.id))!;
    assert.match(sealed, /^v1\./);
    const issued = JSON.parse(t.ctx.box.open(sealed, stored.id)) as { refreshToken: string };
    assert.ok(!sealed.includes(issued.refreshToken), 'the refresh token is not stored in clear');
  });

  it('refuses a callback for a flow another person started, storing nothing', async () => {
    const ana = new PageClient(t.app);
    await ana.signIn('ana@example.org', testPassword);
    await ana.get('/account');
    const start = await ana.post(`/account/workspaces/${workspaceId}/connections/google`, {});
    const callback = await throughProvider(start.headers.location as string);
    const mallory = new PageClient(t.app);
    await mallory.signIn('mallory@example.org', testPassword);
    const before = (await accountsOf(t.ctx.db, userId)).length;
    const answer = await mallory.get(callback);
    assert.equal(answer.statusCode, 400);
    assert.match(answer.body, /has expired or was not started here/);
    assert.equal((await accountsOf(t.ctx.db, userId)).length, before);
  });

  it('says so when the person declines at the provider', async () => {
    google.oauth.consent = { deny: true };
    try {
      const browser = new PageClient(t.app);
      await browser.signIn('ana@example.org', testPassword);
      await browser.get('/account');
      const start = await browser.post(`/account/workspaces/${workspaceId}/connections/google`, {});
      const answer = await fetch(start.headers.location as string, { redirect: 'manual' });
      const back = new URL(answer.headers.get('location')!);
      assert.equal(back.searchParams.get('error'), 'access_denied');
      const done = await browser.get(back.pathname + back.search);
      assert.equal(done.headers.location, '/account?notice=cancelled');
    } finally {
      google.oauth.consent = {};
    }
  });

  it('refuses a callback that comes back after the flow expired', async () => {
    const browser = new PageClient(t.app);
    await browser.signIn('ana@example.org', testPassword);
    await browser.get('/account');
    const start = await browser.post(`/account/workspaces/${workspaceId}/connections/google`, {});
    const callback = await throughProvider(start.headers.location as string);
    t.clock.advance({ minutes: 11 });
    const answer = await browser.get(callback);
    assert.equal(answer.statusCode, 400);
    assert.match(answer.body, /has expired/);
  });

  it('does not start a flow for a workspace the person is not in', async () => {
    const other = await seedWorkspace(t.ctx.db, 'Elsewhere', []);
    const browser = new PageClient(t.app);
    await browser.signIn('ana@example.org', testPassword);
    await browser.get('/account');
    const answer = await browser.post(`/account/workspaces/${other}/connections/google`, {});
    assert.equal(answer.statusCode, 404);
  });

  it('removes an account with its calendars and credentials', async () => {
    const [stored] = await accountsOf(t.ctx.db, userId, workspaceId);
    const mallory = new PageClient(t.app);
    await mallory.signIn('mallory@example.org', testPassword);
    await mallory.get('/account');
    const refused = await mallory.post(
      `/account/workspaces/${workspaceId}/connections/${stored!.id}/remove`,
      {},
    );
    assert.equal(refused.statusCode, 404, "no one removes another person's account");

    const browser = new PageClient(t.app);
    await browser.signIn('ana@example.org', testPassword);
    await browser.get('/account');
    const removed = await browser.post(
      `/account/workspaces/${workspaceId}/connections/${stored!.id}/remove`,
      {},
    );
    assert.equal(removed.headers.location, '/account?notice=removed');
    assert.equal(await sealedCredentialsOf(t.ctx.db, stored!.id), undefined);
    assert.deepEqual(await calendarsOfAccount(t.ctx.db, stored!.id), []);
  });
});

describe('a Microsoft account connected before shared calendars', () => {
  let graph: FakeGraph;
  let t: TestApp;
  let workspaceId: string;
  let userId: string;

  before(async () => {
    graph = await FakeGraph.start({
      users: sampleUsers(),
      redirectUris: [`${baseUrl}/account/connect/microsoft/callback`],
    });
    t = await startTestApp({
      env: { BASE_URL: baseUrl, ...graph.env() },
      adapters: { sleep: async () => {} },
    });
    userId = await seedUser(t.ctx.db, 'alice@example.org');
    workspaceId = await seedWorkspace(t.ctx.db, 'Office', [[userId, 'owner']]);
    // What such an account holds: tokens of the older grant, no scopes kept.
    const { scopes: _older, ...tokens } = graph.issueTokens(alice, [
      'offline_access',
      'openid',
      'email',
      'Calendars.ReadWrite',
      'User.Read',
    ]);
    await addConnection(t.ctx, { userId, workspaceId }, { kind: 'microsoft', ...tokens }, alice);
  });
  after(async () => {
    await t?.close();
    await graph?.close();
  });

  it('lists its own calendars, says a reconnect adds shared ones, and a reconnect does', async () => {
    const browser = new PageClient(t.app);
    await browser.signIn('alice@example.org', testPassword);
    const before = await browser.get('/account');
    assert.match(
      before.body,
      /Calendars others share with alice@example\.com are not listed: reconnect the account to add them\./,
    );
    const [stored] = await accountsOf(t.ctx.db, userId);
    assert.deepEqual(
      (await calendarsOfAccount(t.ctx.db, stored!.id)).map((c) => c.name),
      ['Calendar', 'Busy'],
    );

    const start = await browser.post(
      `/account/workspaces/${workspaceId}/connections/${stored!.id}/reconnect`,
      {},
    );
    const authorize = new URL(start.headers.location as string);
    assert.match(authorize.searchParams.get('scope') ?? '', /\bCalendars\.ReadWrite\.Shared\b/);
    const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
    const done = await browser.get(back.pathname + back.search);
    assert.equal(done.headers.location, '/account?notice=reconnected');

    const after = await browser.get('/account?notice=reconnected');
    assert.doesNotMatch(after.body, /Calendars others share with/);
    assert.match(after.body, /<li>Holidays in Germany <span class="muted">\(read-only\)<\/span>/);
    assert.deepEqual(
      (await calendarsOfAccount(t.ctx.db, stored!.id)).map((c) => [c.name, c.access]),
      [
        ['Calendar', 'owner'],
        ['Busy', 'owner'],
        ['Holidays in Germany', 'reader'],
        ['Team', 'writer'],
      ],
    );
  });
});

describe('connecting accounts by form', () => {
  let t: TestApp;
  let feed: Server;
  let feedUrl: string;
  let workspaceId: string;
  let benId: string;

  before(async () => {
    feed = createServer((_request, response) => {
      response
        .writeHead(200, { 'content-type': 'text/calendar' })
        .end(
          'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nX-WR-CALNAME:School holidays\r\nEND:VCALENDAR\r\n',
        );
    });
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    feedUrl = `http://127.0.0.1:${(feed.address() as { port: number }).port}/holidays.ics`;
    t = await startTestApp({
      env: { ICS_ALLOW_PRIVATE_NETWORKS: 'true' },
      adapters: { sleep: async () => {} },
    });
    benId = await seedUser(t.ctx.db, 'ben@example.org');
    workspaceId = await seedWorkspace(t.ctx.db, 'Family', [[benId, 'owner']]);
  });
  after(async () => {
    await t?.close();
    await new Promise((resolve) => feed?.close(resolve));
  });

  it('subscribes to an ICS feed and lists its calendar as read-only', async () => {
    const browser = new PageClient(t.app);
    await browser.signIn('ben@example.org', testPassword);
    await browser.get('/account');
    const done = await browser.post(`/account/workspaces/${workspaceId}/connections/ics`, { url: feedUrl });
    assert.equal(done.statusCode, 303, /role="alert">([^<]*)/.exec(done.body)?.[1] ?? done.body);
    assert.equal(done.headers.location, '/account?notice=connected');
    const page = await browser.get('/account?notice=connected');
    assert.match(page.body, /The account was connected\./);
    assert.match(
      page.body,
      /<li>School holidays <span class="muted">\(read-only\)<\/span>\s*<div class="copy-state">/,
    );
  });

  it('shows what is wrong with the form and connects nothing', async () => {
    const browser = new PageClient(t.app);
    await browser.signIn('ben@example.org', testPassword);
    await browser.get('/account');
    const before = (await accountsOf(t.ctx.db, benId)).length;
    const noPassword = await browser.post(`/account/workspaces/${workspaceId}/connections/caldav`, {
      serverUrl: 'https://dav.example.org/',
      username: 'ben',
      password: '',
    });
    assert.equal(noPassword.statusCode, 400);
    assert.match(noPassword.body, /role="alert">Enter the app password\./);
    const badUrl = await browser.post(`/account/workspaces/${workspaceId}/connections/ics`, {
      url: 'ftp://x.example/a.ics',
    });
    assert.equal(badUrl.statusCode, 400);
    assert.match(badUrl.body, /The address must start with/);
    assert.equal((await accountsOf(t.ctx.db, benId)).length, before);
  });

  it('keeps what was typed, never the password, with the error at its field or atop its form', async () => {
    const browser = new PageClient(t.app);
    await browser.signIn('ben@example.org', testPassword);
    await browser.get('/account');
    const busy = createServer((_request, response) => response.writeHead(503).end());
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    after(() => new Promise((resolve) => busy.close(resolve)));
    const busyUrl = `http://127.0.0.1:${(busy.address() as { port: number }).port}/`;
    const typed = {
      serverUrl: busyUrl,
      username: 'ben',
      password: 'typed-secret',
      calendarAddress: 'ben@home.example',
    };
    // A server that is down: an error of the whole form, not of one field.
    const whole = await browser.post(`/account/workspaces/${workspaceId}/connections/caldav`, typed);
    assert.equal(whole.statusCode, 502);
    assert.equal(whole.headers['cache-control'], 'no-store');
    assert.ok(!whole.body.includes('typed-secret'), 'the password is not sent back');
    const form = /<details open><summary>Connect a CalDAV account<\/summary>([\s\S]*?)<\/form>/.exec(
      whole.body,
    )?.[1];
    assert.ok(form, 'the CalDAV form is open');
    assert.match(
      form,
      /^\s*<form[^>]*>\s*<input type="hidden"[^>]*>\s*<p class="error" [^>]*autofocus role="alert">[^<]+<\/p>\s*<label/,
    );
    assert.match(form, /is unavailable \(HTTP 503\)/);
    assert.ok(
      form.includes(
        `name="serverUrl" type="url" autocomplete="off" required placeholder="https://caldav.example.com/" value="${busyUrl}"`,
      ),
    );
    assert.match(form, /name="username"[^>]* value="ben"/);
    assert.match(form, /name="calendarAddress"[^>]* value="ben@home\.example"/);
    assert.equal((whole.body.match(/role="alert"/g) ?? []).length, 1, 'nothing above the page');

    const field = await browser.post(`/account/workspaces/${workspaceId}/connections/caldav`, {
      ...typed,
      calendarAddress: 'Ben <ben@home.example>',
    });
    assert.match(
      field.body,
      /name="calendarAddress"[^>]* value="Ben &lt;ben@home\.example&gt;" aria-describedby="caldav-calendarAddress-error-[^"]+ caldav-calendarAddress-hint-[^"]+" aria-invalid="true" autofocus>\s*<p class="error" id="caldav-calendarAddress-error-[^"]+" role="alert">Enter your address in calendars/,
    );

    const feed = await browser.post(`/account/workspaces/${workspaceId}/connections/ics`, {
      url: 'ftp://x.example/a.ics',
    });
    assert.match(
      feed.body,
      /name="url"[^>]* value="ftp:\/\/x\.example\/a\.ics"[^>]* aria-invalid="true" autofocus>\s*<p class="error"[^>]*>The address must start with/,
    );
  });
});
