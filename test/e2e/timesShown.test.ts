/**
 * Every surface gives times in one format: RFC 3339 with the offsets of the zone the request
 * named (else the event's own zone, else Z), all-day events as dates. A Berlin calendar on a
 * real Radicale holding UTC events across the 2026-03-29 DST change, read and written through a
 * real MCP client and REST. Expected values are worked out by hand from the iCalendar below.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Event } from '../../src/domain/event.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { assertValidEvent } from '../helpers/eventSchema.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { structured, type ToolResult } from '../helpers/mcpSession.ts';
import { type RadicaleServer, radicaleMissing, startRadicale } from '../helpers/radicale.ts';
import { connectRadicale, fillRadicale, vcalendar } from '../helpers/radicaleCalendars.ts';
import { getEvents } from '../helpers/restClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const me = 'ana@example.org';
const boss = 'boss@example.org';
const berlin = 'Europe/Berlin';
/** Friday 27 to Monday 30 March 2026 in Berlin; the clocks go forward at 01:00Z on the 29th. */
const window = { start: '2026-03-27T00:00:00+01:00', end: '2026-03-31T00:00:00+02:00' };

const ics = vcalendar(
  [
    'UID:market',
    'DTSTART:20260327T100000Z',
    'DTEND:20260327T103000Z',
    'RRULE:FREQ=DAILY;COUNT=4',
    'SUMMARY:Market open',
  ],
  [
    'UID:holiday',
    'DTSTART;VALUE=DATE:20260328',
    'DTEND;VALUE=DATE:20260329',
    'SUMMARY:Holiday',
    'TRANSP:TRANSPARENT',
  ],
  [
    'UID:review',
    'DTSTART:20260330T080000Z',
    'DTEND:20260330T083000Z',
    'SUMMARY:Design review',
    `ORGANIZER:mailto:${boss}`,
    `ATTENDEE;PARTSTAT=ACCEPTED:mailto:${boss}`,
    `ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:${me}`,
  ],
);

/** `start timeZone title`, in the order the service gives them. */
const lines = (events: Event[]) => events.map((e) => `${e.start} ${e.timeZone ?? '-'} ${e.title}`);

/** The one format: RFC 3339 to the second with an offset or Z; all-day events a date. */
const oneFormat = /^\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d))?$/;

describe('times in one format on every surface', { skip: radicaleMissing() }, () => {
  let radicale: RadicaleServer;
  let t: TestApp;
  let client: Client;
  let calendarId: string;
  let restToken: string;

  const call = async (name: string, args: Record<string, unknown>) =>
    structured((await client.callTool({ name, arguments: args })) as unknown as ToolResult);
  const listed = async (timeZone?: string) => {
    const zone = timeZone === undefined ? {} : { timeZone };
    const termine = (await call('list_events', { calendarIds: [calendarId], ...window, ...zone }))
      .termine as Event[];
    for (const event of termine) assertValidEvent(event);
    return termine;
  };
  const rest = async (timeZone?: string) => {
    const zone: Array<[string, string]> = timeZone === undefined ? [] : [['time_zone', timeZone]];
    const response = await getEvents(t.app, restToken, [
      ['calendar_id', calendarId],
      ['start', window.start],
      ['end', window.end],
      ...zone,
    ]);
    assert.equal(response.status, 200, response.text);
    return response.body.data as Event[];
  };

  before(async () => {
    radicale = await startRadicale({ users: { [me]: 'ana-password' } });
    await fillRadicale(radicale, [{ slug: 'work', displayName: 'Work', timeZone: berlin, contents: [ics] }]);
    t = await startTestApp({
      listen: true,
      adapters: { sleep: async () => {} },
      // Thursday before the window: meeting slots on Monday lie ahead.
      clock: new TestClock('2026-03-26T09:00:00Z'),
    });
    const userId = await seedUser(t.ctx.db, me);
    const workspaceId = await seedWorkspace(t.ctx.db, 'Home', [[userId, 'owner']]);
    await savePolicy(
      t.ctx.db,
      workspaceId,
      { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write', 'calendar:rsvp'] },
      0,
    );
    calendarId = (await connectRadicale(t.ctx, { userId, workspaceId }, radicale)).get('Work')!;
    const calendars = [{ calendarId, detailLevel: 'full' as const }];
    const { token } = await grantToken(t.ctx, {
      userId,
      workspaceId,
      calendars,
      scopes: ['calendar:read', 'calendar:write', 'calendar:rsvp'],
    });
    restToken = (await grantToken(t.ctx, { userId, workspaceId, calendars, resource: 'v1' })).token;
    client = new Client({ name: 'times-e2e', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.ctx.config.baseUrl}/mcp`), {
        authProvider: { token: async () => token },
      }),
    );
  });

  after(async () => {
    await client?.close();
    await t?.close();
    await radicale?.stop();
  });

  it('gives UTC events with the offsets of the zone asked for, across its DST change', async () => {
    const inBerlin = [
      '2026-03-27T11:00:00+01:00 Etc/UTC Market open',
      '2026-03-28 - Holiday',
      '2026-03-28T11:00:00+01:00 Etc/UTC Market open',
      '2026-03-29T12:00:00+02:00 Etc/UTC Market open',
      '2026-03-30T10:00:00+02:00 Etc/UTC Design review',
      '2026-03-30T12:00:00+02:00 Etc/UTC Market open',
    ];
    assert.deepEqual(lines(await listed(berlin)), inBerlin, 'list_events');
    const found = await call('search_events', {
      calendarIds: [calendarId],
      query: 'market',
      ...window,
      timeZone: berlin,
    });
    assert.deepEqual(
      lines(found.termine as Event[]),
      inBerlin.filter((line) => line.endsWith('Market open')),
      'search_events',
    );
    assert.deepEqual(lines(await rest(berlin)), inBerlin, 'GET /v1/events with time_zone');
  });

  it("gives the same events with their own zone's offset when no zone is asked for", async () => {
    const own = [
      '2026-03-27T10:00:00+00:00 Etc/UTC Market open',
      '2026-03-28 - Holiday',
      '2026-03-28T10:00:00+00:00 Etc/UTC Market open',
      '2026-03-29T10:00:00+00:00 Etc/UTC Market open',
      '2026-03-30T08:00:00+00:00 Etc/UTC Design review',
      '2026-03-30T10:00:00+00:00 Etc/UTC Market open',
    ];
    assert.deepEqual(lines(await listed()), own, 'list_events');
    assert.deepEqual(lines(await rest()), own, 'GET /v1/events');
  });

  it('gives busy time, meeting slots and now in the same format', async () => {
    const busy = await call('get_availability', { calendarIds: [calendarId], ...window, timeZone: berlin });
    assert.deepEqual(busy.busy, [
      { start: '2026-03-27T11:00:00+01:00', end: '2026-03-27T11:30:00+01:00' },
      { start: '2026-03-28T11:00:00+01:00', end: '2026-03-28T11:30:00+01:00' },
      { start: '2026-03-29T12:00:00+02:00', end: '2026-03-29T12:30:00+02:00' },
      { start: '2026-03-30T10:00:00+02:00', end: '2026-03-30T10:30:00+02:00' },
      { start: '2026-03-30T12:00:00+02:00', end: '2026-03-30T12:30:00+02:00' },
    ]);
    const events = await listed(berlin);
    assert.deepEqual(
      (busy.busy as Array<{ start: string }>).map((b) => b.start),
      events.filter((e) => !e.showWithoutTime).map((e) => e.start),
      'a busy interval starts exactly as its event',
    );
    const utc = await call('get_availability', { calendarIds: [calendarId], ...window });
    assert.deepEqual((utc.busy as Array<{ start: string }>)[2], {
      start: '2026-03-29T10:00:00Z',
      end: '2026-03-29T10:30:00Z',
    });

    const slots = await call('find_meeting_times', {
      calendarIds: [calendarId],
      start: '2026-03-30T00:00:00+02:00',
      end: '2026-03-31T00:00:00+02:00',
      timeZone: berlin,
      durationMinutes: 30,
      stepMinutes: 30,
      workingHours: [{ days: ['monday'], start: '09:30', end: '13:00' }],
    });
    assert.deepEqual(
      (slots.slots as Array<{ start: string; end: string }>).map((s) => `${s.start} ${s.end}`),
      [
        '2026-03-30T09:30:00+02:00 2026-03-30T10:00:00+02:00',
        '2026-03-30T10:30:00+02:00 2026-03-30T11:00:00+02:00',
        '2026-03-30T11:00:00+02:00 2026-03-30T11:30:00+02:00',
        '2026-03-30T11:30:00+02:00 2026-03-30T12:00:00+02:00',
        '2026-03-30T12:30:00+02:00 2026-03-30T13:00:00+02:00',
      ],
    );

    const now = await call('get_current_time', {});
    assert.deepEqual(now, {
      ok: true,
      now: '2026-03-26T10:00:00+01:00',
      timeZone: berlin,
      weekday: 'Thursday',
    });
  });

  it('answers writes in the same format, and takes seen.start read in any zone', async () => {
    const created = (
      await call('create_event', {
        calendarId,
        title: 'Dinner',
        start: '2026-03-27T18:00:00Z',
        end: '2026-03-27T19:00:00Z',
      })
    ).event as Event;
    assert.deepEqual(
      [created.start, created.timeZone],
      ['2026-03-27T19:00:00+01:00', berlin],
      'create_event',
    );

    const read = (await listed('America/New_York')).find((e) => e.title === 'Dinner')!;
    assert.equal(read.start, '2026-03-27T14:00:00-04:00', 'New York is already on summer time');
    const updated = (
      await call('update_event', {
        eventId: read.eventId,
        seen: { title: read.title, start: read.start },
        title: 'Late dinner',
      })
    ).event as Event;
    assert.deepEqual(
      [updated.title, updated.start],
      ['Late dinner', '2026-03-27T19:00:00+01:00'],
      'update_event',
    );
    // Moved with the offsets it was read in, no timeZone: the event stays in its calendar's zone.
    const moved = (
      await call('update_event', {
        eventId: read.eventId,
        seen: { start: read.start, duration: 'PT1H' },
        start: '2026-03-27T15:00:00-04:00',
        end: '2026-03-27T16:00:00-04:00',
      })
    ).event as Event;
    assert.deepEqual([moved.start, moved.timeZone], ['2026-03-27T20:00:00+01:00', berlin], 'moved');

    const review = (await listed(berlin)).find((e) => e.title === 'Design review')!;
    const answered = (await call('respond_to_event', { eventId: review.eventId, response: 'accepted' }))
      .event as Event;
    assert.deepEqual(
      [answered.responseStatus, answered.start],
      ['accepted', '2026-03-30T08:00:00+00:00'],
      'respond_to_event: in its own zone',
    );
    for (const start of [created.start, updated.start, moved.start, answered.start, read.start])
      assert.match(start, oneFormat);
  });
});
