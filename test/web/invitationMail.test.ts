/** Invitations e-mailed from the admin page through a real SMTP server on loopback, and when it fails. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/freePort.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

const base = 'http://localhost:3000';
const shownLink = /<code>(http:\/\/localhost:3000\/invitation\?token=[\w-]{43})<\/code>/;

async function invite(t: TestApp, workspaceId: string, email: string) {
  const admin = new PageClient(t.app);
  await admin.signIn('owner@example.org', testPassword);
  await admin.get(`/admin/workspaces/${workspaceId}`);
  return admin.post(`/admin/workspaces/${workspaceId}/members`, { email, role: 'member' });
}

/** Follows an invitation link to a new account and membership. */
async function accept(t: TestApp, link: string) {
  assert.ok(link.startsWith(`${base}/invitation?token=`), link);
  const guest = new PageClient(t.app);
  const form = await guest.get(link.slice(base.length));
  assert.equal(form.statusCode, 200);
  const joined = await guest.post('/invitation', {
    token: new URL(link).searchParams.get('token')!,
    name: 'Guest',
    password: 'a long enough secret',
  });
  assert.equal(joined.statusCode, 303);
  return guest;
}

async function appWithTeam(env: Record<string, string>, logLines?: string[]) {
  const t = await startTestApp({ env: { LOG_LEVEL: 'info', ...env }, ...(logLines ? { logLines } : {}) });
  const owner = await seedUser(t.ctx.db, 'owner@example.org', 'Olga');
  const team = await seedWorkspace(t.ctx.db, 'Team Mail', [[owner, 'owner']]);
  return { t, team };
}

describe('invitations by e-mail', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let team: string;
  const logLines: string[] = [];

  before(async () => {
    smtp = await startSmtpServer({ user: 'mailer', password: 'smtp-Secret-4711' });
    ({ t, team } = await appWithTeam(
      { SMTP_URL: smtp.url, MAIL_FROM: 'Team Calendars <calendars@example.org>' },
      logLines,
    ));
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  it('e-mails the invitation, says so without showing the link, and the e-mailed link works', async () => {
    const response = await invite(t, team, 'Guest@Example.org');
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /an invitation was e-mailed to <strong>Guest@Example.org<\/strong>/);
    assert.doesNotMatch(response.body, /invitation\?token=/, 'the link reached the address alone');

    const mail = await smtp.next();
    assert.deepEqual(
      mail.to.map((to) => to.toLowerCase()),
      ['guest@example.org'],
    );
    assert.equal(mail.subject, 'Invitation to join Team Mail on Calendar Access');
    assert.equal(mail.headers.get('from'), 'Team Calendars <calendars@example.org>');
    assert.match(
      mail.text,
      /Olga \(owner@example.org\) invited you to join the workspace "Team Mail" as member/,
    );
    assert.match(mail.text, /It works once, until 2026-04-05 00:30 UTC \(7 days\)\./);
    const guest = await accept(t, linkIn(mail, `${base}/invitation`));
    assert.match(
      (await guest.get('/account/profile')).body,
      /<td data-label="Workspace">Team Mail<\/td><td data-label="Your role">member<\/td>/,
    );
  });

  it('adds an existing account without any e-mail', async () => {
    await seedUser(t.ctx.db, 'known@example.org');
    const response = await invite(t, team, 'known@example.org');
    assert.equal(response.statusCode, 303);
    const next = await invite(t, team, 'second@example.org');
    assert.match(next.body, /e-mailed to <strong>second@example.org<\/strong>/);
    assert.deepEqual((await smtp.next()).to, ['second@example.org'], 'no mail went to the existing account');
  });

  it('logs neither the SMTP password nor the link', () => {
    const logs = logLines.join('\n');
    assert.ok(logs.length > 0);
    assert.doesNotMatch(logs, /smtp-Secret-4711|token=[\w-]{43}/);
  });
});

describe('invitations when the e-mail cannot be sent', () => {
  it('says so, shows the link instead, and the link works (server down)', async () => {
    const logLines: string[] = [];
    const port = await freePort();
    const { t, team } = await appWithTeam(
      { SMTP_URL: `smtp://mailer:down-Secret-99@127.0.0.1:${port}` },
      logLines,
    );
    try {
      const response = await invite(t, team, 'guest@example.org');
      assert.equal(response.statusCode, 200);
      assert.match(response.body, /the e-mail to <strong>guest@example.org<\/strong> could not be sent/);
      const link = shownLink.exec(response.body)?.[1];
      assert.ok(link, 'the link is shown to the admin');
      await accept(t, link);
      const logs = logLines.join('\n');
      assert.match(logs, /invitation e-mail not sent/);
      assert.doesNotMatch(logs, /down-Secret-99|token=[\w-]{43}|guest@example.org/);
    } finally {
      await t.close();
    }
  });

  it('says so when the server refuses the credentials, never logging the password', async () => {
    const logLines: string[] = [];
    const smtp = await startSmtpServer({ user: 'mailer', password: 'the-right-one' });
    const wrong = smtp.url.replace('the-right-one', 'Wrong-Secret-123');
    const { t, team } = await appWithTeam({ SMTP_URL: wrong }, logLines);
    try {
      const response = await invite(t, team, 'guest@example.org');
      assert.match(response.body, /could not be sent/);
      assert.ok(shownLink.test(response.body));
      assert.equal(smtp.received.length, 0);
      const logs = logLines.join('\n');
      assert.match(logs, /"code":"EAUTH"/);
      assert.doesNotMatch(logs, /Wrong-Secret-123/);
    } finally {
      await t.close();
      await smtp.close();
    }
  });

  it('shows the link as before when no SMTP server is configured', async () => {
    const { t, team } = await appWithTeam({});
    try {
      const response = await invite(t, team, 'guest@example.org');
      assert.match(response.body, /so an invitation was created\. Send this single-use link/);
      assert.ok(shownLink.test(response.body));
    } finally {
      await t.close();
    }
  });
});
