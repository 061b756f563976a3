/** The CLI's e-mail and reset links: invitations through a real SMTP server, and `user reset-link`. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, sqlitePathIn } from '../../src/store/database.ts';
import { startTestApp } from '../helpers/app.ts';
import { cliIn } from '../helpers/cli.ts';
import { freePort } from '../helpers/freePort.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'cas-cli-mail-'));
const base = 'http://localhost:3000';
const password = 'a long enough secret';

const cli = (env: Record<string, string>, ...argv: string[]) => cliIn(dataDir, env, ...argv);

describe('CLI mail and reset links', () => {
  let smtp: TestSmtpServer;
  let workspace: string;

  before(async () => {
    smtp = await startSmtpServer({ user: 'mailer', password: 'cli-Secret-55' });
    assert.equal(
      (await cli({}, 'user', 'create', '--email', 'owner@example.org', '--password', password)).code,
      0,
    );
    const ws = await cli({}, 'workspace', 'create', '--name', 'Ops', '--owner', 'owner@example.org');
    assert.equal(ws.code, 0, ws.err);
    workspace = ws.out;
  });
  after(async () => {
    await smtp.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const addMember = (env: Record<string, string>, email: string) =>
    cli(env, 'workspace', 'add-member', '--workspace', workspace, '--email', email, '--role', 'member');

  it('e-mails an invitation with SMTP_URL set, and prints no link', async () => {
    const invited = await addMember({ SMTP_URL: smtp.url }, 'new@example.org');
    assert.equal(invited.code, 0, invited.err);
    assert.equal(
      invited.out,
      'No account uses that address; an invitation (single use, 7 days) was e-mailed to new@example.org.',
    );
    const mail = await smtp.next();
    assert.deepEqual(mail.to, ['new@example.org']);
    assert.match(mail.text, /An administrator invited you to join the workspace "Ops" as member/);
    assert.match(linkIn(mail, `${base}/invitation`), /\/invitation\?token=[\w-]{43}$/);
  });

  it('prints the link when the e-mail cannot be sent, naming the failure but not the password', async () => {
    const port = await freePort();
    const invited = await addMember(
      { SMTP_URL: `smtp://mailer:cli-Secret-55@127.0.0.1:${port}` },
      'other@example.org',
    );
    assert.equal(invited.code, 0);
    assert.match(invited.err, /The invitation e-mail could not be sent \(ESOCKET\)/);
    assert.doesNotMatch(invited.err, /cli-Secret-55/);
    assert.match(
      invited.out,
      /invitation link \(single use, 7 days\): http:\/\/localhost:3000\/invitation\?token=[\w-]{43}$/,
    );
  });

  it('refuses a bad SMTP_URL without repeating it', async () => {
    const bad = await addMember({ SMTP_URL: 'http://mailer:cli-Secret-55@127.0.0.1:25' }, 'x@example.org');
    assert.equal(bad.code, 78);
    assert.match(bad.err, /SMTP_URL must be smtp:\/\//);
    assert.doesNotMatch(bad.err, /cli-Secret-55/);
  });

  it("builds links from BASE_URL, not from the CLI's own PORT, and then warns of nothing", async () => {
    const env = { BASE_URL: 'https://calendar.example.org/', PORT: '4123' };
    const printed = await cli(env, 'user', 'reset-link', '--email', 'owner@example.org');
    assert.equal(printed.code, 0, printed.err);
    assert.equal(printed.err, '');
    assert.match(printed.out, /: https:\/\/calendar\.example\.org\/password\/reset\?token=[\w-]{43}$/);
    const invited = await addMember(env, 'third@example.org');
    assert.equal(invited.err, '');
    assert.match(invited.out, /: https:\/\/calendar\.example\.org\/invitation\?token=[\w-]{43}$/);
    const unset = await addMember({ PORT: '4123' }, 'fourth@example.org');
    assert.match(unset.err, /warning: BASE_URL is not set, so this link assumes .*localhost:4123/);
  });

  it('prints a reset link that sets a new password once and ends the sessions', async () => {
    const missing = await cli({}, 'user', 'reset-link', '--email', 'nobody@example.org');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /not_found/);

    const printed = await cli({}, 'user', 'reset-link', '--email', 'owner@example.org');
    assert.equal(printed.code, 0, printed.err);
    assert.match(printed.err, /^warning: BASE_URL is not set, so this link assumes .*localhost:3000/);
    const link = /(http:\/\/localhost:3000\/password\/reset\?token=[\w-]{43})$/.exec(printed.out)?.[1];
    assert.ok(link, printed.out);

    const t = await startTestApp({ database: openDatabase({ sqlitePath: sqlitePathIn(dataDir) }) });
    try {
      const signedIn = new PageClient(t.app);
      assert.equal((await signedIn.signIn('owner@example.org', password)).statusCode, 303);
      const browser = new PageClient(t.app);
      assert.equal((await browser.get(link.slice(base.length))).statusCode, 200);
      const token = new URL(link).searchParams.get('token')!;
      const done = await browser.post('/password/reset', { token, password: 'the new long secret' });
      assert.equal(done.statusCode, 200);
      assert.equal((await signedIn.get('/account')).statusCode, 303, 'the session ended');
      assert.equal(
        (await browser.post('/password/reset', { token, password: 'a third long secret' })).statusCode,
        404,
      );
      assert.equal(
        (await new PageClient(t.app).signIn('owner@example.org', 'the new long secret')).statusCode,
        303,
      );
    } finally {
      await t.close();
    }
  });
});
