/**
 * The account page's record of app writes: an attempt still pending is shown under way, and, once
 * older than any write can take (its process died in the middle), as interrupted with its
 * outcome unknown — with its calendar where it was known, "not known" where it was not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeUnderWayAtMostMs } from '../../src/calendars/writes/audited.ts';
import { epochMs } from '../../src/lib/clock.ts';
import { recordEventWrite, settleEventWrite } from '../../src/store/eventWrites.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { PageClient } from '../helpers/pageClient.ts';
import { seedCalendars, seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

describe('writes on the account page', () => {
  let t: TestApp;
  let page: PageClient;
  const rows = async () =>
    [
      ...(await page.get('/account')).body.matchAll(
        /<tr><td data-label="When"><time [^>]+>[^<]*<\/time><\/td>([\s\S]*?)<\/tr>/g,
      ),
    ]
      .map((m) =>
        m[1]!
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim(),
      )
      .filter((row) => row.startsWith('planner'));

  before(async () => {
    t = await startTestApp();
    const userId = await seedUser(t.ctx.db, 'ana@example.org');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
    const [calendarId] = await seedCalendars(t.ctx.db, { userId, workspaceId }, [{ name: 'Work' }]);
    const attempt = {
      userId,
      workspaceId,
      grantId: 'g1',
      clientId: 'planner',
      eventId: null,
      occurrenceId: null,
      scope: null,
      outcome: 'pending' as const,
      errorCode: null,
      at: epochMs(t.clock),
    };
    await recordEventWrite(t.ctx.db, { ...attempt, action: 'create', calendarId: calendarId! });
    const split = await recordEventWrite(t.ctx.db, {
      ...attempt,
      action: 'update',
      calendarId: calendarId!,
      eventId: 'evt_2',
      occurrenceId: 'occ_2',
      scope: 'following',
    });
    await settleEventWrite(t.ctx.db, split, {
      calendarId: calendarId!,
      eventId: 'evt_2',
      newEventId: 'evt_3',
      outcome: 'applied',
      errorCode: null,
    });
    await recordEventWrite(t.ctx.db, {
      ...attempt,
      action: 'delete',
      calendarId: null,
      eventId: 'evt_1',
      occurrenceId: 'occ_1',
      scope: 'following',
    });
    page = new PageClient(t.app);
    await page.signIn('ana@example.org', testPassword);
  });
  after(() => t.close());

  it('shows a pending write under way, then interrupted once no write could still be', async () => {
    assert.deepEqual(await rows(), [
      'planner Deleted an event (this and following occurrences) not known Under way',
      'planner Changed an event (this and following occurrences), now a series of their own Work Done',
      'planner Created an event Work Under way',
    ]);
    t.clock.advance({ milliseconds: writeUnderWayAtMostMs(t.ctx.config.providerTimeoutMs) + 1 });
    const stopped = 'Unknown: the service stopped during the change; check the calendar';
    assert.deepEqual(await rows(), [
      `planner Deleted an event (this and following occurrences) not known ${stopped}`,
      'planner Changed an event (this and following occurrences), now a series of their own Work Done',
      `planner Created an event Work ${stopped}`,
    ]);
  });
});
