/**
 * A read waits for its calendars no longer than its deadline (two provider timeouts): a calendar
 * that never answers is left out as `timeout`, and the others are answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { memoryProvider, occurrence, seedMemoryAccount } from '../helpers/memoryCalendars.ts';
import { getEvents } from '../helpers/restClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

describe('the deadline of one read', () => {
  let t: TestApp;
  let token: string;
  let ids: string[];

  before(async () => {
    const utc = 'Etc/UTC';
    const provider = memoryProvider(
      'google',
      new Map([
        [
          'quick',
          {
            name: 'Quick',
            timeZone: utc,
            occurrences: [occurrence({ start: '2026-03-02T09:00:00', timeZone: utc })],
          },
        ],
        ['stuck', { name: 'Stuck', timeZone: utc, occurrences: [] }],
      ]),
    );
    const listEvents = provider.listEvents.bind(provider);
    // A calendar whose provider never answers and never fails.
    provider.listEvents = (account, calendar, window) =>
      calendar.providerCalendarId === 'stuck' ? new Promise(() => {}) : listEvents(account, calendar, window);
    t = await startTestApp({ env: { PROVIDER_TIMEOUT_MS: '500' }, providers: { google: provider } });
    const userId = await seedUser(t.ctx.db, 'slow@example.test');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Slow', [[userId, 'owner']]);
    ids = await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider);
    const calendars = ids.map((calendarId) => ({ calendarId, detailLevel: 'full' as const }));
    token = (await grantToken(t.ctx, { userId, workspaceId, calendars, resource: 'v1' })).token;
  });
  after(() => t?.close());

  it('answers with the calendars read in time and names the one that was not', {
    timeout: 10_000,
  }, async () => {
    const [quick, stuck] = ids;
    const response = await getEvents(t.app, token, [
      ['calendar_id', `${quick},${stuck}`],
      ['start', '2026-03-01T00:00:00Z'],
      ['end', '2026-03-08T00:00:00Z'],
    ]);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body.data.map((event: { calendarId: string }) => event.calendarId),
      [quick],
    );
    assert.deepEqual(response.body.meta.excluded, [{ calendarId: stuck, reason: 'timeout' }]);
  });
});
