/** The pages for people, driven over HTTP like a browser without JavaScript. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueFirstRunToken } from '../../src/people/onboarding.ts';
import { verifyPassword } from '../../src/people/passwords.ts';
import { startSession } from '../../src/people/sessions.ts';
import { passwordHashOf } from '../../src/store/users.ts';
import { findPolicy, roleOf } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

describe('pages', () => {
  let t: TestApp;
  const ids: Record<string, string> = {};
  let teamA: string;
  let teamB: string;

  before(async () => {
    t = await startTestApp();
    for (const name of ['owner', 'admin', 'member', 'ownerB'])
      ids[name] = await seedUser(t.ctx.db, `${name}@example.org`);
    teamA = await seedWorkspace(t.ctx.db, 'Team A', [
      [ids.owner!, 'owner'],
      [ids.admin!, 'admin'],
      [ids.member!, 'member'],
    ]);
    teamB = await seedWorkspace(t.ctx.db, 'Team B', [[ids.ownerB!, 'owner']]);
  });
  after(() => t.close());

  describe('sign-in', () => {
    it('shows a labelled form and sets an anonymous CSRF cookie', async () => {
      const browser = new PageClient(t.app);
      const page = await browser.get('/login');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<label for="email">Email<\/label>/);
      assert.match(page.body, /<label for="password">Password<\/label>/);
      assert.match(page.body, /<button type="submit" class="primary">Sign in<\/button>/);
      assert.ok(browser.cookies.has('csrf'));
      assert.equal(page.headers['cache-control'], 'no-store');
    });

    it('signs in, issues a new HttpOnly SameSite session cookie, and returns to the page asked for', async () => {
      const browser = new PageClient(t.app);
      await browser.get('/login?next=%2Fadmin');
      const response = await browser.post('/login', {
        email: 'OWNER@example.org',
        password: testPassword,
        next: '/admin',
      });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/admin');
      const cookie = response.cookies.find((c) => c.name === 'session');
      assert.ok(cookie);
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
      assert.equal(cookie.path, '/');
      const account = await browser.get('/account');
      assert.match(
        (await browser.get('/account/profile')).body,
        /Signed in as <strong>owner@example.org<\/strong>/,
      );
      assert.match(account.body, /<button type="submit">Connect CalDAV<\/button>/);
      assert.doesNotMatch(
        account.body,
        /Connect Google Calendar|Connect Microsoft 365/,
        'not configured here',
      );
    });

    it('never adopts a session id the browser brought along (no fixation)', async () => {
      const browser = new PageClient(t.app);
      browser.cookies.set('session', 'planted-by-attacker');
      await browser.signIn('member@example.org', testPassword);
      const issued = browser.cookies.get('session');
      assert.match(issued ?? '', /^[\w-]{43}$/);
      const planted = await t.app.inject({
        url: '/account',
        headers: { cookie: 'session=planted-by-attacker', accept: 'text/html' },
      });
      assert.equal(planted.statusCode, 303);
      const other = new PageClient(t.app);
      await other.signIn('member@example.org', testPassword);
      assert.notEqual(other.cookies.get('session'), issued, 'each sign-in gets its own session');
    });

    it('refuses a wrong password with the form again and no session', async () => {
      const browser = new PageClient(t.app);
      await browser.get('/login');
      const response = await browser.post('/login', {
        email: 'owner@example.org',
        password: 'not the password',
      });
      assert.equal(response.statusCode, 401);
      assert.match(response.body, /role="alert">The e-mail address or password is not right\./);
      assert.match(response.body, /value="owner@example.org"/);
      assert.equal(browser.cookies.has('session'), false);
    });

    it('never redirects off-site after sign-in', async () => {
      for (const next of [
        '//evil.example/',
        '/\\evil.example',
        'https://evil.example/',
        'javascript:alert(1)',
      ]) {
        const browser = new PageClient(t.app);
        await browser.get('/login');
        const response = await browser.post('/login', {
          email: 'owner@example.org',
          password: testPassword,
          next,
        });
        assert.equal(response.headers.location, '/account', `next=${next}`);
      }
    });

    it('signs out with a POST, ending the session', async () => {
      const browser = new PageClient(t.app);
      await browser.signIn('owner@example.org', testPassword);
      const session = browser.cookies.get('session');
      await browser.get('/account');
      const out = await browser.post('/logout', {});
      assert.equal(out.statusCode, 303);
      assert.equal(browser.cookies.has('session'), false);
      const replay = await t.app.inject({
        url: '/account',
        headers: { cookie: `session=${session}`, accept: 'text/html' },
      });
      assert.equal(replay.statusCode, 303, 'the old cookie no longer works');
    });

    it('limits sign-in attempts per client address with 429 and Retry-After', async () => {
      const limited = await startTestApp();
      try {
        const browser = new PageClient(limited.app);
        await browser.get('/login');
        const statuses: number[] = [];
        // Empty passwords are refused before any hashing, so this costs nothing but the limit.
        for (let i = 0; i < 20; i++)
          statuses.push((await browser.post('/login', { email: 'a@example.org', password: '' })).statusCode);
        assert.deepEqual(statuses.slice(0, 20), Array(20).fill(400));
        const last = await browser.post('/login', { email: 'a@example.org', password: '' });
        assert.equal(last.statusCode, 429);
        assert.match(last.body, /rate_limited/);
        assert.ok(Number(last.headers['retry-after']) > 0);
      } finally {
        await limited.close();
      }
    });

    it('uses Secure __Host- cookies when served over https', async () => {
      const secure = await startTestApp({ env: { BASE_URL: 'https://calendar.example.com' } });
      try {
        const browser = new PageClient(secure.app);
        const page = await browser.get('/login');
        const csrf = page.cookies.find((c) => c.name === '__Host-csrf');
        assert.equal(csrf?.secure, true);
        assert.match(page.headers['strict-transport-security'] as string, /max-age=/);
        await secure.ctx.db.transaction().execute((trx) => seedUser(trx, 'tls@example.org'));
        const response = await browser.post('/login', { email: 'tls@example.org', password: testPassword });
        const session = response.cookies.find((c) => c.name === '__Host-session');
        assert.equal(session?.secure, true);
        assert.equal(session?.httpOnly, true);
        assert.equal(session?.path, '/');
      } finally {
        await secure.close();
      }
    });

    it('sends people who are not signed in to the sign-in page', async () => {
      const response = await new PageClient(t.app).get('/admin/workspaces/x');
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/login?next=%2Fadmin%2Fworkspaces%2Fx');
    });
  });

  describe('navigation', () => {
    it('offers Admin to those who administer a workspace only, shows where to start, and serves the site icon', async () => {
      let start = '';
      for (const [who, shown] of [
        ['admin', true],
        ['member', false],
      ] as const) {
        const browser = new PageClient(t.app);
        await browser.signIn(`${who}@example.org`, testPassword);
        const account = await browser.get('/account');
        assert.equal(account.statusCode, 200);
        assert.equal(/<a href="\/admin">Admin<\/a>/.test(account.body), shown, who);
        assert.match(account.body, /<link rel="icon" href="\/favicon.svg"/);
        start = account.body;
      }
      // Nothing set up yet: the first steps come first, then what people come for, in that order.
      const order = [
        'id="getting-started"',
        '<h2>Your assistants</h2>',
        '<h2>Your calendars</h2>',
        '<h2>Changes made by apps</h2>',
      ];
      const places = order.map((marker) => start.indexOf(marker));
      assert.ok(
        places.every((place, i) => place > (places[i - 1] ?? 0)),
        `${places}`,
      );
      assert.match(start, /<a href="\/account\/profile">Profile and password<\/a>/);
      assert.doesNotMatch(start, /Change password|<h2>Workspaces<\/h2>/, 'on the profile page');
      assert.match(
        start,
        new RegExp(`<input id="mcp-url" type="url" readonly value="${t.ctx.config.baseUrl}/mcp">`),
      );
      assert.doesNotMatch(start, /<strong>Done:<\/strong>/);
      const icon = await new PageClient(t.app).get('/favicon.svg');
      assert.deepEqual([icon.statusCode, icon.headers['content-type']], [200, 'image/svg+xml']);
      assert.match(icon.body, /^<svg /);
      const ico = await new PageClient(t.app).get('/favicon.ico');
      assert.deepEqual([ico.statusCode, ico.headers.location], [301, '/favicon.svg']);
    });
  });

  describe('profile page', () => {
    /** A signed-in browser without the sign-in form (whose attempts this file counts elsewhere). */
    const sessionOf = async (userId: string) => {
      const browser = new PageClient(t.app);
      browser.cookies.set('session', await startSession(t.ctx.db, t.clock, userId, 1));
      return browser;
    };

    it('shows name, password and workspaces on a page of their own, and saves the name', async () => {
      const browser = await sessionOf(await seedUser(t.ctx.db, 'pat@example.org', 'Pat Profile'));
      const profile = await browser.get('/account/profile');
      assert.equal(profile.statusCode, 200);
      assert.match(profile.body, /<h1>Your profile<\/h1>/);
      assert.match(
        profile.body,
        /<input id="name" name="name" type="text" autocomplete="name" required value="Pat Profile">/,
      );
      assert.match(profile.body, /<button type="submit" class="primary">Change password<\/button>/);
      assert.match(profile.body, /You do not belong to any workspace yet/);

      const saved = await browser.post('/account/profile', { name: 'Pat Renamed' });
      assert.deepEqual([saved.statusCode, saved.headers.location], [303, '/account/profile?notice=profile']);
      const after = await browser.get('/account/profile?notice=profile');
      assert.match(after.body, /role="status">Your name was saved/);
      assert.match(after.body, /value="Pat Renamed"/);
    });

    it('shows each error next to its field, and changes nothing', async () => {
      const quinn = await seedUser(t.ctx.db, 'quinn@example.org', 'Quinn');
      const browser = await sessionOf(quinn);
      await browser.get('/account/profile');
      const fieldError = (body: string, field: string) =>
        new RegExp(
          `id="${field}"[^>]* aria-invalid="true" aria-describedby="${field}-error" autofocus>\\s*<p class="field-error" id="${field}-error">`,
        ).test(body);

      const noName = await browser.post('/account/profile', { name: '' });
      assert.equal(noName.statusCode, 400);
      assert.ok(fieldError(noName.body, 'name'), noName.body);
      assert.doesNotMatch(noName.body, /role="alert"/, 'the error is the field’s, not the page’s');

      const wrong = await browser.post('/account/password', {
        currentPassword: 'not the password',
        newPassword: 'a new long enough secret',
      });
      assert.equal(wrong.statusCode, 401);
      assert.ok(fieldError(wrong.body, 'currentPassword'), wrong.body);
      assert.ok(!fieldError(wrong.body, 'newPassword'));

      const short = await browser.post('/account/password', {
        currentPassword: testPassword,
        newPassword: 'short',
      });
      assert.equal(short.statusCode, 400);
      assert.ok(fieldError(short.body, 'newPassword'), short.body);
      assert.match(short.body, /Use at least 12 characters for the password/);

      const changed = await browser.post('/account/password', {
        currentPassword: testPassword,
        newPassword: 'a new long enough secret',
      });
      assert.deepEqual(
        [changed.statusCode, changed.headers.location],
        [303, '/account/profile?notice=password'],
      );
      const stored = (await passwordHashOf(t.ctx.db, quinn))!;
      assert.equal(await verifyPassword('a new long enough secret', stored), true);
    });
  });

  describe('CSRF', () => {
    it("refuses form posts without the token, with a foreign token, or with another session's token", async () => {
      const browser = new PageClient(t.app);
      await browser.signIn('owner@example.org', testPassword);
      const missing = await browser.post('/account/profile', { name: 'Mallory', _csrf: '' });
      assert.equal(missing.statusCode, 403);
      assert.match(missing.body, /csrf_invalid/);

      const other = new PageClient(t.app);
      await other.signIn('admin@example.org', testPassword);
      await other.get('/account');
      const foreignToken = /name="_csrf" value="([^"]+)"/.exec((await other.get('/account')).body)![1]!;
      const crossed = await browser.post('/account/profile', { name: 'Mallory', _csrf: foreignToken });
      assert.equal(crossed.statusCode, 403);

      const anonymousLogin = await new PageClient(t.app).post('/login', {
        email: 'owner@example.org',
        password: testPassword,
        _csrf: 'x',
      });
      assert.equal(anonymousLogin.statusCode, 403);
      const account = await browser.get('/account');
      assert.doesNotMatch(account.body, /Mallory/);
    });
  });

  describe('administration', () => {
    it('lets an admin add a member with a role, shown in the member list and the audit log', async () => {
      const newcomer = await seedUser(t.ctx.db, 'newcomer@example.org');
      const browser = new PageClient(t.app);
      await browser.signIn('admin@example.org', testPassword);
      await browser.get(`/admin/workspaces/${teamA}`);
      const response = await browser.post(`/admin/workspaces/${teamA}/members`, {
        email: 'newcomer@example.org',
        role: 'member',
      });
      assert.equal(response.statusCode, 303);
      const page = await browser.get(response.headers.location as string);
      assert.match(page.body, /The member was added\./);
      assert.match(page.body, /newcomer@example.org/);
      assert.match(
        page.body,
        /<td data-label="Who">admin <span class="muted">\(admin@example.org\)<\/span><\/td><td data-label="What">Added newcomer <span class="muted">\(newcomer@example.org\)<\/span> as member<\/td>/,
      );
      assert.equal(await roleOf(t.ctx.db, teamA, newcomer), 'member');
    });

    it('re-shows the form with the reason when the input is wrong', async () => {
      const browser = new PageClient(t.app);
      await browser.signIn('admin@example.org', testPassword);
      await browser.get(`/admin/workspaces/${teamA}`);
      const response = await browser.post(`/admin/workspaces/${teamA}/members`, {
        email: 'not an address',
        role: 'member',
      });
      assert.equal(response.statusCode, 400);
      assert.match(response.body, /Enter a valid e-mail address/);
    });

    it('shows an invitation link for an address without an account; lists pending ones with Withdraw', async () => {
      const browser = new PageClient(t.app);
      await browser.signIn('owner@example.org', testPassword);
      await browser.get(`/admin/workspaces/${teamA}`);
      const response = await browser.post(`/admin/workspaces/${teamA}/members`, {
        email: 'guest@example.org',
        role: 'member',
      });
      assert.equal(response.statusCode, 200);
      const link = /<code>(http:\/\/localhost:3000\/invitation\?token=[\w-]+)<\/code>/.exec(
        response.body,
      )?.[1];
      assert.ok(link, 'invitation link shown');
      const guest = new PageClient(t.app);
      const form = await guest.get(link.replace('http://localhost:3000', ''));
      assert.match(form.body, /join <strong>Team A<\/strong>/);
      const token = new URL(link).searchParams.get('token')!;
      const joined = await guest.post('/invitation', {
        token,
        name: 'Guest',
        password: 'a long enough secret',
      });
      assert.equal(joined.statusCode, 303);
      assert.match(
        (await guest.get('/account/profile')).body,
        /<td data-label="Workspace">Team A<\/td><td data-label="Your role">member<\/td>/,
      );

      // A pending invitation is listed with Withdraw, which ends its link, audited.
      const invited = await browser.post(`/admin/workspaces/${teamA}/members`, {
        email: 'maybe@example.org',
        role: 'admin',
      });
      const pendingLink = /<code>http:\/\/localhost:3000(\/invitation\?token=[\w-]+)<\/code>/.exec(
        invited.body,
      )?.[1];
      assert.ok(pendingLink, 'invitation link shown');
      const admin = await browser.get(`/admin/workspaces/${teamA}`);
      const row =
        /<tr><td data-label="Invited">maybe@example.org<br><span class="muted">by owner@example.org<\/span><\/td>\s*<td data-label="Role">admin<\/td><td data-label="Link valid until"><time datetime="2026-04-05T00:30:00Z" title="2026-04-05T00:30\+00:00">5 Apr 00:30<\/time><\/td>[\s\S]*?name="invitation" value="([^"]+)"[\s\S]*?aria-label="Withdraw the invitation of maybe@example.org">Withdraw<\/button>/.exec(
          admin.body,
        );
      assert.ok(row, 'the pending invitation is listed with Withdraw');

      const withdrawn = await browser.post(`/admin/workspaces/${teamA}/invitations/withdraw`, {
        invitation: row[1]!,
      });
      assert.equal(withdrawn.statusCode, 303);
      const after = await browser.get(withdrawn.headers.location as string);
      assert.match(after.body, /The invitation was withdrawn: its link no longer works\./);
      assert.doesNotMatch(after.body, /<tr><td data-label="Invited">maybe@example.org/);
      assert.match(after.body, /Withdrew the invitation of maybe@example.org as admin/);
      const again = await browser.post(`/admin/workspaces/${teamA}/invitations/withdraw`, {
        invitation: row[1]!,
      });
      assert.equal(again.statusCode, 404);
      assert.equal((await new PageClient(t.app).get(pendingLink)).statusCode, 404);
    });

    it('gives members 403 and admins of another workspace 404 on every admin action', async () => {
      const member = new PageClient(t.app);
      await member.signIn('member@example.org', testPassword);
      await member.get('/account');
      assert.equal((await member.get(`/admin/workspaces/${teamA}`)).statusCode, 403);
      assert.equal(
        (await member.post(`/admin/workspaces/${teamA}/members`, { email: 'x@example.org', role: 'admin' }))
          .statusCode,
        403,
      );
      assert.equal(
        (await member.post(`/admin/workspaces/${teamA}/members/${ids.owner}/remove`, {})).statusCode,
        403,
      );

      const adminB = new PageClient(t.app);
      await adminB.signIn('ownerB@example.org', testPassword);
      await adminB.get('/account');
      assert.equal((await adminB.get(`/admin/workspaces/${teamA}`)).statusCode, 404);
      const posts = [
        [`/admin/workspaces/${teamA}/members`, { email: 'ownerB@example.org', role: 'owner' }],
        [`/admin/workspaces/${teamA}/members/${ids.owner}/role`, { role: 'member' }],
        [`/admin/workspaces/${teamA}/members/${ids.owner}/remove`, {}],
        [`/admin/workspaces/${teamA}/policy`, { maxDetailLevel: 'busy' }],
      ] as const;
      for (const [url, form] of posts) assert.equal((await adminB.post(url, form)).statusCode, 404, url);
      assert.equal(await roleOf(t.ctx.db, teamA, ids.owner!), 'owner');
      assert.equal(await roleOf(t.ctx.db, teamA, ids.ownerB!), undefined);
      assert.equal((await adminB.get(`/admin/workspaces/${teamB}`)).statusCode, 200);
    });

    it('saves the policy from the form', async () => {
      const browser = new PageClient(t.app);
      await browser.signIn('owner@example.org', testPassword);
      await browser.get(`/admin/workspaces/${teamA}`);
      const response = await browser.post(`/admin/workspaces/${teamA}/policy`, {
        allowedScopes: ['calendar:read', 'calendar:rsvp'],
        maxDetailLevel: 'titles',
        defaultDetailLevel: 'busy',
        allowedClients: 'client-1',
      });
      assert.equal(response.statusCode, 303);
      const page = await browser.get(response.headers.location as string);
      assert.match(page.body, /id="scope-calendar:rsvp" name="allowedScopes" value="calendar:rsvp" checked/);
      assert.match(page.body, /id="scope-calendar:write" name="allowedScopes" value="calendar:write">/);
      assert.match(
        page.body,
        /<select id="maxDetailLevel"[^<]*(<option[^>]*>[^<]*<\/option>)*?<option value="titles" selected>/,
      );
      assert.match(
        page.body,
        /<select id="defaultDetailLevel"[^<]*(<option[^>]*>[^<]*<\/option>)*?<option value="busy" selected>/,
      );
      // Unticked, colleagues' free/busy is off; ticked again, on.
      assert.match(page.body, /id="colleagueAvailability" name="colleagueAvailability">/);
      assert.equal((await findPolicy(t.ctx.db, teamA))?.colleagueAvailability, false);
      await browser.post(`/admin/workspaces/${teamA}/policy`, {
        allowedScopes: ['calendar:read'],
        maxDetailLevel: 'titles',
        colleagueAvailability: 'on',
      });
      assert.match(
        (await browser.get(`/admin/workspaces/${teamA}`)).body,
        /id="colleagueAvailability" name="colleagueAvailability" checked>/,
      );
    });
  });

  describe('first run', () => {
    it('creates the first owner through the single-use set-up link, only once', async () => {
      const fresh = await startTestApp();
      try {
        const token = await issueFirstRunToken(fresh.ctx.db, fresh.clock);
        assert.ok(token);
        const browser = new PageClient(fresh.app);
        assert.equal((await browser.get('/setup?token=wrong')).statusCode, 404);
        const form = await browser.get(`/setup?token=${token}`);
        assert.match(form.body, /<label for="workspaceName">Workspace name<\/label>/);
        const bad = await browser.post('/setup', {
          token,
          name: 'Olga',
          email: 'olga@example.org',
          password: 'short',
          workspaceName: 'Ops',
        });
        assert.equal(bad.statusCode, 400);
        const done = await browser.post('/setup', {
          token,
          name: 'Olga',
          email: 'olga@example.org',
          password: 'a long enough secret',
          workspaceName: 'Ops',
        });
        assert.equal(done.statusCode, 303);
        assert.match((await browser.get('/admin')).body, /Ops<\/a> \(owner\)/);
        const again = new PageClient(fresh.app);
        assert.equal((await again.get(`/setup?token=${token}`)).statusCode, 404);
        assert.equal(
          await issueFirstRunToken(fresh.ctx.db, fresh.clock),
          undefined,
          'no link once someone exists',
        );
      } finally {
        await fresh.close();
      }
    });
  });
});
