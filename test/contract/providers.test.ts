/**
 * One contract for every calendar adapter: the same calendar — a weekly series across the
 * 2026-10-25 Berlin DST change with one cancelled instance, a two-day all-day event and a
 * private appointment — seeded into a real Radicale (CalDAV), an ICS feed, the Google fake and
 * the Graph fake, must come out of the port the same way, and map to valid Events.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import { placeOccurrence, toEvents } from '../../src/domain/occurrences.ts';
import type { ProviderCalendar, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { AppError } from '../../src/errors.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { newProviderUid } from '../../src/lib/ids.ts';
import { createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import { createIcsProvider } from '../../src/providers/ics/adapter.ts';
import { createMicrosoftProvider } from '../../src/providers/microsoft/adapter.ts';
import type { AccountAccess, CalendarProvider, Credentials } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { FakeGoogle } from '../fakes/google.ts';
import { FakeGraph } from '../fakes/graph.ts';
import { assertValidEvent } from '../helpers/eventSchema.ts';
import { assertOccurrenceShape } from '../helpers/occurrenceShape.ts';
import { mkcalendar, putIcs, radicaleMissing, startRadicale } from '../helpers/radicale.ts';

const window = {
  start: Temporal.Instant.from('2026-10-19T00:00:00Z'),
  end: Temporal.Instant.from('2026-11-16T00:00:00Z'),
};

const ics = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//contract//EN',
  'X-WR-CALNAME:Contract',
  'X-WR-TIMEZONE:Europe/Berlin',
  'BEGIN:VEVENT',
  'UID:standup',
  'DTSTAMP:20261001T000000Z',
  'DTSTART;TZID=Europe/Berlin:20261019T090000',
  'DTEND;TZID=Europe/Berlin:20261019T091500',
  'RRULE:FREQ=WEEKLY;COUNT=4',
  'EXDATE;TZID=Europe/Berlin:20261102T090000',
  'SUMMARY:Standup',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:offsite',
  'DTSTAMP:20261001T000000Z',
  'DTSTART;VALUE=DATE:20261021',
  'DTEND;VALUE=DATE:20261023',
  'SUMMARY:Offsite',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:dentist',
  'DTSTAMP:20261001T000000Z',
  'DTSTART;TZID=Europe/Berlin:20261022T140000',
  'DTEND;TZID=Europe/Berlin:20261022T150000',
  'SUMMARY:Dentist',
  'CLASS:PRIVATE',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

interface World {
  provider: CalendarProvider;
  access: AccountAccess;
  /** Finds the seeded calendar among those listed. */
  pick(calendars: ProviderCalendar[]): ProviderCalendar | undefined;
  close(): Promise<void>;
}

const http = () => new ProviderHttp({ sleep: async () => {} });
const accessFor = (credentials: Credentials): AccountAccess => ({
  accountKey: `contract-${credentials.kind}`,
  credentials,
  saveCredentials: async () => {},
});

const worlds: Record<string, { skip?: string; open(): Promise<World> }> = {
  caldav: {
    skip: radicaleMissing(),
    async open() {
      const radicale = await startRadicale();
      const auth = { username: radicale.username, password: radicale.password };
      const calendarUrl = new URL(`${radicale.username}/contract/`, radicale.url).href;
      await mkcalendar(calendarUrl, auth, { displayName: 'Contract' });
      await putIcs(calendarUrl, auth, ics);
      return {
        provider: createCaldavProvider({ http: http() }) as CalendarProvider,
        access: accessFor({ kind: 'caldav', serverUrl: radicale.url, ...auth }),
        pick: (calendars) => calendars.find((c) => c.name === 'Contract'),
        close: async () => radicale.stop(),
      };
    },
  },
  ics: {
    async open() {
      const server = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' }).end(ics);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      return {
        provider: createIcsProvider({ http: http(), allowPrivateNetworks: true }) as CalendarProvider,
        access: accessFor({ kind: 'ics', url: `http://127.0.0.1:${port}/contract.ics` }),
        pick: (calendars) => calendars[0],
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    },
  },
  google: {
    async open() {
      const berlin = (dateTime: string) => ({ dateTime, timeZone: 'Europe/Berlin' });
      const google = await FakeGoogle.start({
        calendars: [
          {
            id: 'contract',
            summary: 'Contract',
            timeZone: 'Europe/Berlin',
            accessRole: 'owner',
            primary: true,
            events: [
              {
                id: 'standup',
                summary: 'Standup',
                start: berlin('2026-10-19T09:00:00'),
                end: berlin('2026-10-19T09:15:00'),
                recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
              },
              {
                id: 'standup_20261102T080000Z',
                recurringEventId: 'standup',
                originalStartTime: berlin('2026-11-02T09:00:00+01:00'),
                status: 'cancelled',
              },
              {
                id: 'offsite',
                summary: 'Offsite',
                start: { date: '2026-10-21' },
                end: { date: '2026-10-23' },
              },
              {
                id: 'dentist',
                summary: 'Dentist',
                visibility: 'private',
                start: berlin('2026-10-22T14:00:00'),
                end: berlin('2026-10-22T15:00:00'),
              },
            ],
          },
        ],
      });
      return {
        provider: createGoogleProvider({
          http: http(),
          config: google.config(),
          clock: systemClock,
        }) as CalendarProvider,
        access: accessFor({ kind: 'google', ...google.oauth.issue() }),
        pick: (calendars) => calendars.find((c) => c.name === 'Contract'),
        close: () => google.close(),
      };
    },
  },
  microsoft: {
    async open() {
      const berlin = { zone: 'Europe/Berlin', originalStartTimeZone: 'W. Europe Standard Time' };
      const email = 'contract@example.com';
      const graph = await FakeGraph.start({
        users: [
          {
            email,
            calendars: [
              {
                id: 'contract',
                name: 'Contract',
                isDefaultCalendar: true,
                events: [
                  {
                    id: 'standup',
                    ...berlin,
                    subject: 'Standup',
                    start: '2026-10-19T09:00:00',
                    end: '2026-10-19T09:15:00',
                    repeats: { count: 4, cancelled: [2] },
                  },
                  {
                    id: 'offsite',
                    ...berlin,
                    subject: 'Offsite',
                    isAllDay: true,
                    start: '2026-10-21',
                    end: '2026-10-23',
                  },
                  {
                    id: 'dentist',
                    ...berlin,
                    subject: 'Dentist',
                    sensitivity: 'private',
                    start: '2026-10-22T14:00:00',
                    end: '2026-10-22T15:00:00',
                  },
                ],
              },
            ],
          },
        ],
      });
      return {
        provider: createMicrosoftProvider({
          http: http(),
          config: graph.config(),
          clock: systemClock,
        }) as CalendarProvider,
        access: accessFor({ kind: 'microsoft', ...graph.issueTokens(email) }),
        pick: (calendars) => calendars.find((c) => c.name === 'Contract'),
        close: () => graph.close(),
      };
    },
  },
};

/** Occurrences as a full-detail owner in Berlin sees them. */
const ids = createEventIds(randomBytes(32));
const place = (occurrences: ProviderOccurrence[], range: typeof window) =>
  toEvents(
    occurrences,
    {
      calendarId: 'cal_x',
      access: 'owner',
      detailLevel: 'full',
      privateDetails: true,
      placementZone: 'Europe/Berlin',
    },
    ids,
    range,
  );

const expected = [
  ['Standup', '2026-10-19T09:00:00+02:00', 'Europe/Berlin', 'PT15M', false, true, undefined],
  ['Offsite', '2026-10-21', undefined, 'P2D', true, false, undefined],
  ['Dentist', '2026-10-22T14:00:00+02:00', 'Europe/Berlin', 'PT1H', false, false, 'private'],
  ['Standup', '2026-10-26T09:00:00+01:00', 'Europe/Berlin', 'PT15M', false, true, undefined],
  ['Standup', '2026-11-09T09:00:00+01:00', 'Europe/Berlin', 'PT15M', false, true, undefined],
];

for (const [name, world] of Object.entries(worlds)) {
  describe(`provider contract: ${name}`, { skip: world.skip }, () => {
    let w: World;
    let calendar: ProviderCalendar;
    before(async () => {
      w = await world.open();
      const found = w.pick(await w.provider.listCalendars(w.access));
      assert.ok(found, 'the seeded calendar is listed');
      calendar = found;
    });
    after(() => w?.close());

    it('lists the calendar with its access', () => {
      assert.equal(calendar.name, 'Contract');
      assert.ok(['owner', 'writer', 'reader'].includes(calendar.access), calendar.access);
      assert.equal(typeof calendar.providerCalendarId, 'string');
    });

    it('expands the same occurrences, in local time of their zone, across the DST change', async () => {
      const { occurrences, skipped } = await w.provider.listEvents(w.access, calendar, window);
      assert.deepEqual(skipped, []);
      for (const occurrence of occurrences) assertOccurrenceShape(occurrence, name);
      const placed = place(occurrences, window);
      const seen = placed.map(({ event: e }) => [
        e.title,
        e.start,
        e.timeZone,
        e.duration,
        e.showWithoutTime,
        // Shown in its own zone: the wall time the provider reports (an all-day event: its date).
        occurrences.find((o) => o.start.startsWith(e.start.slice(0, 19)) && o.title === e.title)?.facts
          .recurring ?? false,
        e.privacy === 'private' ? 'private' : undefined,
      ]);
      assert.deepEqual(seen, expected);
      for (const { event } of placed) assertValidEvent(event);
      assert.equal(
        Temporal.Instant.fromEpochNanoseconds(placed[0]!.startNs).toString(),
        '2026-10-19T07:00:00Z',
        'CEST',
      );
      assert.equal(
        Temporal.Instant.fromEpochNanoseconds(placed[3]!.startNs).toString(),
        '2026-10-26T08:00:00Z',
        'CET after the change',
      );
      const standups = placed.filter((p) => p.event.title === 'Standup');
      assert.equal(new Set(standups.map((p) => p.event.eventId)).size, 1, 'one series, one eventId');
      assert.equal(new Set(standups.map((p) => p.event.occurrenceId)).size, 3, 'each occurrence its own id');
    });

    it('reads one event again, and answers undefined for one that does not exist', async () => {
      const { occurrences } = await w.provider.listEvents(w.access, calendar, window);
      const dentist = occurrences.find((o) => o.title === 'Dentist')!;
      const fresh = await w.provider.getEvent(w.access, calendar, dentist.providerEventId);
      assert.equal(fresh?.title, 'Dentist');
      assert.equal(fresh?.start, '2026-10-22T14:00:00');
      const series = occurrences.filter((o) => o.title === 'Standup');
      const second = await w.provider.getEvent(
        w.access,
        calendar,
        series[1]!.providerEventId,
        series[1]!.recurrenceId,
      );
      assert.equal(second?.start, '2026-10-26T09:00:00');
      const missing = name === 'caldav' ? `gone.ics#gone` : 'no-such-event';
      assert.equal(await w.provider.getEvent(w.access, calendar, missing), undefined);
    });

    it('keeps to the window: nothing before or after it', async () => {
      const narrow = {
        start: Temporal.Instant.from('2026-10-26T00:00:00Z'),
        end: Temporal.Instant.from('2026-10-27T00:00:00Z'),
      };
      const { occurrences } = await w.provider.listEvents(w.access, calendar, narrow);
      const placed = place(occurrences, narrow);
      assert.deepEqual(
        placed.map((p) => [p.event.title, p.event.start]),
        [['Standup', '2026-10-26T09:00:00+01:00']],
      );
    });

    it('writes the same way: create once per uid, one occurrence alone, the series, stale versions refused', async () => {
      const writer = w.provider.writer;
      if (writer === undefined) {
        assert.equal(name, 'ics', 'only ICS feeds are read-only');
        return;
      }
      const instants = async (providerEventId: string, recurrenceId?: string) => {
        const read = await w.provider.getEvent(w.access, calendar, providerEventId, recurrenceId);
        assert.ok(read, 'read back');
        const span = placeOccurrence(read, 'Europe/Berlin');
        return {
          title: read.title,
          start: read.start,
          timeZone: read.timeZone,
          span: `${span.start}/${span.end}`,
        };
      };
      // Across the night the clocks go back: four hours on the clock, five elapsed.
      const uid = newProviderUid();
      const draft = {
        title: 'Contract call',
        timing: {
          allDay: false as const,
          start: '2026-10-24T23:30:00',
          end: '2026-10-25T03:30:00',
          timeZone: 'Europe/Berlin',
        },
      };
      const created = await writer.createEvent(w.access, calendar, draft, uid);
      assert.deepEqual(await instants(created), {
        title: 'Contract call',
        start: '2026-10-24T23:30:00',
        timeZone: 'Europe/Berlin',
        span: '2026-10-24T21:30:00Z/2026-10-25T02:30:00Z',
      });
      const again = await writer.createEvent(w.access, calendar, draft, uid).then(
        (id) => id,
        (error: unknown) => error,
      );
      // A repeat may answer with the same event or refuse the taken uid; never a second event.
      if (typeof again === 'string') assert.equal(again, created);
      else
        assert.ok(
          again instanceof AppError && again.code === 'conflict' && again.details?.reason === 'exists',
        );
      assert.equal(await writer.findCreated(w.access, calendar, uid), created);
      assert.equal(await writer.findCreated(w.access, calendar, newProviderUid()), undefined);
      const calls = (await w.provider.listEvents(w.access, calendar, window)).occurrences.filter(
        (o) => o.title === 'Contract call',
      );
      assert.equal(calls.length, 1);

      // One occurrence moved and renamed; the others stay.
      const standups = () =>
        w.provider
          .listEvents(w.access, calendar, window)
          .then(({ occurrences }) => occurrences.filter((o) => o.facts.recurring));
      const [, second] = await standups();
      const seriesId = second!.providerEventId;
      const before = await w.provider.getEvent(w.access, calendar, seriesId, second!.recurrenceId);
      const target = {
        providerEventId: seriesId,
        recurrenceId: second!.recurrenceId!,
        version: before!.facts.version!,
      };
      await writer.updateEvent(w.access, calendar, target, {
        title: 'Standup (moved)',
        timing: {
          allDay: false,
          start: '2026-10-26T11:00:00',
          end: '2026-10-26T11:30:00',
          timeZone: 'Europe/Berlin',
        },
      });
      const moved = (await standups()).map((o) => [o.title, o.start]);
      assert.deepEqual(moved, [
        ['Standup', '2026-10-19T09:00:00'],
        ['Standup (moved)', '2026-10-26T11:00:00'],
        ['Standup', '2026-11-09T09:00:00'],
      ]);
      // The version written against is stale now: refused, nothing changed.
      await assert.rejects(
        writer.updateEvent(w.access, calendar, target, { title: 'Stale' }),
        (error) =>
          error instanceof AppError && error.code === 'conflict' && error.details?.reason === 'version',
      );

      // The series renamed: the occurrences that were not changed on their own follow.
      const series = await w.provider.getEvent(w.access, calendar, seriesId);
      await writer.updateEvent(
        w.access,
        calendar,
        { providerEventId: seriesId, version: series!.facts.version! },
        { title: 'Sync' },
      );
      const renamed = await standups();
      assert.deepEqual(
        renamed.map((o) => o.start),
        ['2026-10-19T09:00:00', '2026-10-26T11:00:00', '2026-11-09T09:00:00'],
        'the moved occurrence keeps its time',
      );
      assert.equal(renamed[0]!.title, 'Sync');
      assert.equal(renamed[2]!.title, 'Sync');

      // The last occurrence deleted alone; then the new event.
      const last = await w.provider.getEvent(w.access, calendar, seriesId, renamed[2]!.recurrenceId);
      await writer.deleteEvent(w.access, calendar, {
        providerEventId: seriesId,
        recurrenceId: renamed[2]!.recurrenceId!,
        version: last!.facts.version!,
      });
      assert.deepEqual(
        (await standups()).map((o) => o.start),
        ['2026-10-19T09:00:00', '2026-10-26T11:00:00'],
      );
      assert.equal(
        await w.provider.getEvent(w.access, calendar, seriesId, renamed[2]!.recurrenceId),
        undefined,
      );
      const call = await w.provider.getEvent(w.access, calendar, created);
      await writer.deleteEvent(w.access, calendar, {
        providerEventId: created,
        version: call!.facts.version!,
      });
      assert.equal(await w.provider.getEvent(w.access, calendar, created), undefined);
    });

    it('creates the same series: weekly on two days across the DST change, daily every other day until a date', async () => {
      const writer = w.provider.writer;
      if (writer === undefined) return;
      const weekly = await writer.createEvent(
        w.access,
        calendar,
        {
          title: 'Contract review',
          timing: {
            allDay: false,
            start: '2026-10-19T07:30:00',
            end: '2026-10-19T08:00:00',
            timeZone: 'Europe/Berlin',
          },
          recurrence: { frequency: 'weekly', interval: 1, daysOfWeek: ['monday', 'wednesday'], count: 5 },
        },
        newProviderUid(),
      );
      const daily = await writer.createEvent(
        w.access,
        calendar,
        {
          title: 'Contract walk',
          timing: { allDay: true, startDate: '2026-10-19', endDate: '2026-10-20' },
          recurrence: { frequency: 'daily', interval: 2, daysOfWeek: [], until: '2026-10-25' },
        },
        newProviderUid(),
      );
      const { occurrences } = await w.provider.listEvents(w.access, calendar, window);
      const seen = (title: string) =>
        place(
          occurrences.filter((o) => o.title === title),
          window,
        ).map((p) => [p.event.start, Temporal.Instant.fromEpochNanoseconds(p.startNs).toString()]);
      assert.deepEqual(seen('Contract review'), [
        ['2026-10-19T07:30:00+02:00', '2026-10-19T05:30:00Z'],
        ['2026-10-21T07:30:00+02:00', '2026-10-21T05:30:00Z'],
        ['2026-10-26T07:30:00+01:00', '2026-10-26T06:30:00Z'],
        ['2026-10-28T07:30:00+01:00', '2026-10-28T06:30:00Z'],
        ['2026-11-02T07:30:00+01:00', '2026-11-02T06:30:00Z'],
      ]);
      assert.deepEqual(
        seen('Contract walk').map(([start]) => start),
        ['2026-10-19', '2026-10-21', '2026-10-23', '2026-10-25'],
      );
      // Read again by its id: the first occurrence, as part of a series, with the series' version.
      for (const id of [weekly, daily]) {
        const series = await w.provider.getEvent(w.access, calendar, id);
        assert.equal(series?.facts.recurring, true);
        await writer.deleteEvent(w.access, calendar, {
          providerEventId: id,
          version: series!.facts.version!,
        });
      }
      const left = (await w.provider.listEvents(w.access, calendar, window)).occurrences;
      assert.deepEqual(
        left.filter((o) => o.title?.startsWith('Contract ')),
        [],
      );
    });
  });
}
