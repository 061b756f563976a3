/**
 * A member removed from a workspace takes what they connected there along: their accounts there
 * with their sealed credentials, calendars, synced copies and push channels are deleted, their
 * grants there end (revoked, their tokens refused); what they have in another workspace stays.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { copyKeyOf } from '../../src/store/calendarCopies.ts';
import { insertChannel } from '../../src/store/pushChannels.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { memoryProvider, occurrence, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

describe('a member removed from a workspace', () => {
  let t: TestApp;
  let ben: string;
  const team = { id: '', calendarId: '', token: '', grantId: '' };
  const other = { id: '', calendarId: '', token: '', grantId: '' };
  const provider = memoryProvider(
    'caldav',
    new Map([
      [
        'home',
        {
          name: 'Home',
          timeZone: 'Europe/Berlin',
          occurrences: [
            occurrence({ start: '2026-03-31T10:00:00', timeZone: 'Europe/Berlin', title: 'Dentist' }),
          ],
        },
      ],
    ]),
  );
  const calendarsWith = async (token: string) =>
    (await t.app.inject({ url: '/v1/calendars', headers: { authorization: `Bearer ${token}` } })).statusCode;
  const accountsOf = async (workspaceId: string) =>
    t.ctx.db
      .selectFrom('connected_accounts')
      .select(['id', 'credentials'])
      .where('user_id', '=', ben)
      .where('workspace_id', '=', workspaceId)
      .execute();
  /** Each calendar's copy's number, taken while the copy stands: its rows name it by that alone. */
  const copyNumbers = new Map<string, number>();
  const countWhere = async (
    table: 'calendars' | 'calendar_copies' | 'copy_occurrences' | 'push_channels',
    calendarId: string,
  ) => {
    if (table === 'copy_occurrences')
      return (
        await t.ctx.db
          .selectFrom(table)
          .select('id')
          .where('copy_key', '=', copyNumbers.get(calendarId)!)
          .execute()
      ).length;
    const column = table === 'calendars' ? 'id' : 'calendar_id';
    const rows = await t.ctx.db.selectFrom(table).select(column).where(column, '=', calendarId).execute();
    return rows.length;
  };

  before(async () => {
    t = await startTestApp({ providers: { caldav: provider } });
    const ana = await seedUser(t.ctx.db, 'ana@example.org');
    ben = await seedUser(t.ctx.db, 'ben@example.org');
    for (const [place, name] of [
      [team, 'Team'],
      [other, 'Other'],
    ] as const) {
      place.id = await seedWorkspace(t.ctx.db, name, [
        [ana, 'owner'],
        [ben, 'member'],
      ]);
      [place.calendarId] = (await seedMemoryAccount(
        t.ctx,
        { userId: ben, workspaceId: place.id },
        provider,
      )) as [string];
      const granted = await grantToken(t.ctx, {
        userId: ben,
        workspaceId: place.id,
        calendars: [{ calendarId: place.calendarId, detailLevel: 'full' }],
        resource: 'v1',
      });
      place.token = granted.token;
      place.grantId = granted.grantId;
      const [account] = await accountsOf(place.id);
      await insertChannel(t.ctx.db, {
        provider: 'caldav',
        channelId: `channel-${name}`,
        calendarId: place.calendarId,
        accountId: account!.id,
        tokenHash: 'hash',
        expiresAt: Number.MAX_SAFE_INTEGER,
        createdAt: 0,
      });
    }
    await t.sync.runDue();
  });
  after(() => t?.close());

  it('loses their accounts, copies, channels and grants there, and keeps those elsewhere', async () => {
    for (const place of [team, other]) {
      const { copy_key } = await copyKeyOf(t.ctx.db, place.calendarId).executeTakeFirstOrThrow();
      copyNumbers.set(place.calendarId, copy_key);
      assert.equal((await accountsOf(place.id)).length, 1);
      assert.equal(await countWhere('copy_occurrences', place.calendarId), 1, 'synced');
      assert.equal(await calendarsWith(place.token), 200);
    }

    const admin = new PageClient(t.app);
    await admin.signIn('ana@example.org', testPassword);
    await admin.get(`/admin/workspaces/${team.id}`);
    const removed = await admin.post(`/admin/workspaces/${team.id}/members/${ben}/remove`, {});
    assert.equal(removed.statusCode, 303);

    assert.deepEqual(await accountsOf(team.id), [], 'the account and its sealed credentials are gone');
    for (const table of ['calendars', 'calendar_copies', 'copy_occurrences', 'push_channels'] as const)
      assert.equal(await countWhere(table, team.calendarId), 0, table);
    const grant = await t.ctx.db
      .selectFrom('access_grants')
      .select(['revoked_at', 'revoked_reason'])
      .where('id', '=', team.grantId)
      .executeTakeFirstOrThrow();
    assert.notEqual(grant.revoked_at, null, 'the grant ended');
    assert.equal(await calendarsWith(team.token), 401);

    const [kept] = await accountsOf(other.id);
    assert.ok(kept?.credentials, 'the account in the other workspace stays, with its credentials');
    for (const table of ['calendars', 'calendar_copies', 'copy_occurrences', 'push_channels'] as const)
      assert.equal(await countWhere(table, other.calendarId), 1, table);
    assert.equal(await calendarsWith(other.token), 200);
  });
});
