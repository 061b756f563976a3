/** Forgotten passwords, end to end: the pages, a real SMTP server on loopback, the link in the e-mail. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resetThrottle } from '../../src/people/passwordReset.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/freePort.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, testPassword } from '../helpers/seed.ts';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

const base = 'http://localhost:3000';
const newPassword = 'a brand new passphrase';
const smtpCredentials = { user: 'mailer', password: 'smtp-Secret-4711' };

/** The reset page's path and query, from the link in the e-mail. */
const resetPath = (link: string) => {
  assert.ok(link.startsWith(`${base}/password/reset?token=`), link);
  return link.slice(base.length);
};

async function askForLink(app: TestApp['app'], email: string) {
  const browser = new PageClient(app);
  await browser.get('/password/forgot');
  return browser.post('/password/forgot', { email });
}

/** The page as any visitor sees it: without the per-visitor CSRF token. */
const withoutCsrf = (body: string) =>
  body.replace(/value="[^"]*" name="_csrf"|name="_csrf" value="[^"]*"/g, '');

const resetTokens = (t: TestApp) =>
  t.ctx.db.selectFrom('one_time_tokens').selectAll().where('purpose', '=', 'password_reset').execute();

describe('password reset by e-mail', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  const logLines: string[] = [];

  before(async () => {
    smtp = await startSmtpServer(smtpCredentials);
    t = await startTestApp({ env: { SMTP_URL: smtp.url, LOG_LEVEL: 'info' }, logLines });
    await seedUser(t.ctx.db, 'ana@example.org', 'Ana');
    await seedUser(t.ctx.db, 'ben@example.org', 'Ben');
    await seedUser(t.ctx.db, 'cy@example.org', 'Cy');
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  it('is offered on the sign-in page', async () => {
    const browser = new PageClient(t.app);
    assert.match(
      (await browser.get('/login')).body,
      /<a href="\/password\/forgot">Forgot your password\?<\/a>/,
    );
    const forgot = await browser.get('/password/forgot');
    assert.equal(forgot.statusCode, 200);
    assert.match(forgot.body, /<label for="email">Email<\/label>/);
    assert.match(forgot.body, /name="_csrf"/);
  });

  it('e-mails a link that sets a new password once and ends every session', async () => {
    const signedIn = new PageClient(t.app);
    await signedIn.signIn('ana@example.org', testPassword);
    assert.equal((await signedIn.get('/account')).statusCode, 200);

    const answer = await askForLink(t.app, 'ANA@example.org');
    assert.equal(answer.statusCode, 200);
    assert.match(
      answer.body,
      /If an account uses this address, a link to choose a new password is on its way/,
    );
    const mail = await smtp.next();
    assert.deepEqual(mail.to, ['ana@example.org']);
    assert.equal(mail.user, smtpCredentials.user, 'sent with the SMTP_URL credentials');
    assert.equal(mail.subject, 'Reset your Calendar Access password');
    assert.match(mail.headers.get('from') ?? '', /Calendar Access <no-reply@localhost>/);
    assert.match(mail.text, /It works once, until 2026-03-29 01:00 UTC \(30 minutes\)\./);
    const path = resetPath(linkIn(mail, `${base}/password/reset`));

    const browser = new PageClient(t.app);
    const form = await browser.get(path);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /For the account <strong>ana@example.org<\/strong>/);
    const token = new URL(path, base).searchParams.get('token')!;
    const tooShort = await browser.post('/password/reset', { token, password: 'short' });
    assert.equal(tooShort.statusCode, 400, 'the password rules hold');
    assert.match(tooShort.body, /Use at least 12 characters/);
    const done = await browser.post('/password/reset', { token, password: newPassword });
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /Your new password is set/);

    assert.equal((await signedIn.get('/account')).statusCode, 303, 'the earlier session ended');
    const again = await new PageClient(t.app).get(path);
    assert.equal(again.statusCode, 404, 'the link works once');
    const reuse = await browser.post('/password/reset', { token, password: 'yet another passphrase' });
    assert.equal(reuse.statusCode, 404);

    const old = await new PageClient(t.app).signIn('ana@example.org', testPassword);
    assert.equal(old.statusCode, 401, 'the old password no longer works');
    const fresh = await new PageClient(t.app).signIn('ana@example.org', newPassword);
    assert.equal(fresh.statusCode, 303);
  });

  it('gives an unknown address the same page and sends it nothing', async () => {
    const before = (await resetTokens(t)).length;
    const unknown = await askForLink(t.app, 'nobody@example.org');
    const known = await askForLink(t.app, 'cy@example.org');
    assert.equal(unknown.statusCode, known.statusCode);
    assert.equal(withoutCsrf(unknown.body), withoutCsrf(known.body));
    // The known address's mail is the next one: none was sent for the unknown one before it.
    const mail = await smtp.next();
    assert.deepEqual(mail.to, ['cy@example.org']);
    assert.equal((await resetTokens(t)).length, before + 1, 'one link made, for the account');
    assert.ok(smtp.received.every((m) => !m.to.includes('nobody@example.org')));
  });

  it('refuses an expired link, and a link once a newer one was sent', async () => {
    await askForLink(t.app, 'ben@example.org');
    const first = resetPath(linkIn(await smtp.next(), `${base}/password/reset`));
    assert.equal((await new PageClient(t.app).get(first)).statusCode, 200);
    await askForLink(t.app, 'ben@example.org');
    const second = resetPath(linkIn(await smtp.next(), `${base}/password/reset`));
    assert.equal((await new PageClient(t.app).get(first)).statusCode, 404, 'the earlier link ended');
    assert.equal((await new PageClient(t.app).get(second)).statusCode, 200);

    t.clock.advance({ minutes: 31 });
    const browser = new PageClient(t.app);
    const expired = await browser.get(second);
    assert.equal(expired.statusCode, 404);
    assert.match(expired.body, /This link is invalid, expired or already used/);
    const token = new URL(second, base).searchParams.get('token')!;
    await browser.get('/password/forgot');
    const post = await browser.post('/password/reset', { token, password: newPassword });
    assert.equal(post.statusCode, 404);
    const still = await new PageClient(t.app).signIn('ben@example.org', testPassword);
    assert.equal(still.statusCode, 303, 'the password is unchanged');
  });

  it(`makes at most ${resetThrottle.maxLinks} links per account in ${resetThrottle.windowMs / 60_000} minutes, answering the same`, async () => {
    t.clock.advance({ hours: 1 });
    const ids = await t.ctx.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'cy@example.org')
      .executeTakeFirstOrThrow();
    const ofCy = async () => (await resetTokens(t)).filter((r) => r.user_id === ids.id).length;
    const start = await ofCy();
    let last = '';
    for (let i = 0; i <= resetThrottle.maxLinks; i++) {
      const answer = await askForLink(t.app, 'cy@example.org');
      assert.equal(answer.statusCode, 200);
      if (last !== '') assert.equal(withoutCsrf(answer.body), last);
      last = withoutCsrf(answer.body);
    }
    for (let i = 0; i < resetThrottle.maxLinks; i++)
      assert.deepEqual((await smtp.next()).to, ['cy@example.org']);
    assert.equal(await ofCy(), start + resetThrottle.maxLinks, 'no link beyond the limit');
  });

  it('asks for a valid address, and refuses a form without its CSRF token', async () => {
    const browser = new PageClient(t.app);
    await browser.get('/password/forgot');
    const bad = await browser.post('/password/forgot', { email: 'not an address' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /Enter a valid e-mail address/);
    const forged = await browser.post('/password/forgot', { email: 'cy@example.org', _csrf: 'forged' });
    assert.equal(forged.statusCode, 403);
  });

  it('never logs the SMTP password, the link or the message', () => {
    const logs = logLines.join('\n');
    assert.ok(logs.length > 0, 'something was logged');
    assert.doesNotMatch(logs, new RegExp(smtpCredentials.password));
    assert.doesNotMatch(logs, /password\/reset\?token=[\w-]{43}/);
  });
});

describe('password reset when the mail server is down', () => {
  it('answers the same page and logs the failure without the link', async () => {
    const logLines: string[] = [];
    const port = await freePort();
    const t = await startTestApp({
      env: { SMTP_URL: `smtp://mailer:down-Secret-99@127.0.0.1:${port}`, LOG_LEVEL: 'info' },
      logLines,
    });
    try {
      await seedUser(t.ctx.db, 'ana@example.org');
      const failed = new Promise<string>((resolve) => {
        const push = logLines.push.bind(logLines);
        logLines.push = (...lines: string[]) => {
          for (const line of lines) if (line.includes('password reset e-mail not sent')) resolve(line);
          return push(...lines);
        };
      });
      const answer = await askForLink(t.app, 'ana@example.org');
      assert.equal(answer.statusCode, 200);
      assert.match(
        answer.body,
        /If an account uses this address, a link to choose a new password is on its way/,
      );
      const line = await failed;
      assert.match(line, /"code":"ESOCKET"|"code":"ECONNECTION"/);
      assert.doesNotMatch(logLines.join('\n'), /down-Secret-99|token=/);
    } finally {
      await t.close();
    }
  });
});

describe('password reset requests per client', () => {
  it('are limited like sign-in, with 429 and Retry-After', async () => {
    const port = await freePort();
    const t = await startTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
    try {
      const browser = new PageClient(t.app);
      await browser.get('/password/forgot');
      const statuses: number[] = [];
      // No account uses these addresses: nothing is sent, only the limit is spent.
      for (let i = 0; i < 20; i++)
        statuses.push((await browser.post('/password/forgot', { email: `x${i}@example.org` })).statusCode);
      assert.deepEqual(statuses, Array(20).fill(200));
      const last = await browser.post('/password/forgot', { email: 'x@example.org' });
      assert.equal(last.statusCode, 429);
      assert.ok(Number(last.headers['retry-after']) > 0);
    } finally {
      await t.close();
    }
  });
});

describe('password reset without SMTP', () => {
  it('says to ask an administrator and sends nothing', async () => {
    const t = await startTestApp();
    try {
      await seedUser(t.ctx.db, 'ana@example.org');
      const browser = new PageClient(t.app);
      const page = await browser.get('/password/forgot');
      assert.match(page.body, /Ask its administrator for a single-use link/);
      assert.doesNotMatch(page.body, /action="\/password\/forgot"/);
      await browser.get('/login'); // a page with a form, for its CSRF token
      const posted = await browser.post('/password/forgot', { email: 'ana@example.org' });
      assert.equal(posted.statusCode, 200);
      assert.match(posted.body, /Ask its administrator/);
      assert.equal((await resetTokens(t)).length, 0);
    } finally {
      await t.close();
    }
  });
});
