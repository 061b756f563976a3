/**
 * The sync state of each calendar on the account page, and "Sync now": every state in words
 * (not copied, first sync pending and running, synced, stale, failing with the reason the tools
 * give), the sync run on the owner's request with a notice, and refused — like an unknown
 * calendar — to anyone else and to a form without its CSRF token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TimeWindow } from '../../src/domain/window.ts';
import { AppError } from '../../src/errors.ts';
import { epochMs } from '../../src/lib/clock.ts';
import { itemsOf, listingSync } from '../../src/providers/listingSync.ts';
import type { CalendarProvider, SyncBatch } from '../../src/providers/port.ts';
import { copiesOf } from '../../src/store/calendarCopies.ts';
import { accountsOf } from '../../src/store/connectedAccounts.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const at = (start: string, title: string) =>
  occurrence({ providerEventId: title, start, timeZone: 'Europe/Berlin', title });

/** The words of a calendar's state line on the page, tags removed. */
function stateOf(body: string, name: string): string {
  const line = new RegExp(
    `<li>${name}(?: <span[^>]*>[^<]*</span>)?\\s*<div class="copy-state">(.*?)</div>`,
    's',
  ).exec(body);
  assert.ok(line, `no state line for ${name}`);
  return line[1]!.replace(/<[^>]+>/g, '');
}

const syncButtons = (body: string) => body.match(/>Sync now<\/button>/g)?.length ?? 0;

describe('sync state on the account page', () => {
  let t: TestApp;
  const logLines: string[] = [];
  const calendars = new Map<string, MemoryCalendar>([
    ['work', { name: 'Work', occurrences: [at('2026-03-30T10:00:00', 'Budget review')] }],
    ['team', { name: 'Team', occurrences: [at('2026-03-31T12:00:00', 'Team lunch')] }],
    [
      'slow',
      {
        name: 'Slow',
        occurrences: [at('2026-04-01T09:00:00', 'First'), at('2026-04-02T09:00:00', 'Second')],
      },
    ],
    ['holidays', { name: 'Holidays', occurrences: [] }],
  ]);
  const base = memoryProvider('google', calendars);
  /** The calendars the provider was asked to list, in order. */
  let listings: string[] = [];
  const counted: CalendarProvider<'google'> = {
    ...base,
    listEvents: (account, calendar, window) => {
      listings.push(calendar.providerCalendarId);
      return base.listEvents(account, calendar, window);
    },
  };
  /** Holds the slow calendar's sync between its two batches while set. */
  let gate: Promise<void> | undefined;
  async function* slowSync(horizon: TimeWindow): AsyncGenerator<SyncBatch> {
    const [first, ...rest] = itemsOf(calendars.get('slow')!.occurrences, horizon);
    yield { full: true, upserts: [first!], removals: [], skipped: [] };
    await gate;
    yield { full: true, upserts: rest, removals: [], skipped: [], nextState: 'done' };
  }
  const provider: CalendarProvider<'google'> = {
    ...counted,
    sync: {
      syncCalendar: (account, calendar, request) =>
        calendar.providerCalendarId === 'slow'
          ? slowSync(request.horizon)
          : listingSync(counted).syncCalendar(account, calendar, request),
    },
  };

  let ana: PageClient;
  let workspaceId: string;
  let accountId: string;
  let ids: { work: string; team: string; slow: string; holidays: string };
  const syncPath = (calendarId: string, account = accountId, workspace = workspaceId) =>
    `/account/workspaces/${workspace}/connections/${account}/calendars/${calendarId}/sync`;

  before(async () => {
    // One provider timeout is how long Sync now waits: a second here, so "Sync started" is quick to
    // see, and far more than an in-memory sync takes on a busy machine.
    t = await startTestApp({
      providers: { google: provider },
      env: { PROVIDER_TIMEOUT_MS: '1000', LOG_LEVEL: 'info' },
      logLines,
    });
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    workspaceId = await seedWorkspace(t.ctx.db, 'Home', [[userId, 'owner']]);
    const [work, team, slow, holidays] = await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider);
    ids = { work: work!, team: team!, slow: slow!, holidays: holidays! };
    accountId = (await accountsOf(t.ctx.db, userId))[0]!.id;
    await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars: [
        { calendarId: ids.work, detailLevel: 'full' },
        { calendarId: ids.team, detailLevel: 'titles' },
        { calendarId: ids.slow, detailLevel: 'busy' },
      ],
    });
    ana = new PageClient(t.app);
    await ana.signIn('ana@example.org', testPassword);
  });
  after(() => t?.close());

  it('says a calendar is not copied until a round gives it a copy, and offers no Sync now', async () => {
    const page = await ana.get('/account');
    for (const name of ['Work', 'Team', 'Slow', 'Holidays'])
      assert.equal(stateOf(page.body, name), 'Not copied — no app has access');
    assert.equal(syncButtons(page.body), 0);
  });

  it('shows a granted calendar waiting for its first sync', async () => {
    await reconcileCopies(t.ctx.db, epochMs(t.clock));
    const page = await ana.get('/account');
    for (const name of ['Work', 'Team', 'Slow']) assert.equal(stateOf(page.body, name), 'First sync pending');
    assert.equal(stateOf(page.body, 'Holidays'), 'Not copied — no app has access');
    assert.equal(syncButtons(page.body), 3);
    assert.match(page.body, new RegExp(`action="${syncPath(ids.work)}"`));
    assert.doesNotMatch(page.body, new RegExp(`action="${syncPath(ids.holidays)}"`));
  });

  it('runs Sync now for the owner and redirects with the notice', async () => {
    listings = [];
    const done = await ana.post(syncPath(ids.work), {});
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/account?notice=synced');
    assert.deepEqual(listings, ['work'], 'the provider was asked');
    const page = await ana.get('/account?notice=synced');
    assert.match(page.body, /role="status">The calendar was synced\./);
    assert.equal(stateOf(page.body, 'Work'), 'Synced just now (1 item)');
    assert.match(
      page.body,
      new RegExp(`<time datetime="${t.clock.now().toString().replace('.', '\\.')}" title="`),
    );
    assert.equal(stateOf(page.body, 'Team'), 'First sync pending', 'only the calendar asked for');
  });

  it('answers "Sync started" after a bounded wait and shows a first sync running with its items so far', async () => {
    let release = () => {};
    gate = new Promise((resolve) => {
      release = resolve;
    });
    try {
      const started = await ana.post(syncPath(ids.slow), {});
      assert.equal(started.headers.location, '/account?notice=syncStarted');
      const page = await ana.get('/account?notice=syncStarted');
      assert.match(page.body, /role="status">Sync started; refresh in a moment\./);
      assert.equal(stateOf(page.body, 'Slow'), 'First sync running: 1 item so far');
    } finally {
      release();
      gate = undefined;
    }
    assert.equal(await t.sync.syncNow(ids.slow), 'synced', 'the sync went on and joins here');
    assert.equal(stateOf((await ana.get('/account')).body, 'Slow'), 'Synced just now (2 items)');
  });

  it('tells the time since the last sync by the clock of the service', async () => {
    await t.sync.runDue();
    t.clock.advance({ minutes: 3 });
    const page = await ana.get('/account');
    assert.equal(stateOf(page.body, 'Work'), 'Synced 3 min ago (1 item)');
    assert.equal(stateOf(page.body, 'Team'), 'Synced 3 min ago (1 item)');
  });

  it('shows a failing sync with its reason in the words of the tools, and logs it without content', async () => {
    calendars.get('team')!.failure = new AppError('provider_unavailable', 'slow', {
      details: { reason: 'timeout' },
    });
    try {
      const failed = await ana.post(syncPath(ids.team), {});
      assert.equal(failed.headers.location, '/account?notice=syncFailed');
      const page = await ana.get('/account?notice=syncFailed');
      assert.match(page.body, /role="status">The calendar could not be synced; its line below says why\./);
      assert.equal(
        stateOf(page.body, 'Team'),
        'Sync failing since 3 min ago: the calendar did not answer in time',
      );
      const logged = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'calendar sync failed');
      assert.equal(logged?.calendarId, ids.team);
      assert.equal(logged?.reason, 'timeout');
      assert.ok(!logLines.some((l) => l.includes('Team lunch')), 'no event content in the log');
    } finally {
      delete calendars.get('team')!.failure;
    }
  });

  it('calls a copy stale when its next sync is overdue by more than a read tolerates', async () => {
    t.clock.advance({ minutes: 4 });
    const page = await ana.get('/account');
    assert.equal(stateOf(page.body, 'Work'), 'Stale: synced 7 min ago (1 item), the next sync is overdue');
    assert.match(
      stateOf(page.body, 'Team'),
      /^Sync failing since 7 min ago: /,
      'failing says more than stale',
    );
  });

  it('says so when Sync now is asked for a calendar without a copy', async () => {
    listings = [];
    const answer = await ana.post(syncPath(ids.holidays), {});
    assert.equal(answer.headers.location, '/account?notice=notCopied');
    assert.deepEqual(listings, []);
  });

  it('refuses Sync now without the form’s CSRF token, running nothing', async () => {
    listings = [];
    const forged = await ana.post(syncPath(ids.work), { _csrf: 'forged' });
    assert.equal(forged.statusCode, 403);
    assert.deepEqual(listings, []);
  });

  it("refuses another person's calendar exactly like an unknown one, running nothing", async () => {
    const malloryId = await seedUser(t.ctx.db, 'mallory@example.org');
    const malloryWorkspace = await seedWorkspace(t.ctx.db, 'Mallory', [[malloryId, 'owner']]);
    await seedMemoryAccount(t.ctx, { userId: malloryId, workspaceId: malloryWorkspace }, provider);
    const malloryAccount = (await accountsOf(t.ctx.db, malloryId))[0]!.id;
    const mallory = new PageClient(t.app);
    await mallory.signIn('mallory@example.org', testPassword);
    await mallory.get('/account');
    const before = (await copiesOf(t.ctx.db, [ids.work])).get(ids.work);
    listings = [];

    // Her own account with Ana's calendar, and with a calendar id that does not exist.
    const foreignCalendar = await mallory.post(syncPath(ids.work, malloryAccount, malloryWorkspace), {});
    const unknownCalendar = await mallory.post(syncPath('cal_unknown', malloryAccount, malloryWorkspace), {});
    assert.equal(foreignCalendar.statusCode, 404);
    assert.equal(foreignCalendar.body, unknownCalendar.body);
    // Ana's account, and an account id that does not exist.
    const foreignAccount = await mallory.post(syncPath(ids.work, accountId, workspaceId), {});
    const unknownAccount = await mallory.post(syncPath(ids.work, 'acc_unknown', workspaceId), {});
    assert.equal(foreignAccount.statusCode, 404);
    assert.equal(foreignAccount.body, unknownAccount.body);

    assert.deepEqual(listings, [], 'no sync ran');
    assert.deepEqual((await copiesOf(t.ctx.db, [ids.work])).get(ids.work), before);
  });
});
