/**
 * CalDAV writes against a real Radicale: new events read back exactly (and placed by Radicale
 * itself through the VTIMEZONE we write), one object per uid, single events, one occurrence
 * and whole series changed and deleted, answers to invitations, stale versions refused, a
 * read-only calendar, and — through a fault-injecting proxy — writes that are rate limited,
 * time out before the server saw them, or time out after the server applied them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewEvent, WriteTarget } from '../../src/domain/eventChanges.ts';
import type { ProviderCalendar } from '../../src/domain/providerFacts.ts';
import { AppError } from '../../src/errors.ts';
import { newProviderUid } from '../../src/lib/ids.ts';
import { connectCaldav, createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import { calendarQueryBody, parseMultistatus } from '../../src/providers/caldav/wire.ts';
import type {
  AccountAccess,
  CalendarProvider,
  CredentialsOf,
  EventWriter,
} from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { TestDeadline } from '../helpers/deadline.ts';
import { FaultProxy } from '../helpers/faultProxy.ts';
import {
  basicAuth,
  mkcalendar,
  putIcs,
  type RadicaleServer,
  radicaleMissing,
  readOnlyCollectionRights,
  startRadicale,
} from '../helpers/radicale.ts';
import { vcalendar } from '../helpers/radicaleCalendars.ts';

const skip = radicaleMissing();

type Account = AccountAccess<CredentialsOf<'caldav'>>;

const ana = { username: 'ana@example.org', password: 'ana-password' };
const admin = { username: 'admin', password: 'admin-password' };

// First matching section wins: Ana may only read the Holidays calendar the admin keeps in her home.
const rights = readOnlyCollectionRights('ana@example.org', 'ana@example.org/holidays');

const seeded = vcalendar(
  [
    'UID:standup',
    'DTSTART;TZID=Europe/Berlin:20260316T090000',
    'DTEND;TZID=Europe/Berlin:20260316T091500',
    'RRULE:FREQ=WEEKLY;COUNT=4',
    'SUMMARY:Standup',
    'X-VENDOR:keep',
  ],
  [
    'UID:review',
    'DTSTART;TZID=Europe/Berlin:20260325T140000',
    'DTEND;TZID=Europe/Berlin:20260325T150000',
    'SUMMARY:Design review',
    'SEQUENCE:3',
    'ORGANIZER:mailto:boss@example.org',
    'ATTENDEE;PARTSTAT=ACCEPTED:mailto:boss@example.org',
    'ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:Ana@Example.org',
  ],
  [
    'UID:one-on-one',
    'DTSTART;TZID=Europe/Berlin:20260317T160000',
    'DTEND;TZID=Europe/Berlin:20260317T163000',
    'RRULE:FREQ=WEEKLY;COUNT=3',
    'SUMMARY:One-on-one',
    'ORGANIZER:mailto:boss@example.org',
    'ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:ana@example.org',
  ],
);

const holiday = vcalendar([
  'UID:easter',
  'DTSTART;VALUE=DATE:20260405',
  'DTEND;VALUE=DATE:20260406',
  'SUMMARY:Easter',
]);

const span = (from: string, to: string) => ({
  start: Temporal.Instant.from(from),
  end: Temporal.Instant.from(to),
});
const march = span('2026-03-09T00:00:00Z', '2026-04-20T00:00:00Z');

const rejectsWith = (promise: Promise<unknown>, code: string, details?: Record<string, unknown>) =>
  assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code, error.message);
    for (const [key, value] of Object.entries(details ?? {})) assert.equal(error.details?.[key], value, key);
    return true;
  });

const timed = (title: string, start: string, end: string, timeZone: string): NewEvent => ({
  title,
  timing: { allDay: false, start, end, timeZone },
});

describe('CalDAV writes against Radicale', { skip }, () => {
  let radicale: RadicaleServer;
  let home: string;
  const provider = createCaldavProvider({
    http: new ProviderHttp({ sleep: async () => {} }),
  });
  const writer = provider.writer as EventWriter<'caldav'>;
  let account: Account;
  let work: ProviderCalendar;
  let holidays: ProviderCalendar;

  /** The stored object, straight from Radicale. */
  const stored = async (href: string) => {
    const response = await fetch(new URL(href, work.providerCalendarId), {
      headers: { authorization: basicAuth(ana.username, ana.password) },
    });
    return { status: response.status, etag: response.headers.get('etag'), body: await response.text() };
  };
  const read = (id: string, recurrenceId?: string, calendar = work) =>
    provider.getEvent(account, calendar, id, recurrenceId);
  /** What the service passes after its fresh read. */
  const targetOf = async (id: string, recurrenceId?: string, calendar = work): Promise<WriteTarget> => {
    const fresh = await read(id, recurrenceId, calendar);
    assert.ok(fresh?.facts.version, `${id} ${recurrenceId ?? ''} has a version`);
    return { providerEventId: id, ...(recurrenceId && { recurrenceId }), version: fresh.facts.version };
  };
  const listed = async (uid: string, window = march) =>
    (await provider.listEvents(account, work, window)).occurrences.filter((o) =>
      o.providerEventId.endsWith(`#${uid}`),
    );

  before(async () => {
    radicale = await startRadicale({
      users: { [ana.username]: ana.password, [admin.username]: admin.password },
      rights,
    });
    home = `${radicale.url}${ana.username}/`;
    // Ana's first request makes Radicale create her principal collection.
    account = {
      accountKey: 'acc_caldav_writes',
      credentials: (await connectCaldav({ http: new ProviderHttp() }, { serverUrl: radicale.url, ...ana }))
        .credentials,
      saveCredentials: async () => {},
    };
    await mkcalendar(`${home}work/`, ana, { displayName: 'Work' });
    await mkcalendar(`${home}holidays/`, admin, { displayName: 'Holidays' });
    await putIcs(`${home}work/`, ana, seeded);
    await putIcs(`${home}holidays/`, admin, holiday);
    const calendars = await provider.listCalendars(account);
    work = calendars.find((c) => c.name === 'Work')!;
    holidays = calendars.find((c) => c.name === 'Holidays')!;
  });
  after(() => radicale?.stop());

  describe('creating', () => {
    it('writes a new event as <uid>.ics and reads it back exactly, across the night the clocks go back', async () => {
      const uid = newProviderUid();
      const id = await writer.createEvent(
        account,
        work,
        {
          ...timed('Night migration', '2026-10-24T23:30:00', '2026-10-25T03:30:00', 'Europe/Berlin'),
          description: 'Runbook in the wiki',
          location: 'Ops room',
          privacy: 'private',
          freeBusyStatus: 'free',
        },
        uid,
      );
      assert.equal(id, `${uid}.ics#${uid}`);
      const event = await read(id);
      assert.deepEqual(
        [
          event?.title,
          event?.start,
          event?.timeZone,
          event?.duration,
          event?.showWithoutTime,
          event?.description,
          event?.locations?.[0]?.name,
          event?.privacy,
          event?.freeBusyStatus,
          event?.recurrenceId,
        ],
        [
          'Night migration',
          '2026-10-24T23:30:00',
          'Europe/Berlin',
          'PT5H',
          false,
          'Runbook in the wiki',
          'Ops room',
          'private',
          'free',
          undefined,
        ],
      );
      const object = await stored(`${uid}.ics`);
      assert.equal(event?.facts.version, object.etag);
      assert.equal(event?.facts.organizer, 'none');
      assert.match(object.body, /DTSTART;TZID=Europe\/Berlin:20261024T233000/);
      assert.match(object.body, /SEQUENCE:0/);
      const october = span('2026-10-20T00:00:00Z', '2026-10-30T00:00:00Z');
      assert.deepEqual(
        (await listed(uid, october)).map((o) => [o.providerEventId, o.start, o.duration]),
        [[id, '2026-10-24T23:30:00', 'PT5H']],
      );
    });

    it('writes whole days and UTC times as such', async () => {
      const days = await writer.createEvent(
        account,
        work,
        { title: 'Holidays', timing: { allDay: true, startDate: '2026-12-24', endDate: '2026-12-27' } },
        newProviderUid(),
      );
      const offsite = await read(days);
      assert.deepEqual(
        [offsite?.start, offsite?.timeZone, offsite?.duration, offsite?.showWithoutTime],
        ['2026-12-24T00:00:00', undefined, 'P3D', true],
      );
      const utc = await read(
        await writer.createEvent(
          account,
          work,
          timed('Release', '2026-03-29T00:30:00', '2026-03-29T01:45:00', 'Etc/UTC'),
          newProviderUid(),
        ),
      );
      assert.deepEqual(
        [utc?.start, utc?.timeZone, utc?.duration],
        ['2026-03-29T00:30:00', 'Etc/UTC', 'PT1H15M'],
      );
    });

    it('lets Radicale place the times itself by the VTIMEZONE we send (half-hour and no DST, gaps)', async () => {
      const cases = [
        timed('Lord Howe before', '2026-10-04T00:30:00', '2026-10-04T01:30:00', 'Australia/Lord_Howe'),
        timed('Lord Howe after', '2026-10-04T03:00:00', '2026-10-04T04:00:00', 'Australia/Lord_Howe'),
        timed('New York after', '2026-03-08T03:30:00', '2026-03-08T04:30:00', 'America/New_York'),
        timed('Kolkata', '2026-06-01T09:00:00', '2026-06-01T10:00:00', 'Asia/Kolkata'),
      ];
      for (const event of cases) {
        const uid = newProviderUid();
        await writer.createEvent(account, work, event, uid);
        const timing = event.timing as Extract<NewEvent['timing'], { allDay: false }>;
        const at = (local: string) =>
          Temporal.PlainDateTime.from(local).toZonedDateTime(timing.timeZone).toInstant();
        const [start, end] = [at(timing.start), at(timing.end)];
        // Half an hour off in either direction would move the event into or out of one of these.
        const found = async (from: Temporal.Instant, to: Temporal.Instant) => {
          const response = await fetch(work.providerCalendarId, {
            method: 'REPORT',
            headers: {
              authorization: basicAuth(ana.username, ana.password),
              depth: '1',
              'content-type': 'application/xml; charset=utf-8',
            },
            body: calendarQueryBody(from, to),
          });
          assert.equal(response.status, 207);
          return parseMultistatus(await response.text()).some((r) => r.href.endsWith(`/${uid}.ics`));
        };
        assert.equal(
          await found(start.subtract({ minutes: 25 }), start.subtract({ minutes: 5 })),
          false,
          event.title,
        );
        assert.equal(await found(start.add({ minutes: 5 }), start.add({ minutes: 10 })), true, event.title);
        assert.equal(await found(end.add({ minutes: 5 }), end.add({ minutes: 25 })), false, event.title);
      }
    });

    it('never makes a second event for the same uid', async () => {
      const uid = newProviderUid();
      const draft = timed('Kickoff', '2026-03-18T10:00:00', '2026-03-18T11:00:00', 'Europe/Berlin');
      const id = await writer.createEvent(account, work, draft, uid);
      await rejectsWith(
        writer.createEvent(account, work, { ...draft, title: 'Kickoff again' }, uid),
        'conflict',
        {
          reason: 'exists',
        },
      );
      assert.deepEqual(
        (await listed(uid)).map((o) => o.title),
        ['Kickoff'],
      );
      assert.match((await stored(`${uid}.ics`)).body, /SUMMARY:Kickoff\r\n/);
      assert.equal(await writer.findCreated(account, work, uid), id);
      assert.equal(await writer.findCreated(account, work, newProviderUid()), undefined);
    });
  });

  describe('changing a single event', () => {
    it('changes the fields asked for, keeps the rest, and refuses the version it replaced', async () => {
      const uid = newProviderUid();
      const id = await writer.createEvent(
        account,
        work,
        {
          ...timed('Lunch', '2026-03-19T12:00:00', '2026-03-19T13:00:00', 'Europe/Berlin'),
          description: 'Booked',
          location: 'Canteen',
        },
        uid,
      );
      const first = await targetOf(id);
      await writer.updateEvent(account, work, first, {
        title: 'Lunch with Sam',
        description: null,
        privacy: 'private',
        timing: {
          allDay: false,
          start: '2026-03-19T17:30:00',
          end: '2026-03-19T18:45:00',
          timeZone: 'Asia/Kolkata',
        },
      });
      const changed = await read(id);
      assert.deepEqual(
        [
          changed?.title,
          changed?.description,
          changed?.locations?.[0]?.name,
          changed?.privacy,
          changed?.start,
          changed?.timeZone,
          changed?.duration,
        ],
        ['Lunch with Sam', undefined, 'Canteen', 'private', '2026-03-19T17:30:00', 'Asia/Kolkata', 'PT1H15M'],
      );
      assert.notEqual(changed?.facts.version, first.version);
      const before = await stored(`${uid}.ics`);
      assert.match(before.body, /SEQUENCE:1/);
      await rejectsWith(writer.updateEvent(account, work, first, { title: 'Stale' }), 'conflict', {
        reason: 'version',
      });
      await rejectsWith(writer.deleteEvent(account, work, first), 'conflict', { reason: 'version' });
      assert.deepEqual(await stored(`${uid}.ics`), before, 'nothing changed');
      await writer.deleteEvent(account, work, await targetOf(id));
      assert.equal(await read(id), undefined);
      assert.equal((await stored(`${uid}.ics`)).status, 404);
      await rejectsWith(writer.updateEvent(account, work, first, { title: 'Gone' }), 'not_found');
    });
  });

  describe('a weekly series', () => {
    const series = 'standup.ics#standup';
    const view = async () =>
      (await listed('standup')).map((o) => [o.recurrenceId, o.title, o.start, o.duration]);
    const third = '2026-03-30T07:00:00Z';

    it('changes one occurrence only', async () => {
      const before = await view();
      assert.deepEqual(
        before.map((row) => row[0]),
        ['2026-03-16T08:00:00Z', '2026-03-23T08:00:00Z', third, '2026-04-06T07:00:00Z'],
      );
      await writer.updateEvent(account, work, await targetOf(series, third), {
        title: 'Standup (moved)',
        timing: {
          allDay: false,
          start: '2026-03-30T11:00:00',
          end: '2026-03-30T11:30:00',
          timeZone: 'Europe/Berlin',
        },
      });
      assert.deepEqual(
        await view(),
        before.map((row) =>
          row[0] === third ? [third, 'Standup (moved)', '2026-03-30T11:00:00', 'PT30M'] : row,
        ),
      );
      const moved = await read(series, third);
      assert.deepEqual(
        [moved?.title, moved?.start, moved?.recurrenceId],
        ['Standup (moved)', '2026-03-30T11:00:00', third],
      );
    });

    it('renames the whole series, the moved occurrence included, which keeps its time', async () => {
      await writer.updateEvent(account, work, await targetOf(series), {
        title: 'Sync',
        description: 'Notes in the doc',
      });
      const after = await listed('standup');
      assert.deepEqual(
        after.map((o) => [o.title, o.start, o.description]),
        [
          ['Sync', '2026-03-16T09:00:00', 'Notes in the doc'],
          ['Sync', '2026-03-23T09:00:00', 'Notes in the doc'],
          ['Sync', '2026-03-30T11:00:00', 'Notes in the doc'],
          ['Sync', '2026-04-06T09:00:00', 'Notes in the doc'],
        ],
      );
      assert.match((await stored('standup.ics')).body, /X-VENDOR:keep/);
    });

    it('deletes one occurrence, and then cannot find it to delete again', async () => {
      const last = '2026-04-06T07:00:00Z';
      await writer.deleteEvent(account, work, await targetOf(series, last));
      assert.equal(await read(series, last), undefined);
      assert.deepEqual(
        (await view()).map((row) => row[0]),
        ['2026-03-16T08:00:00Z', '2026-03-23T08:00:00Z', third],
      );
      assert.match((await stored('standup.ics')).body, /EXDATE;TZID=Europe\/Berlin:20260406T090000/);
      const current = await targetOf(series);
      await rejectsWith(writer.deleteEvent(account, work, { ...current, recurrenceId: last }), 'not_found');
      await rejectsWith(
        writer.updateEvent(
          account,
          work,
          { ...current, recurrenceId: '2026-03-31T07:00:00Z' },
          { title: 'Made up' },
        ),
        'not_found',
      );
      assert.equal((await stored('standup.ics')).etag, current.version, 'no write was sent');
    });

    it('deletes the whole series', async () => {
      await writer.deleteEvent(account, work, await targetOf(series));
      assert.equal(await read(series), undefined);
      assert.deepEqual(await view(), []);
    });
  });

  describe('answering invitations', () => {
    it('sets the user’s own PARTSTAT with the comment, leaving SEQUENCE and the organizer’s line', async () => {
      const id = 'review.ics#review';
      assert.equal((await read(id))?.responseStatus, 'needs-action');
      await writer.respondToEvent(account, work, await targetOf(id), {
        response: 'accepted',
        comment: 'See you there',
      });
      assert.equal((await read(id))?.responseStatus, 'accepted');
      const { body } = await stored('review.ics');
      assert.match(body, /ATTENDEE;PARTSTAT=ACCEPTED:mailto:Ana@Example\.org/);
      assert.match(body, /ATTENDEE;PARTSTAT=ACCEPTED:mailto:boss@example\.org/);
      assert.match(body, /COMMENT:See you there/);
      assert.match(body, /SEQUENCE:3/);
      assert.doesNotMatch(body, /RSVP/);
      await writer.respondToEvent(account, work, await targetOf(id), { response: 'tentative' });
      assert.equal((await read(id))?.responseStatus, 'tentative');
    });

    it('answers one occurrence of a series alone', async () => {
      const id = 'one-on-one.ics#one-on-one';
      await writer.respondToEvent(account, work, await targetOf(id, '2026-03-24T15:00:00Z'), {
        response: 'declined',
      });
      assert.deepEqual(
        (await listed('one-on-one')).map((o) => [o.start, o.responseStatus]),
        [
          ['2026-03-17T16:00:00', 'needs-action'],
          ['2026-03-24T16:00:00', 'declined'],
          ['2026-03-31T16:00:00', 'needs-action'],
        ],
      );
    });

    it('refuses an answer to an event the user is not invited to', async () => {
      const id = await writer.createEvent(
        account,
        work,
        timed('Focus', '2026-03-20T08:00:00', '2026-03-20T10:00:00', 'Europe/Berlin'),
        newProviderUid(),
      );
      await rejectsWith(
        writer.respondToEvent(account, work, await targetOf(id), { response: 'accepted' }),
        'access_denied',
      );
    });
  });

  describe('guests, on a server that does not schedule', () => {
    it('says it delivers nothing, and names the user by the address it knows', async () => {
      assert.deepEqual(await writer.scheduling(account, work), {
        delivers: false,
        quiet: { update: true, delete: true },
        selfAddresses: [ana.username],
      });
    });

    it('stores ORGANIZER and ATTENDEEs; the read names them; changes keep the others', async () => {
      const uid = newProviderUid();
      const id = await writer.createEvent(
        account,
        work,
        {
          ...timed('Kick-off', '2026-03-23T10:00:00', '2026-03-23T11:00:00', 'Europe/Berlin'),
          guests: {
            add: [
              { email: 'ben@example.org', name: 'Ben "B" Bauer', optional: false },
              { email: 'cy@example.org', optional: true },
            ],
            remove: [],
          },
        },
        uid,
      );
      const object = (await stored(`${uid}.ics`)).body.replace(/\r\n /g, '');
      assert.match(object, /ORGANIZER:mailto:ana@example\.org/);
      assert.match(
        object,
        /ATTENDEE;CN=Ben \^'B\^' Bauer;PARTSTAT=NEEDS-ACTION;ROLE=REQ-PARTICIPANT;RSVP=TRUE:mailto:ben@example\.org/,
      );
      assert.match(
        object,
        /ATTENDEE;PARTSTAT=NEEDS-ACTION;ROLE=OPT-PARTICIPANT;RSVP=TRUE:mailto:cy@example\.org/,
      );
      assert.doesNotMatch(object, /SCHEDULE-AGENT/, 'a server that does not schedule is told nothing');
      const made = await read(id);
      assert.deepEqual(
        [made?.organizer, made?.attendees, made?.facts.organizer, made?.facts.attendees],
        [
          { email: 'ana@example.org', self: true },
          [
            {
              email: 'ben@example.org',
              name: 'Ben "B" Bauer',
              optional: false,
              response: 'needs-action',
              self: false,
            },
            { email: 'cy@example.org', optional: true, response: 'needs-action', self: false },
          ],
          'self',
          true,
        ],
      );

      await writer.updateEvent(
        account,
        work,
        await targetOf(id),
        {
          title: 'Kick-off (moved)',
          guests: { add: [{ email: 'dee@example.org', optional: false }], remove: ['BEN@example.org'] },
        },
        'quiet',
      );
      const changed = await read(id);
      assert.deepEqual(
        changed?.attendees?.map((a) => a.email),
        ['cy@example.org', 'dee@example.org'],
      );
      assert.equal(changed?.title, 'Kick-off (moved)');
      await writer.deleteEvent(account, work, await targetOf(id), 'send');
      assert.equal(await read(id), undefined);
    });
  });

  describe('a calendar the user may only read', () => {
    it('refuses every write as calendar_read_only and keeps the calendar as it was', async () => {
      assert.equal(holidays.access, 'reader');
      const uid = newProviderUid();
      await rejectsWith(
        writer.createEvent(
          account,
          holidays,
          timed('Party', '2026-04-04T20:00:00', '2026-04-04T23:00:00', 'Europe/Berlin'),
          uid,
        ),
        'calendar_read_only',
      );
      assert.equal(await writer.findCreated(account, holidays, uid), undefined);
      const easter = 'easter.ics#easter';
      const target = await targetOf(easter, undefined, holidays);
      await rejectsWith(
        writer.updateEvent(account, holidays, target, { title: 'Ostern' }),
        'calendar_read_only',
      );
      await rejectsWith(writer.deleteEvent(account, holidays, target), 'calendar_read_only');
      const after = await read(easter, undefined, holidays);
      assert.deepEqual([after?.title, after?.facts.version], ['Easter', target.version]);
    });
  });

  describe('through a failing network', () => {
    let proxy: FaultProxy;
    let viaProxy: CalendarProvider<'caldav'>;
    let proxied: Account;
    let calendar: ProviderCalendar;
    // Timeouts when a fault holds a request (setup writes go direct); retries allowed, so a
    // retried write would show as a second request.
    const deadline = new TestDeadline();
    const http = new ProviderHttp({ deadline: deadline.signal, maxAttempts: 3, sleep: async () => {} });
    const puts = () => proxy.count('PUT');

    before(async () => {
      proxy = await FaultProxy.start(radicale.url);
      viaProxy = createCaldavProvider({ http });
      proxied = {
        accountKey: 'acc_caldav_faults',
        credentials: { kind: 'caldav', serverUrl: proxy.url, ...ana },
        saveCredentials: async () => {},
      };
      calendar = (await viaProxy.listCalendars(proxied)).find((c) => c.name === 'Work')!;
      assert.ok(calendar.providerCalendarId.startsWith(proxy.url));
    });
    after(() => proxy?.close());

    const draft = timed('Planning', '2026-03-26T10:00:00', '2026-03-26T11:00:00', 'Europe/Berlin');

    it('a 429 is provider_unavailable after exactly one PUT, and nothing was made', async () => {
      const uid = newProviderUid();
      const before = puts();
      proxy.inject({ method: 'PUT', status: 429, retryAfter: '1' });
      await rejectsWith(viaProxy.writer!.createEvent(proxied, calendar, draft, uid), 'provider_unavailable', {
        reason: 'rate_limited',
        status: 429,
      });
      assert.equal(puts() - before, 1);
      assert.equal(await viaProxy.writer!.findCreated(proxied, calendar, uid), undefined);
    });

    it('a 503 on DELETE is provider_unavailable after one request; the event stays', async () => {
      const id = await writer.createEvent(account, work, draft, newProviderUid());
      const target = await targetOf(id);
      const before = proxy.count('DELETE');
      proxy.inject({ method: 'DELETE', path: /\.ics$/, status: 503 });
      await rejectsWith(viaProxy.writer!.deleteEvent(proxied, calendar, target), 'provider_unavailable', {
        reason: 'server_error',
      });
      assert.equal(proxy.count('DELETE') - before, 1);
      assert.equal((await read(id))?.facts.version, target.version);
    });

    it('a timeout before the server saw the PUT: provider_unavailable, nothing on the server', async () => {
      const uid = newProviderUid();
      proxy.inject({ method: 'PUT', phase: 'before', ...deadline.held() });
      await rejectsWith(viaProxy.writer!.createEvent(proxied, calendar, draft, uid), 'provider_unavailable', {
        reason: 'timeout',
      });
      await proxy.settled();
      assert.deepEqual(
        proxy.requests.filter((r) => r.path.endsWith(`/${uid}.ics`)).map((r) => [r.method, r.forwarded]),
        [['PUT', false]],
      );
      assert.equal(await viaProxy.writer!.findCreated(proxied, calendar, uid), undefined);
      assert.equal((await stored(`${uid}.ics`)).status, 404);
    });

    it('a timeout after the server applied the PUT: provider_unavailable, and findCreated finds the event', async () => {
      const uid = newProviderUid();
      proxy.inject({ method: 'PUT', phase: 'after', ...deadline.held() });
      await rejectsWith(viaProxy.writer!.createEvent(proxied, calendar, draft, uid), 'provider_unavailable', {
        reason: 'timeout',
      });
      await proxy.settled();
      const id = await viaProxy.writer!.findCreated(proxied, calendar, uid);
      assert.equal(id, `${uid}.ics#${uid}`);
      const made = await viaProxy.getEvent(proxied, calendar, id!);
      assert.deepEqual(
        [made?.title, made?.start, made?.duration],
        ['Planning', '2026-03-26T10:00:00', 'PT1H'],
      );
      assert.equal(proxy.count('PUT', new RegExp(`/${uid}\\.ics$`)), 1, 'one attempt only');
    });

    it('an update that timed out after being applied shows on a fresh read, and its old version is stale', async () => {
      const id = await writer.createEvent(account, work, draft, newProviderUid());
      const target = await targetOf(id);
      proxy.inject({ method: 'PUT', phase: 'after', ...deadline.held() });
      await rejectsWith(
        viaProxy.writer!.updateEvent(proxied, calendar, target, { title: 'Planning (moved)' }),
        'provider_unavailable',
        { reason: 'timeout' },
      );
      await proxy.settled();
      assert.equal((await read(id))?.title, 'Planning (moved)');
      await rejectsWith(
        viaProxy.writer!.updateEvent(proxied, calendar, target, { title: 'Again' }),
        'conflict',
        {
          reason: 'version',
        },
      );
    });
  });
});
