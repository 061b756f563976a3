/**
 * Change notifications coalesced: a burst of them for one calendar syncs it now and once more
 * after (one pending sync per calendar), not once per notification — with the real Google
 * adapter against the fake, the app listening where the fake delivers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { occurrencesNear } from '../../src/store/calendarCopies.ts';
import { FakeGoogle } from '../fakes/google.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const me = 'ana@example.com';
const berlin = 'Europe/Berlin';

describe('push: a burst of notifications', () => {
  const clock = new TestClock('2026-10-20T08:00:00Z');
  let google: FakeGoogle;
  let t: TestApp;
  let calendarId: string;

  before(async () => {
    google = await FakeGoogle.start({
      clock,
      user: { email: me },
      calendars: [
        {
          id: me,
          summary: 'Team',
          timeZone: berlin,
          accessRole: 'owner',
          primary: true,
          events: [
            {
              id: 'standup',
              summary: 'Standup',
              start: { dateTime: '2026-10-21T09:00:00', timeZone: berlin },
              end: { dateTime: '2026-10-21T09:15:00', timeZone: berlin },
            },
          ],
        },
      ],
    });
    const http = new ProviderHttp({ baseDelayMs: 1, sleep: async () => {} });
    t = await startTestApp({
      listen: true,
      push: true,
      clock,
      providers: { google: createGoogleProvider({ http, config: google.config(), clock }) },
    });
    const userId = await seedUser(t.ctx.db, me);
    const workspaceId = await seedWorkspace(t.ctx.db, 'Team', [[userId, 'owner']]);
    const credentials = { kind: 'google' as const, ...google.oauth.issue() };
    const { calendars } = await addConnection(t.ctx, { userId, workspaceId }, credentials, 'Google');
    calendarId = calendars.find((c) => c.name === 'Team')!.id;
    await grantToken(t.ctx, { userId, workspaceId, calendars: [{ calendarId, detailLevel: 'full' }] });
  });
  after(async () => {
    await t?.close();
    await google?.close();
  });

  it('syncs the calendar at most twice for 200 notifications, and shows the change', async () => {
    await t.sync.runDue();
    await google.settled();
    const [open] = google.channels.open();
    const { token } = google.requests.find((r) => r.url.endsWith('/events/watch'))!.body as { token: string };
    google.counts.reset();
    google.calendars.changeEvent(me, 'standup', { summary: 'Standup (moved)' });
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        t.app.inject({
          method: 'POST',
          url: '/hooks/google',
          headers: {
            'x-goog-channel-id': open!.id,
            'x-goog-channel-token': token,
            'x-goog-resource-state': 'exists',
          },
        }),
      ),
    );
    assert.ok(answers.every((answer) => answer.statusCode === 200));
    await google.settled(); // the fake's own notification of the change, too
    await t.sync.idle();
    const syncs = google.counts.count({ kind: 'events.list' });
    assert.ok(syncs >= 1 && syncs <= 2, `${syncs} syncs for 201 notifications`);
    const now = clock.now().epochMilliseconds;
    const held = await occurrencesNear(
      t.ctx.db,
      calendarId,
      { startMs: now - 86_400_000, endMs: now + 7 * 86_400_000 },
      0,
    );
    assert.deepEqual(
      held.map((o) => o.title),
      ['Standup (moved)'],
    );
  });
});
