/** The Google adapter over HTTP against the fake Google: mapping, paging, time, tokens, faults. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProviderCalendar, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { TimeWindow } from '../../src/domain/window.ts';
import { AppError } from '../../src/errors.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import { seriesExceptionsOf } from '../../src/providers/google/seriesExceptions.ts';
import type { AccountAccess, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { type FakeCalendarSeed, FakeGoogle } from '../fakes/google.ts';
import { TestClock } from '../helpers/clock.ts';
import { TestDeadline } from '../helpers/deadline.ts';
import { assertOccurrenceShape } from '../helpers/occurrenceShape.ts';

const ny = 'America/New_York';
const self = { email: 'person@example.com', self: true };

const primary: FakeCalendarSeed = {
  id: 'person@example.com',
  summary: 'person@example.com',
  timeZone: ny,
  accessRole: 'owner',
  primary: true,
  backgroundColor: '#9fe1e7',
  defaultReminders: [{ method: 'popup', minutes: 10 }],
  events: [
    {
      id: 'standup',
      etag: '"3181161784712000"',
      summary: 'Standup',
      description: 'Daily standup',
      location: 'Room 1',
      htmlLink: 'https://www.google.com/calendar/event?eid=c3RhbmR1cA',
      start: { dateTime: '2026-10-21T09:00:00-04:00', timeZone: ny },
      end: { dateTime: '2026-10-21T09:30:00-04:00', timeZone: ny },
      attendees: [
        { ...self, organizer: true, responseStatus: 'accepted' },
        { email: 'bob@example.com', responseStatus: 'needsAction' },
      ],
      hangoutLink: 'https://meet.google.com/abc-defg-hij',
      conferenceData: {
        conferenceId: 'abc-defg-hij',
        conferenceSolution: { name: 'Google Meet', key: { type: 'hangoutsMeet' } },
        entryPoints: [
          {
            entryPointType: 'video',
            uri: 'https://meet.google.com/abc-defg-hij',
            label: 'meet.google.com/abc-defg-hij',
          },
          { entryPointType: 'phone', uri: 'tel:+1-555-0100', label: '+1 555-0100' },
          { entryPointType: 'more', uri: 'https://tel.meet/abc-defg-hij' },
        ],
      },
      attachments: [
        { fileUrl: 'https://drive.google.com/open?id=agenda', title: 'Agenda', mimeType: 'text/plain' },
      ],
      reminders: {
        useDefault: false,
        overrides: [
          { method: 'popup', minutes: 15 },
          { method: 'email', minutes: 60 },
        ],
      },
      extendedProperties: { private: { ignored: 'yes' } },
      colorId: '5',
    },
    {
      id: 'before-window',
      summary: 'Before the window',
      start: { dateTime: '2026-10-18T18:00:00-04:00', timeZone: ny },
      end: { dateTime: '2026-10-18T19:00:00-04:00', timeZone: ny },
    },
    { id: 'sunday-off', summary: 'Sunday off', start: { date: '2026-10-18' }, end: { date: '2026-10-19' } },
    {
      id: 'review',
      summary: 'Design review',
      // No zone on the event: the calendar's zone places it.
      start: { dateTime: '2026-10-22T15:00:00+02:00' },
      end: { dateTime: '2026-10-22T16:00:00+02:00' },
      organizer: { email: 'alice@example.com', displayName: 'Alice' },
      attendees: [
        { email: 'alice@example.com', organizer: true, responseStatus: 'accepted' },
        { ...self, responseStatus: 'tentative' },
      ],
    },
    {
      id: 'office',
      summary: 'Office',
      eventType: 'workingLocation',
      start: { date: '2026-10-22' },
      end: { date: '2026-10-23' },
      transparency: 'transparent',
      visibility: 'public',
      workingLocationProperties: { type: 'officeLocation', officeLocation: { label: 'Berlin HQ' } },
    },
    {
      id: 'doctor',
      summary: 'Doctor',
      start: { dateTime: '2026-10-23T14:00:00-04:00', timeZone: ny },
      end: { dateTime: '2026-10-23T15:00:00-04:00', timeZone: ny },
      visibility: 'private',
      transparency: 'transparent',
    },
    {
      id: 'birthday',
      summary: "Carol's birthday",
      eventType: 'birthday',
      start: { date: '2026-10-24' },
      end: { date: '2026-10-25' },
      visibility: 'confidential',
    },
    {
      id: 'berlin-night',
      summary: 'Berlin night shift',
      start: { dateTime: '2026-10-25T01:00:00+02:00', timeZone: 'Europe/Berlin' },
      end: { dateTime: '2026-10-25T04:00:00+01:00', timeZone: 'Europe/Berlin' },
      visibility: 'default',
    },
    { id: 'trip', summary: 'Trip', start: { date: '2026-10-30' }, end: { date: '2026-11-02' } },
    {
      id: 'retreat',
      summary: 'Retreat',
      start: { dateTime: '2026-10-31T09:00:00-04:00', timeZone: ny },
      end: { dateTime: '2026-11-01T09:00:00-05:00', timeZone: ny },
    },
    {
      id: 'late-night',
      summary: 'Late night',
      start: { dateTime: '2026-11-01T00:30:00-04:00', timeZone: ny },
      end: { dateTime: '2026-11-01T03:30:00-05:00', timeZone: ny },
    },
    {
      id: 'weekly',
      summary: 'Weekly sync',
      start: { dateTime: '2026-10-19T10:00:00-04:00', timeZone: ny },
      end: { dateTime: '2026-10-19T10:45:00-04:00', timeZone: ny },
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    },
    {
      id: 'weekly_20261026T140000Z',
      recurringEventId: 'weekly',
      originalStartTime: { dateTime: '2026-10-26T10:00:00-04:00', timeZone: ny },
      summary: 'Weekly sync (moved)',
      start: { dateTime: '2026-10-26T11:00:00-04:00', timeZone: ny },
      end: { dateTime: '2026-10-26T11:45:00-04:00', timeZone: ny },
    },
    {
      id: 'weekly_20261109T150000Z',
      recurringEventId: 'weekly',
      originalStartTime: { dateTime: '2026-11-09T10:00:00-05:00', timeZone: ny },
      status: 'cancelled',
    },
    {
      id: 'gone',
      summary: 'Deleted later',
      start: { dateTime: '2026-10-28T10:00:00-04:00', timeZone: ny },
      end: { dateTime: '2026-10-28T11:00:00-04:00', timeZone: ny },
    },
  ],
};

const seed: FakeCalendarSeed[] = [
  primary,
  {
    id: 'team@group.calendar.google.com',
    summary: 'Team',
    summaryOverride: 'My team',
    timeZone: 'Europe/Berlin',
    accessRole: 'reader',
    backgroundColor: '#f83a22',
    events: [
      {
        id: 'team-private',
        summary: 'Reorganisation',
        description: 'Confidential plans',
        visibility: 'private',
        start: { dateTime: '2026-10-21T10:00:00+02:00', timeZone: 'Europe/Berlin' },
        end: { dateTime: '2026-10-21T11:00:00+02:00', timeZone: 'Europe/Berlin' },
      },
    ],
  },
  {
    id: 'boss@example.com',
    summary: 'Boss',
    timeZone: 'America/Chicago',
    accessRole: 'freeBusyReader',
    events: [
      {
        id: 'boss-1',
        summary: 'Secret meeting',
        attendees: [{ email: 'ceo@example.com' }],
        start: { dateTime: '2026-10-21T10:00:00-05:00' },
        end: { dateTime: '2026-10-21T11:00:00-05:00' },
      },
      {
        id: 'boss-2',
        summary: 'Lunch (free)',
        transparency: 'transparent',
        start: { dateTime: '2026-10-21T12:00:00-05:00' },
        end: { dateTime: '2026-10-21T13:00:00-05:00' },
      },
    ],
  },
  {
    id: 'writer@group.calendar.google.com',
    summary: 'Shared',
    timeZone: 'UTC',
    accessRole: 'writer',
    events: [
      {
        id: 'utc',
        summary: 'In UTC',
        start: { dateTime: '2026-10-21T10:00:00Z' },
        end: { dateTime: '2026-10-21T10:00:00Z' },
      },
      {
        id: 'bad-zone',
        summary: 'Somewhere',
        start: { dateTime: '2026-10-21T10:00:00Z', timeZone: 'Mars/Olympus_Mons' },
        end: { dateTime: '2026-10-21T11:00:00Z', timeZone: 'Mars/Olympus_Mons' },
      },
    ],
  },
];

// Shared with the person and kept in their list, but unticked (not shown in their view): listed.
seed.push({
  id: 'unticked@group.calendar.google.com',
  summary: 'Unticked',
  timeZone: 'UTC',
  accessRole: 'reader',
  selected: false,
});
// Hidden from their list ("Hide from list"): Google leaves it out of calendarList, and so do we.
seed.push({
  id: 'hidden@group.calendar.google.com',
  summary: 'Hidden',
  timeZone: 'UTC',
  accessRole: 'writer',
  hidden: true,
});

const window: TimeWindow = {
  start: Temporal.Instant.from('2026-10-19T00:00:00Z'),
  end: Temporal.Instant.from('2026-11-16T00:00:00Z'),
};

type GoogleAccount = AccountAccess<CredentialsOf<'google'>> & { saved: CredentialsOf<'google'>[] };

describe('Google Calendar adapter', () => {
  const clock = new TestClock('2026-10-20T12:00:00Z');
  const waits: number[] = [];
  const http = new ProviderHttp({
    baseDelayMs: 1,
    sleep: async (ms) => void waits.push(ms),
  });
  let google: FakeGoogle;
  let provider: ReturnType<typeof createGoogleProvider>;
  let calendars: ProviderCalendar[];

  const connected = (tokens = google.oauth.issue()): GoogleAccount => {
    const saved: CredentialsOf<'google'>[] = [];
    return {
      accountKey: 'acc_google',
      credentials: { kind: 'google', ...tokens },
      saveCredentials: async (credentials) => void saved.push(credentials),
      saved,
    };
  };
  const calendar = (id: string) => calendars.find((c) => c.providerCalendarId === id)!;
  const byTitle = (occurrences: ProviderOccurrence[], title: string) =>
    occurrences.filter((o) => o.title === title);
  const rejects = (promise: Promise<unknown>, code: string, details: Record<string, unknown> = {}) =>
    assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.code, code);
      for (const [key, value] of Object.entries(details)) assert.equal(error.details?.[key], value, key);
      return true;
    });
  const apiCalls = (from: number) =>
    google.requests.slice(from).filter((r) => r.url.startsWith('/calendar/v3/'));

  before(async () => {
    google = await FakeGoogle.start({ clock, calendars: seed });
    provider = createGoogleProvider({ http, config: google.config(), clock });
    calendars = await provider.listCalendars(connected());
    google.calendars.deleteEvent(primary.id, 'gone');
  });
  after(() => google.close());

  it('maps the calendar list', () => {
    assert.deepEqual(calendars, [
      {
        providerCalendarId: 'person@example.com',
        name: 'person@example.com',
        timeZone: ny,
        color: '#9fe1e7',
        primary: true,
        access: 'owner',
      },
      {
        providerCalendarId: 'team@group.calendar.google.com',
        name: 'My team',
        timeZone: 'Europe/Berlin',
        color: '#f83a22',
        primary: false,
        access: 'reader',
      },
      {
        providerCalendarId: 'boss@example.com',
        name: 'Boss',
        timeZone: 'America/Chicago',
        primary: false,
        access: 'freeBusy',
      },
      {
        providerCalendarId: 'writer@group.calendar.google.com',
        name: 'Shared',
        timeZone: 'Etc/UTC',
        primary: false,
        access: 'writer',
      },
      {
        providerCalendarId: 'unticked@group.calendar.google.com',
        name: 'Unticked',
        timeZone: 'Etc/UTC',
        primary: false,
        access: 'reader',
      },
    ]);
  });

  it('maps a conference event with attendees, links and reminders field by field', async () => {
    const { occurrences, skipped } = await provider.listEvents(connected(), calendar(primary.id), window);
    assert.deepEqual(skipped, []);
    assert.deepEqual(byTitle(occurrences, 'Standup'), [
      {
        providerEventId: 'standup',
        start: '2026-10-21T09:00:00',
        timeZone: ny,
        duration: 'PT30M',
        showWithoutTime: false,
        status: 'confirmed',
        title: 'Standup',
        description: 'Daily standup',
        locations: [{ name: 'Room 1' }],
        virtualLocations: [
          { uri: 'https://meet.google.com/abc-defg-hij', name: 'meet.google.com/abc-defg-hij' },
          { uri: 'tel:+1-555-0100', name: '+1 555-0100' },
        ],
        links: [
          { href: 'https://www.google.com/calendar/event?eid=c3RhbmR1cA', rel: 'alternate' },
          { href: 'https://drive.google.com/open?id=agenda', title: 'Agenda' },
        ],
        freeBusyStatus: 'busy',
        alerts: [
          { offset: '-PT15M', action: 'display' },
          { offset: '-PT1H', action: 'email' },
        ],
        organizer: { email: primary.id, name: primary.summary, self: true },
        attendees: [
          { email: primary.id, optional: false, response: 'accepted', self: true },
          { email: 'bob@example.com', optional: false, response: 'needs-action', self: false },
        ],
        facts: {
          recurring: false,
          organizer: 'self',
          attendees: true,
          conference: true,
          managedCopy: false,
          version: '"3181161784712000"',
          userIsAttendee: false,
        },
      },
    ]);
    for (const occurrence of occurrences) assertOccurrenceShape(occurrence);
  });

  it('maps invitations, privacy, free time, working locations and managed copies', async () => {
    const { occurrences } = await provider.listEvents(connected(), calendar(primary.id), window);
    const [review] = byTitle(occurrences, 'Design review');
    assert.equal(review?.start, '2026-10-22T09:00:00');
    assert.equal(review?.timeZone, ny);
    assert.equal(review?.responseStatus, 'tentative');
    assert.deepEqual(review?.facts, {
      recurring: false,
      organizer: 'other',
      attendees: true,
      conference: false,
      managedCopy: false,
      version: review?.facts.version,
      userIsAttendee: true,
    });
    assert.match(review?.facts.version ?? '', /^"\d+"$/);
    assert.deepEqual(
      [review?.organizer, review?.attendees],
      [
        { email: 'alice@example.com', name: 'Alice', self: false },
        [
          { email: 'alice@example.com', optional: false, response: 'accepted', self: false },
          { email: primary.id, optional: false, response: 'tentative', self: true },
        ],
      ],
    );
    assert.deepEqual(review?.alerts, [{ offset: '-PT10M', action: 'display' }], 'calendar default reminders');

    const [doctor] = byTitle(occurrences, 'Doctor');
    assert.equal(doctor?.privacy, 'private');
    assert.equal(doctor?.freeBusyStatus, 'free');

    const [office] = byTitle(occurrences, 'Office');
    assert.deepEqual(
      { ...office, facts: undefined, links: undefined, organizer: undefined },
      {
        providerEventId: 'office',
        start: '2026-10-22T00:00:00',
        duration: 'P1D',
        showWithoutTime: true,
        status: 'confirmed',
        title: 'Office',
        freeBusyStatus: 'free',
        privacy: 'public',
        workingLocation: { type: 'office', label: 'Berlin HQ' },
        facts: undefined,
        links: undefined,
        organizer: undefined,
      },
    );

    const [birthday] = byTitle(occurrences, "Carol's birthday");
    assert.equal(birthday?.facts.managedCopy, true);
    assert.equal(birthday?.privacy, 'secret');
    assert.equal(birthday?.alerts, undefined, 'no timed defaults on all-day events');
    assert.equal(byTitle(occurrences, 'Berlin night shift')[0]?.privacy, undefined, 'visibility default');
  });

  it('keeps the window exactly for timed events and all-day ones within a day of it', async () => {
    const { occurrences } = await provider.listEvents(connected(), calendar(primary.id), window);
    assert.deepEqual(
      occurrences.map((o) => `${o.start} ${o.title}`),
      [
        '2026-10-18T00:00:00 Sunday off',
        '2026-10-19T10:00:00 Weekly sync',
        '2026-10-21T09:00:00 Standup',
        '2026-10-22T00:00:00 Office',
        '2026-10-22T09:00:00 Design review',
        '2026-10-23T14:00:00 Doctor',
        "2026-10-24T00:00:00 Carol's birthday",
        '2026-10-25T01:00:00 Berlin night shift',
        '2026-10-26T11:00:00 Weekly sync (moved)',
        '2026-10-30T00:00:00 Trip',
        '2026-10-31T09:00:00 Retreat',
        '2026-11-01T00:30:00 Late night',
        '2026-11-02T10:00:00 Weekly sync',
      ],
    );
  });

  it('gives all-day and DST-crossing events local starts and nominal durations', async () => {
    const { occurrences } = await provider.listEvents(connected(), calendar(primary.id), window);
    const pick = (title: string) => {
      const o = byTitle(occurrences, title)[0]!;
      return [o.start, o.timeZone, o.duration, o.showWithoutTime];
    };
    assert.deepEqual(pick('Trip'), ['2026-10-30T00:00:00', undefined, 'P3D', true]);
    // 00:30 EDT to 03:30 EST is four elapsed hours.
    assert.deepEqual(pick('Late night'), ['2026-11-01T00:30:00', ny, 'PT4H', false]);
    // 09:00 to 09:00 the next day is one day on the calendar, though 25 hours pass.
    assert.deepEqual(pick('Retreat'), ['2026-10-31T09:00:00', ny, 'P1D', false]);
    assert.deepEqual(pick('Berlin night shift'), ['2026-10-25T01:00:00', 'Europe/Berlin', 'PT4H', false]);
  });

  it('reports instances of a series under the series id with their original starts', async () => {
    const { occurrences } = await provider.listEvents(connected(), calendar(primary.id), window);
    const series = occurrences.filter((o) => o.providerEventId === 'weekly');
    assert.deepEqual(
      series.map((o) => [o.recurrenceId, o.start, o.timeZone, o.duration, o.title, o.facts.recurring]),
      [
        ['2026-10-19T14:00:00Z', '2026-10-19T10:00:00', ny, 'PT45M', 'Weekly sync', true],
        ['2026-10-26T14:00:00Z', '2026-10-26T11:00:00', ny, 'PT45M', 'Weekly sync (moved)', true],
        // After the change to EST the wall-clock time stays; the instant moves.
        ['2026-11-02T15:00:00Z', '2026-11-02T10:00:00', ny, 'PT45M', 'Weekly sync', true],
      ],
    );
  });

  it('pages through calendar lists and events', async () => {
    const paged = await FakeGoogle.start({ clock, calendars: seed, maxPageSize: 2 });
    try {
      const pagedProvider = createGoogleProvider({ http, config: paged.config(), clock });
      const account = { ...connected(), credentials: { kind: 'google' as const, ...paged.oauth.issue() } };
      assert.deepEqual(await pagedProvider.listCalendars(account), calendars);
      const expected = await provider.listEvents(connected(), calendar(primary.id), window);
      const from = paged.requests.length;
      const result = await pagedProvider.listEvents(account, calendar(primary.id), window);
      assert.deepEqual(
        result.occurrences.length,
        expected.occurrences.length + 1,
        'the deleted event is still there',
      );
      const tokens = paged.requests.slice(from).filter((r) => r.url.includes('pageToken='));
      assert.ok(tokens.length >= 6, `followed ${tokens.length} page tokens`);
      const first = new URL(paged.requests[from]!.url, paged.url).searchParams;
      assert.deepEqual(Object.fromEntries(first), {
        singleEvents: 'true',
        orderBy: 'startTime',
        showDeleted: 'false',
        maxResults: '2500',
        timeMin: '2026-10-18T00:00:00Z',
        timeMax: '2026-11-17T00:00:00Z',
      });
    } finally {
      await paged.close();
    }
  });

  it('restarts a listing whose page position Google forgot (410)', async () => {
    const paged = await FakeGoogle.start({ clock, calendars: seed, maxPageSize: 3 });
    try {
      const pagedProvider = createGoogleProvider({ http, config: paged.config(), clock });
      const account = { ...connected(), credentials: { kind: 'google' as const, ...paged.oauth.issue() } };
      paged.inject({ status: 410, match: /pageToken=/ });
      const result = await pagedProvider.listEvents(account, calendar(primary.id), window);
      assert.equal(result.occurrences.length, 14);
      assert.equal(paged.requests.filter((r) => r.status === 410).length, 1);
      assert.equal(
        paged.requests.filter((r) => r.url.includes('/events?') && !r.url.includes('pageToken')).length,
        2,
      );
    } finally {
      await paged.close();
    }
  });

  it('shows free/busy calendars as bare busy blocks and hides private events from readers', async () => {
    const boss = await provider.listEvents(connected(), calendar('boss@example.com'), window);
    assert.deepEqual(boss, {
      skipped: [],
      occurrences: [
        {
          providerEventId: 'boss-1',
          start: '2026-10-21T10:00:00',
          timeZone: 'America/Chicago',
          duration: 'PT1H',
          showWithoutTime: false,
          status: 'confirmed',
          freeBusyStatus: 'busy',
          facts: {
            recurring: false,
            organizer: 'unknown',
            attendees: false,
            conference: false,
            managedCopy: false,
            userIsAttendee: false,
          },
        },
      ],
    });
    const team = await provider.listEvents(connected(), calendar('team@group.calendar.google.com'), window);
    assert.equal(team.occurrences.length, 1);
    const [hidden] = team.occurrences;
    assert.equal(hidden?.title, undefined);
    assert.equal(hidden?.description, undefined);
    assert.equal(hidden?.privacy, 'private');
    assert.equal(hidden?.start, '2026-10-21T10:00:00');
    assertOccurrenceShape(hidden!);
  });

  it('reports events it cannot place as skipped, and spells UTC as Etc/UTC', async () => {
    const shared = await provider.listEvents(
      connected(),
      calendar('writer@group.calendar.google.com'),
      window,
    );
    assert.deepEqual(
      shared.occurrences.map((o) => [o.title, o.start, o.timeZone, o.duration]),
      [['In UTC', '2026-10-21T10:00:00', 'Etc/UTC', 'PT0S']],
    );
    assert.equal(shared.skipped.length, 1);
    assert.equal(shared.skipped[0]?.providerEventId, 'bad-zone');
    assert.match(shared.skipped[0]?.reason ?? '', /^unreadable time: /);
  });

  it('reads single events, instances and series afresh', async () => {
    const account = connected();
    const primaryCalendar = calendar(primary.id);
    const listed = (await provider.listEvents(account, primaryCalendar, window)).occurrences;
    assert.deepEqual(
      await provider.getEvent(account, primaryCalendar, 'standup'),
      byTitle(listed, 'Standup')[0],
    );
    assert.deepEqual(
      await provider.getEvent(account, primaryCalendar, 'review'),
      byTitle(listed, 'Design review')[0],
      'default reminders fetched for events.get',
    );
    assert.deepEqual(
      await provider.getEvent(account, primaryCalendar, 'weekly', '2026-10-26T14:00:00Z'),
      byTitle(listed, 'Weekly sync (moved)')[0],
    );
    const first = await provider.getEvent(account, primaryCalendar, 'weekly');
    assert.equal(first?.recurrenceId, '2026-10-19T14:00:00Z');
    assert.equal(
      await provider.getEvent(account, primaryCalendar, 'weekly', '2026-11-09T15:00:00Z'),
      undefined,
    );
    assert.equal(await provider.getEvent(account, primaryCalendar, 'no-such-event'), undefined);
    assert.equal(await provider.getEvent(account, primaryCalendar, 'gone'), undefined, '410 deleted');
  });

  it('answers not_found for a calendar that is gone', async () => {
    const missing = { ...calendar(primary.id), providerCalendarId: 'missing@example.com' };
    await rejects(provider.listEvents(connected(), missing, window), 'not_found', { status: 404 });
    assert.equal(await provider.getEvent(connected(), missing, 'standup'), undefined);
  });

  it('refreshes an expired access token first and saves the new one', async () => {
    const account = connected();
    clock.advance({ hours: 2 });
    const from = google.requests.length;
    await provider.listCalendars(account);
    assert.deepEqual(
      google.requests.slice(from).map((r) => `${r.method} ${r.url.split('?')[0]} ${r.status}`),
      ['POST /token 200', 'GET /calendar/v3/users/me/calendarList 200'],
    );
    assert.equal(account.saved.length, 1);
    const [saved] = account.saved;
    assert.equal(saved?.kind, 'google');
    assert.equal(saved?.refreshToken, account.credentials.refreshToken);
    assert.notEqual(saved?.accessToken, account.credentials.accessToken);
    assert.equal(saved?.expiresAt, clock.now().epochMilliseconds + 3_600_000);
  });

  it('shares one refresh among concurrent reads of an account', async () => {
    const account = connected();
    clock.advance({ hours: 2 });
    const from = google.requests.length;
    await Promise.all(calendars.map((c) => provider.listEvents(account, c, window)));
    assert.equal(google.requests.slice(from).filter((r) => r.url === '/token').length, 1);
    assert.equal(account.saved.length, 1);
  });

  it('refreshes once after a 401 and retries the read', async () => {
    const account = connected();
    google.oauth.expireAccessTokens();
    const result = await provider.listEvents(account, calendar(primary.id), window);
    assert.equal(result.occurrences.length, 13);
    assert.equal(account.saved.length, 1);
  });

  it('asks for a reconnect when Google refuses the refresh token, without retrying it', async () => {
    const account = connected();
    google.oauth.expireAccessTokens();
    google.oauth.revokeRefreshTokens();
    const from = google.requests.length;
    await rejects(provider.listCalendars(account), 'reconnect_required', { reason: 'grant_refused' });
    assert.deepEqual(
      google.requests.slice(from).map((r) => `${r.url.split('?')[0]} ${r.status}`),
      ['/calendar/v3/users/me/calendarList 401', '/token 400'],
    );
    assert.equal(account.saved.length, 0);
  });

  it('asks for a reconnect when a freshly issued token is refused too', async () => {
    const account = connected();
    google.inject({ status: 401, times: 2 });
    await rejects(provider.listCalendars(account), 'reconnect_required', { reason: 'token_rejected' });
    assert.equal(account.saved.length, 1, 'the refreshed token was still saved');
  });

  it('retries a 429 after Retry-After and succeeds', async () => {
    waits.length = 0;
    const from = google.requests.length;
    google.inject({ status: 429, retryAfter: '2', times: 2 });
    assert.equal((await provider.listCalendars(connected())).length, 5);
    assert.deepEqual(waits, [2000, 2000]);
    assert.deepEqual(
      apiCalls(from).map((r) => r.status),
      [429, 429, 200],
    );
  });

  it('gives up with provider_unavailable on a persistent 503', async () => {
    google.inject({ status: 503, times: 3 });
    await rejects(provider.listEvents(connected(), calendar(primary.id), window), 'provider_unavailable', {
      status: 503,
      reason: 'server_error',
    });
  });

  it('treats 403 usage limits as provider_unavailable without retrying', async () => {
    const from = google.requests.length;
    google.inject({ status: 403, reason: 'userRateLimitExceeded', retryAfter: '30' });
    await assert.rejects(provider.listCalendars(connected()), (error: AppError) => {
      assert.equal(error.code, 'provider_unavailable');
      assert.equal(error.retryAfter, 30);
      assert.equal(error.details?.reason, 'rate_limited');
      return true;
    });
    assert.equal(apiCalls(from).length, 1);
  });

  it('answers provider_unavailable when Google does not answer in time', async () => {
    const deadline = new TestDeadline();
    const impatient = createGoogleProvider({
      http: new ProviderHttp({ deadline: deadline.signal, maxAttempts: 2, sleep: async () => {} }),
      config: google.config(),
      clock,
    });
    google.inject({ ...deadline.held(), times: 2 });
    await rejects(impatient.listCalendars(connected()), 'provider_unavailable', { reason: 'timeout' });
  });
});

describe('a Google series held apart from its rule (seriesExceptionsOf)', () => {
  it('names exceptions, cancelled instances and EXDATE / RDATE lines by their original starts', () => {
    const master = {
      id: 'retro',
      start: { dateTime: '2026-03-24T16:00:00+01:00', timeZone: 'Europe/Berlin' },
      recurrence: [
        'RRULE:FREQ=WEEKLY;COUNT=6',
        'EXDATE;TZID=Europe/Berlin:20260331T160000,20260407T160000',
        'EXDATE:20260421T140000Z',
        'RDATE;VALUE=DATE:20260502',
        'EXDATE;TZID=Not/AZone:20260428T160000',
      ],
    };
    const items = [
      master,
      {
        id: 'retro_20260414T140000Z',
        recurringEventId: 'retro',
        originalStartTime: { dateTime: '2026-04-14T16:00:00+02:00', timeZone: 'Europe/Berlin' },
      },
      {
        id: 'retro_20260324T150000Z',
        recurringEventId: 'retro',
        status: 'cancelled' as const,
        originalStartTime: { dateTime: '2026-03-24T16:00:00+01:00', timeZone: 'Europe/Berlin' },
      },
      { id: 'other', recurringEventId: 'another', originalStartTime: { date: '2026-04-01' } },
    ];
    assert.deepEqual(seriesExceptionsOf(master, items), [
      { recurrenceId: '2026-04-14T14:00:00Z', kind: 'changed' },
      { recurrenceId: '2026-03-24T15:00:00Z', kind: 'cancelled' },
      { recurrenceId: '2026-03-31T14:00:00Z', kind: 'cancelled' },
      { recurrenceId: '2026-04-07T14:00:00Z', kind: 'cancelled' },
      { recurrenceId: '2026-04-21T14:00:00Z', kind: 'cancelled' },
      { recurrenceId: '2026-05-02', kind: 'added' },
      // A zone nobody knows: still a date apart from the rule, named as written.
      { recurrenceId: '20260428T160000', kind: 'cancelled' },
    ]);
    assert.deepEqual(seriesExceptionsOf({ ...master, recurrence: ['RRULE:FREQ=DAILY'] }, [master]), []);
  });
});
