/**
 * Every way a grant's access ends tells the other instances on PostgreSQL (a notice carrying the
 * grant id, heard here by a listener of our own): the account page, the admin page (blocking an
 * app, removing a member, changing the policy), the token revocation endpoint, and removing a
 * calendar account. A grant untouched is not told.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import {
  listenForNotices,
  type NoticeListener,
  noticeChannels,
  publishNotice,
} from '../../src/store/notices.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshPostgres, postgresSkip } from '../helpers/databases.ts';
import { grantToken } from '../helpers/grantToken.ts';
import {
  authorizationUrl,
  consent,
  discover,
  exchangeCode,
  insecure,
  registerClient,
} from '../helpers/oauth.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedCalendars, seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const skip = await postgresSkip('the grant notice tests');

describe('grant ends told to the other instances (PostgreSQL)', { skip, timeout: 60_000 }, () => {
  let t: TestApp;
  let listener: NoticeListener;
  const heard: string[] = [];
  const waiters: Array<() => void> = [];
  let ana: string;
  let ben: string;
  let team: string;
  let work: string;
  let admin: PageClient;

  /** Resolves once the grant's end has been told (the test's timeout bounds the wait). */
  const told = async (grantId: string) => {
    while (!heard.includes(grantId)) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const grantOf = (userId: string, clientId = 'test-client') =>
    grantToken(t.ctx, { userId, workspaceId: team, calendars: [], clientId });

  before(async () => {
    const database = await freshPostgres();
    t = await startTestApp({ database, listen: true });
    listener = listenForNotices(database.url, {
      onNotice(channel, payload) {
        if (channel === noticeChannels.grantEnded) heard.push(payload);
        for (const w of waiters.splice(0)) w();
      },
      onListening() {},
      onError() {},
    });
    await listener.listening;
    ana = await seedUser(t.ctx.db, 'ana@example.org');
    ben = await seedUser(t.ctx.db, 'ben@example.org');
    team = await seedWorkspace(t.ctx.db, 'Team', [
      [ana, 'owner'],
      [ben, 'member'],
    ]);
    work = (await seedCalendars(t.ctx.db, { userId: ana, workspaceId: team }, [{ name: 'Work' }]))[0]!;
    admin = new PageClient(t.app);
    await admin.signIn('ana@example.org', testPassword);
  });
  after(async () => {
    await listener?.close();
    await t?.close();
  });

  it('the account page: a person revokes a grant', async () => {
    const { grantId } = await grantOf(ana);
    await admin.get('/account');
    assert.equal((await admin.post(`/account/apps/${grantId}/revoke`, {})).statusCode, 303);
    await told(grantId);
  });

  it('the admin page: an app blocked in the workspace', async () => {
    const { grantId } = await grantOf(ben, 'blocked-client');
    await admin.get(`/admin/workspaces/${team}`);
    const blocked = await admin.post(`/admin/workspaces/${team}/clients/block`, {
      clientId: 'blocked-client',
    });
    assert.equal(blocked.statusCode, 303);
    await told(grantId);
  });

  it('the admin page: the policy changed', async () => {
    const { grantId } = await grantOf(ben);
    await admin.get(`/admin/workspaces/${team}`);
    const saved = await admin.post(`/admin/workspaces/${team}/policy`, {
      allowedScopes: ['calendar:read'],
      maxDetailLevel: 'titles',
    });
    assert.equal(saved.statusCode, 303);
    await told(grantId);
  });

  it('the token revocation endpoint', async () => {
    const h = await discover(t);
    const client = await registerClient(h);
    const attempt = await authorizationUrl(h, client);
    const callback = await consent(
      t,
      'ana@example.org',
      attempt,
      { calendar: [work], [`level_${work}`]: 'titles' },
      admin,
    );
    const tokens = await exchangeCode(h, client, attempt, callback);
    const { gid } = decodeJwt(tokens.access_token);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(h.as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    await told(String(gid));
  });

  it('a calendar account removed (its person’s grants), then a member removed (theirs)', async () => {
    const [account] = await t.ctx.db
      .selectFrom('connected_accounts')
      .select('id')
      .where('user_id', '=', ana)
      .execute();
    const bens = await grantOf(ben);
    const { grantId } = await grantOf(ana);
    await admin.get('/account');
    const removed = await admin.post(`/account/workspaces/${team}/connections/${account!.id}/remove`, {});
    assert.equal(removed.statusCode, 303);
    await told(grantId);
    // Everything the removal told came before this.
    await publishNotice(t.ctx.db, noticeChannels.grantEnded, 'marker');
    await told('marker');
    assert.ok(!heard.includes(bens.grantId), "another person's grant is not told");

    await admin.get(`/admin/workspaces/${team}`);
    assert.equal((await admin.post(`/admin/workspaces/${team}/members/${ben}/remove`, {})).statusCode, 303);
    await told(bens.grantId);
  });
});
