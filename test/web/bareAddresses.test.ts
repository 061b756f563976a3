/**
 * The pages take a bare e-mail address only: an invitation or a reset link asked for
 * `"victim"<attacker@evil.test>`, `a,b@evil.test` and the like is refused with the form's
 * message, nothing is stored and no mail goes out (the next mail the SMTP server receives is for
 * the valid address asked after them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

const notBare = [
  '"victim"<attacker@evil.test>',
  'Victim <attacker@evil.test>',
  'a,b@evil.test',
  'victim@example.org,attacker@evil.test',
  '"a b"@example.org',
  'victim@example.org@evil.test',
  'victim@example.org\r\nBcc: attacker@evil.test',
  'ann@localhost',
];

describe('pages: e-mail addresses are bare addresses', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let team: string;

  before(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    const owner = await seedUser(t.ctx.db, 'owner@example.org', 'Olga');
    await seedUser(t.ctx.db, 'ana@example.org', 'Ana');
    team = await seedWorkspace(t.ctx.db, 'Team', [[owner, 'owner']]);
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  const oneTimeTokens = () => t.ctx.db.selectFrom('one_time_tokens').selectAll().execute();

  it('refuses an invitation to anything else, inviting no one', async () => {
    const admin = new PageClient(t.app);
    await admin.signIn('owner@example.org', testPassword);
    await admin.get(`/admin/workspaces/${team}`);
    const tokensBefore = (await oneTimeTokens()).length;
    for (const email of notBare) {
      const answer = await admin.post(`/admin/workspaces/${team}/members`, { email, role: 'member' });
      assert.equal(answer.statusCode, 400, email);
      assert.match(answer.body, /Enter a valid e-mail address/, email);
    }
    assert.equal((await oneTimeTokens()).length, tokensBefore, 'no invitation stored');
    const invited = await admin.post(`/admin/workspaces/${team}/members`, {
      email: 'guest@example.org',
      role: 'member',
    });
    assert.equal(invited.statusCode, 200);
    assert.deepEqual((await smtp.next()).to, ['guest@example.org'], 'the first mail is the valid one');
  });

  it('refuses a reset link asked for anything else', async () => {
    const browser = new PageClient(t.app);
    await browser.get('/password/forgot');
    for (const email of notBare) {
      const answer = await browser.post('/password/forgot', { email });
      assert.equal(answer.statusCode, 400, email);
      assert.match(answer.body, /Enter a valid e-mail address/, email);
    }
    assert.equal((await browser.post('/password/forgot', { email: 'ana@example.org' })).statusCode, 200);
    assert.deepEqual((await smtp.next()).to, ['ana@example.org'], 'the first mail is the valid one');
  });
});
