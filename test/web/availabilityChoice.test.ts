/**
 * Which calendars count toward a person's free/busy for colleagues, chosen on the account page:
 * every calendar by default, a box per calendar saved in one form, the busy-only copies following
 * at once; another person's account, or a calendar of another account, is refused as unknown.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countingCalendars } from '../../src/store/connectedAccounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedCalendars, seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

describe('free/busy choice on the account page', () => {
  let t: TestApp;
  let ana: PageClient;
  let workspaceId: string;
  let ids: { work: string; diary: string; home: string };
  let accounts: { ana: string; ben: string };
  const choicePath = (account: string) =>
    `/account/workspaces/${workspaceId}/connections/${account}/calendars/availability`;
  const copied = async () =>
    (await t.ctx.db.selectFrom('calendar_copies').select('calendar_id').execute()).map((r) => r.calendar_id);
  const box = (id: string) => new RegExp(`id="counts-${id}" name="counting" value="${id}"( checked)?>`);

  before(async () => {
    t = await startTestApp();
    const anaId = await seedUser(t.ctx.db, 'ana@example.org');
    const benId = await seedUser(t.ctx.db, 'ben@example.org');
    workspaceId = await seedWorkspace(t.ctx.db, 'Team', [
      [anaId, 'owner'],
      [benId, 'member'],
    ]);
    const [work, diary] = await seedCalendars(t.ctx.db, { userId: anaId, workspaceId }, [
      { name: 'Work' },
      { name: 'Diary' },
    ]);
    const [home] = await seedCalendars(t.ctx.db, { userId: benId, workspaceId }, [{ name: 'Home' }]);
    ids = { work: work!, diary: diary!, home: home! };
    const accountOf = async (calendarId: string) =>
      (
        await t.ctx.db
          .selectFrom('calendars')
          .select('account_id')
          .where('id', '=', calendarId)
          .executeTakeFirstOrThrow()
      ).account_id;
    accounts = { ana: await accountOf(ids.work), ben: await accountOf(ids.home) };
    ana = new PageClient(t.app);
    await ana.signIn('ana@example.org', testPassword);
  });
  after(() => t?.close());

  it('shows every calendar counting by default', async () => {
    const page = await ana.get('/account');
    for (const id of [ids.work, ids.diary]) assert.equal(box(id).exec(page.body)?.[1], ' checked');
    assert.match(page.body, new RegExp(`action="${choicePath(accounts.ana)}"`));
    assert.doesNotMatch(page.body, new RegExp(ids.home), "another person's calendars are not shown");
  });

  it('saves the choice in one post; the calendar left out stops counting and loses its busy copy', async () => {
    const response = await ana.post(choicePath(accounts.ana), { counting: [ids.work] });
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/account?notice=availability');
    const page = await ana.get(response.headers.location as string);
    assert.match(page.body, /Your choice of calendars for free\/busy was saved\./);
    assert.equal(box(ids.work).exec(page.body)?.[1], ' checked');
    assert.equal(box(ids.diary).exec(page.body)?.[1], undefined);
    assert.deepEqual(await countingCalendars(t.ctx.db, [ids.work, ids.diary]), new Set([ids.work]));
    assert.deepEqual((await copied()).sort(), [ids.home, ids.work].sort());
    // Nothing ticked: none counts.
    await ana.post(choicePath(accounts.ana), {});
    assert.deepEqual(await countingCalendars(t.ctx.db, [ids.work, ids.diary]), new Set());
    assert.deepEqual(await copied(), [ids.home]);
  });

  it("refuses another person's account and another account's calendar as unknown, changing nothing", async () => {
    assert.equal((await ana.post(choicePath(accounts.ben), { counting: [] })).statusCode, 404);
    assert.equal((await ana.post(choicePath(accounts.ana), { counting: [ids.home] })).statusCode, 404);
    assert.deepEqual(await countingCalendars(t.ctx.db, [ids.home]), new Set([ids.home]));
    assert.deepEqual(await copied(), [ids.home]);
  });
});
