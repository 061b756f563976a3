/**
 * Google Calendar writes over HTTP against the fake Google: create (timed across a DST change,
 * all-day, once per uid), changes to single events, one occurrence and whole series, deletes,
 * answers to invitations, and the failures a write can meet (stale etag, 429, timeouts before
 * and after Google applied it, a read-only calendar).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProviderCalendar, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { TimeWindow } from '../../src/domain/window.ts';
import { AppError } from '../../src/errors.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { newProviderUid } from '../../src/lib/ids.ts';
import { createGoogleProvider } from '../../src/providers/google/adapter.ts';
import type { GoogleEvent } from '../../src/providers/google/wire.ts';
import type { AccountAccess, CredentialsOf, EventWriter } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { type FakeCalendarSeed, FakeGoogle } from '../fakes/google.ts';
import { TestDeadline } from '../helpers/deadline.ts';

const berlin = 'Europe/Berlin';
const me = 'person@example.com';
const boss = 'boss@example.org';
const local = (dateTime: string) => ({ dateTime, timeZone: berlin });

const primary: FakeCalendarSeed = {
  id: me,
  summary: me,
  timeZone: berlin,
  accessRole: 'owner',
  primary: true,
  events: [
    {
      // Mondays 09:00 Berlin, across the 2026-03-29 change to summer time.
      id: 'weekly',
      summary: 'Weekly sync',
      start: local('2026-03-16T09:00:00'),
      end: local('2026-03-16T09:30:00'),
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    },
    {
      id: 'notes',
      summary: 'Planning',
      description: 'Bring slides',
      location: 'Room 1',
      start: local('2026-03-18T14:00:00'),
      end: local('2026-03-18T15:00:00'),
    },
    {
      id: 'invite',
      summary: 'Budget review',
      organizer: { email: boss },
      attendees: [
        { email: boss, organizer: true, responseStatus: 'accepted' },
        { email: me, self: true, responseStatus: 'needsAction' },
        { email: 'carol@example.org', responseStatus: 'tentative', comment: 'Maybe' },
      ],
      start: local('2026-03-19T10:00:00'),
      end: local('2026-03-19T11:00:00'),
    },
    {
      id: 'retro',
      summary: 'Retro',
      organizer: { email: boss },
      attendees: [
        { email: boss, organizer: true, responseStatus: 'accepted' },
        { email: me, self: true, responseStatus: 'needsAction' },
      ],
      start: local('2026-03-20T16:00:00'),
      end: local('2026-03-20T17:00:00'),
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    },
    {
      id: 'townhall',
      summary: 'Town hall',
      organizer: { email: boss },
      attendees: [{ email: boss, organizer: true, responseStatus: 'accepted' }],
      start: local('2026-03-24T12:00:00'),
      end: local('2026-03-24T13:00:00'),
    },
  ],
};

const shared: FakeCalendarSeed = {
  id: 'team@group.calendar.google.com',
  summary: 'Team',
  timeZone: berlin,
  accessRole: 'reader',
  events: [
    {
      id: 'offsite',
      summary: 'Offsite',
      start: local('2026-03-25T09:00:00'),
      end: local('2026-03-25T17:00:00'),
    },
  ],
};

const window: TimeWindow = {
  start: Temporal.Instant.from('2026-03-16T00:00:00Z'),
  end: Temporal.Instant.from('2026-04-13T00:00:00Z'),
};

type GoogleAccount = AccountAccess<CredentialsOf<'google'>>;

describe('Google Calendar writes', () => {
  let google: FakeGoogle;
  let provider: ReturnType<typeof createGoogleProvider>;
  let writer: EventWriter<'google'>;
  let account: GoogleAccount;
  let calendars: ProviderCalendar[];

  const calendar = (id = me) => calendars.find((c) => c.providerCalendarId === id)!;
  const read = (id: string, recurrenceId?: string) =>
    provider.getEvent(account, calendar(), id, recurrenceId);
  const fresh = async (id: string, recurrenceId?: string) => {
    const occurrence = await read(id, recurrenceId);
    assert.ok(occurrence, `${id} ${recurrenceId ?? ''} exists`);
    return occurrence;
  };
  const targetOf = (occurrence: ProviderOccurrence) => ({
    providerEventId: occurrence.providerEventId,
    recurrenceId: occurrence.recurrenceId,
    version: occurrence.facts.version!,
  });
  const listed = async (id: string, calendarId = me) =>
    (await provider.listEvents(account, calendar(calendarId), window)).occurrences.filter(
      (o) => o.providerEventId === id,
    );
  const stored = (id: string, calendarId = me): GoogleEvent | undefined => {
    const found = google.calendars.find(calendarId, id);
    return found === undefined || found.deleted ? undefined : found.event;
  };
  const writesFrom = (from: number) =>
    google.requests.slice(from).filter((r) => r.method !== 'GET' && r.url.startsWith('/calendar/v3/'));
  const rejects = (promise: Promise<unknown>, code: string, details: Record<string, unknown> = {}) =>
    assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.code, code, error.message);
      for (const [key, value] of Object.entries(details)) assert.equal(error.details?.[key], value, key);
      return true;
    });

  before(async () => {
    google = await FakeGoogle.start({ user: { email: me }, calendars: [primary, shared] });
    provider = createGoogleProvider({
      http: new ProviderHttp({ sleep: async () => {} }),
      config: google.config(),
      clock: systemClock,
    });
    assert.ok(provider.writer);
    writer = provider.writer;
    account = {
      accountKey: 'acc_google',
      credentials: { kind: 'google', ...google.oauth.issue() },
      saveCredentials: async () => {},
    };
    calendars = await provider.listCalendars(account);
  });
  after(() => google.close());

  describe('create', () => {
    it('creates a timed event in its zone across the DST change, with the uid as its id', async () => {
      const uid = newProviderUid();
      const from = google.requests.length;
      // 01:30 to 03:30 on the night the clocks skip 02:00–03:00: one hour elapses.
      const id = await writer.createEvent(
        account,
        calendar(),
        {
          title: 'Night shift',
          description: 'Check the backups',
          location: 'Server room',
          freeBusyStatus: 'free',
          privacy: 'private',
          timing: {
            allDay: false,
            start: '2026-03-29T01:30:00',
            end: '2026-03-29T03:30:00',
            timeZone: berlin,
          },
        },
        uid,
      );
      assert.equal(id, uid);
      const [insert] = writesFrom(from);
      assert.equal(insert?.method, 'POST');
      assert.match(
        insert?.url ?? '',
        /^\/calendar\/v3\/calendars\/person%40example\.com\/events\?sendUpdates=all&conferenceDataVersion=1$/,
      );
      assert.deepEqual(insert?.body, {
        id: uid,
        summary: 'Night shift',
        description: 'Check the backups',
        location: 'Server room',
        transparency: 'transparent',
        visibility: 'private',
        start: { dateTime: '2026-03-29T01:30:00', timeZone: berlin },
        end: { dateTime: '2026-03-29T03:30:00', timeZone: berlin },
      });
      assert.deepEqual(stored(uid)?.end, { dateTime: '2026-03-29T03:30:00+02:00', timeZone: berlin });

      const occurrence = await fresh(id);
      assert.deepEqual(
        {
          start: occurrence.start,
          timeZone: occurrence.timeZone,
          duration: occurrence.duration,
          showWithoutTime: occurrence.showWithoutTime,
          title: occurrence.title,
          description: occurrence.description,
          locations: occurrence.locations,
          freeBusyStatus: occurrence.freeBusyStatus,
          privacy: occurrence.privacy,
          recurring: occurrence.facts.recurring,
        },
        {
          start: '2026-03-29T01:30:00',
          timeZone: berlin,
          duration: 'PT1H',
          showWithoutTime: false,
          title: 'Night shift',
          description: 'Check the backups',
          locations: [{ name: 'Server room' }],
          freeBusyStatus: 'free',
          privacy: 'private',
          recurring: false,
        },
      );
      assert.deepEqual(await listed(id), [occurrence]);
    });

    it('creates an all-day event over two days', async () => {
      const id = await writer.createEvent(
        account,
        calendar(),
        { title: 'Conference', timing: { allDay: true, startDate: '2026-04-02', endDate: '2026-04-04' } },
        newProviderUid(),
      );
      const occurrence = await fresh(id);
      assert.equal(occurrence.start, '2026-04-02T00:00:00');
      assert.equal(occurrence.duration, 'P2D');
      assert.equal(occurrence.showWithoutTime, true);
      assert.equal(occurrence.timeZone, undefined);
      assert.deepEqual(stored(id)?.start, { date: '2026-04-02' });
      assert.equal((await listed(id)).length, 1);
    });

    it('refuses a second create with the same uid, even once the first is deleted', async () => {
      const uid = newProviderUid();
      const draft = {
        title: 'Once',
        timing: {
          allDay: false as const,
          start: '2026-04-01T12:00:00',
          end: '2026-04-01T13:00:00',
          timeZone: berlin,
        },
      };
      assert.equal(await writer.findCreated(account, calendar(), uid), undefined);
      const id = await writer.createEvent(account, calendar(), draft, uid);
      await rejects(writer.createEvent(account, calendar(), draft, uid), 'conflict', { reason: 'exists' });
      assert.equal(google.calendars.storedEvents(me).filter((e) => e.event.id === uid).length, 1);
      assert.equal(await writer.findCreated(account, calendar(), uid), id);

      const created = await fresh(id);
      await writer.deleteEvent(account, calendar(), targetOf(created));
      assert.equal(await writer.findCreated(account, calendar(), uid), undefined);
      await rejects(writer.createEvent(account, calendar(), draft, uid), 'conflict', { reason: 'exists' });
      assert.equal(await read(id), undefined);
    });
  });

  describe('update', () => {
    it('changes a single event: title, time and removed description and location, conditional on its etag', async () => {
      const before = await fresh('notes');
      const from = google.requests.length;
      await writer.updateEvent(account, calendar(), targetOf(before), {
        title: 'Planning (moved)',
        description: null,
        location: null,
        timing: {
          allDay: false,
          start: '2026-03-18T16:00:00',
          end: '2026-03-18T17:30:00',
          timeZone: 'Europe/London',
        },
      });
      const writes = writesFrom(from);
      assert.deepEqual(
        writes.map((r) => [r.method, r.url.split('?')[0], r.ifMatch]),
        [['PATCH', '/calendar/v3/calendars/person%40example.com/events/notes', before.facts.version]],
      );
      assert.deepEqual(writes[0]?.body, {
        summary: 'Planning (moved)',
        description: '',
        location: '',
        start: { dateTime: '2026-03-18T16:00:00', timeZone: 'Europe/London', date: null },
        end: { dateTime: '2026-03-18T17:30:00', timeZone: 'Europe/London', date: null },
      });
      const after = await fresh('notes');
      assert.equal(after.title, 'Planning (moved)');
      assert.equal(after.description, undefined);
      assert.equal(after.locations, undefined);
      assert.deepEqual(
        [after.start, after.timeZone, after.duration],
        ['2026-03-18T16:00:00', 'Europe/London', 'PT1H30M'],
      );
      assert.notEqual(after.facts.version, before.facts.version, 'a new etag');
    });

    it('turns a timed event into an all-day one', async () => {
      const before = await fresh('notes');
      await writer.updateEvent(account, calendar(), targetOf(before), {
        timing: { allDay: true, startDate: '2026-03-18', endDate: '2026-03-19' },
      });
      const after = await fresh('notes');
      assert.deepEqual(
        [after.start, after.duration, after.showWithoutTime],
        ['2026-03-18T00:00:00', 'P1D', true],
      );
      assert.deepEqual(stored('notes')?.start, { date: '2026-03-18' });
    });

    it('changes one occurrence of a series through its instance, leaving the others', async () => {
      const [, second] = await listed('weekly');
      assert.equal(second?.recurrenceId, '2026-03-23T08:00:00Z');
      const before = await fresh('weekly', second!.recurrenceId);
      const from = google.requests.length;
      await writer.updateEvent(account, calendar(), targetOf(before), {
        title: 'Weekly sync (late)',
        timing: { allDay: false, start: '2026-03-23T10:30:00', end: '2026-03-23T11:00:00', timeZone: berlin },
      });
      assert.deepEqual(
        writesFrom(from).map((r) => [r.method, r.url.split('?')[0], r.ifMatch]),
        [
          [
            'PATCH',
            '/calendar/v3/calendars/person%40example.com/events/weekly_20260323T080000Z',
            before.facts.version,
          ],
        ],
      );
      assert.deepEqual(
        (await listed('weekly')).map((o) => [o.title, o.start, o.recurrenceId]),
        [
          ['Weekly sync', '2026-03-16T09:00:00', '2026-03-16T08:00:00Z'],
          ['Weekly sync (late)', '2026-03-23T10:30:00', '2026-03-23T08:00:00Z'],
          ['Weekly sync', '2026-03-30T09:00:00', '2026-03-30T07:00:00Z'],
          ['Weekly sync', '2026-04-06T09:00:00', '2026-04-06T07:00:00Z'],
        ],
      );
      assert.equal(stored('weekly')?.summary, 'Weekly sync', 'the master is untouched');
    });

    it('changes the whole series against the master etag; the changed occurrence keeps its own title', async () => {
      const series = await fresh('weekly');
      assert.equal(series.facts.version, stored('weekly')?.etag, 'the master etag, for a series write');
      const first = await fresh('weekly', series.recurrenceId);
      assert.notEqual(first.facts.version, series.facts.version, 'an occurrence has its own etag');
      await writer.updateEvent(account, calendar(), targetOf({ ...series, recurrenceId: undefined }), {
        title: 'Team sync',
      });
      assert.deepEqual(
        (await listed('weekly')).map((o) => [o.title, o.start]),
        [
          ['Team sync', '2026-03-16T09:00:00'],
          ['Weekly sync (late)', '2026-03-23T10:30:00'],
          ['Team sync', '2026-03-30T09:00:00'],
          ['Team sync', '2026-04-06T09:00:00'],
        ],
      );
      // The occurrence's etag changed with its series: a write with the old one is refused.
      await rejects(
        writer.updateEvent(account, calendar(), targetOf(first), { title: 'Stale' }),
        'conflict',
        {
          reason: 'version',
        },
      );
    });

    it('refuses a stale etag with conflict/version and changes nothing', async () => {
      const before = await fresh('townhall');
      google.calendars.changeEvent(me, 'townhall', { summary: 'Town hall (moved by Boss)' });
      await rejects(
        writer.updateEvent(account, calendar(), targetOf(before), { title: 'Town hall!' }),
        'conflict',
        { reason: 'version', status: 412 },
      );
      assert.equal(stored('townhall')?.summary, 'Town hall (moved by Boss)');
    });

    it('answers not_found for an event deleted meanwhile', async () => {
      const id = await writer.createEvent(
        account,
        calendar(),
        { title: 'Short-lived', timing: { allDay: true, startDate: '2026-04-08', endDate: '2026-04-09' } },
        newProviderUid(),
      );
      const created = await fresh(id);
      google.calendars.deleteEvent(me, id);
      await rejects(writer.updateEvent(account, calendar(), targetOf(created), { title: 'x' }), 'not_found');
      await rejects(writer.deleteEvent(account, calendar(), targetOf(created)), 'not_found');
    });
  });

  describe('delete', () => {
    it('deletes one occurrence alone, then the whole series', async () => {
      const occurrences = await listed('weekly');
      const third = await fresh('weekly', occurrences[2]!.recurrenceId);
      const from = google.requests.length;
      await writer.deleteEvent(account, calendar(), targetOf(third));
      assert.deepEqual(
        writesFrom(from).map((r) => [r.method, r.url.split('?')[0], r.ifMatch, r.status]),
        [
          [
            'DELETE',
            '/calendar/v3/calendars/person%40example.com/events/weekly_20260330T070000Z',
            third.facts.version,
            204,
          ],
        ],
      );
      assert.equal(await read('weekly', third.recurrenceId), undefined);
      assert.deepEqual(
        (await listed('weekly')).map((o) => o.start),
        ['2026-03-16T09:00:00', '2026-03-23T10:30:00', '2026-04-06T09:00:00'],
      );

      const series = await fresh('weekly');
      await writer.deleteEvent(account, calendar(), {
        providerEventId: 'weekly',
        version: series.facts.version!,
      });
      assert.equal(await read('weekly'), undefined);
      assert.deepEqual(await listed('weekly'), []);
    });
  });

  describe('respond', () => {
    it('accepts with a comment: the own answer changes, the other attendees stay', async () => {
      const before = await fresh('invite');
      assert.equal(before.responseStatus, 'needs-action');
      const from = google.requests.length;
      await writer.respondToEvent(account, calendar(), targetOf(before), {
        response: 'accepted',
        comment: 'On my way',
      });
      const [patch] = writesFrom(from);
      assert.deepEqual([patch?.method, patch?.ifMatch], ['PATCH', before.facts.version]);
      assert.equal((await fresh('invite')).responseStatus, 'accepted');
      assert.deepEqual(stored('invite')?.attendees, [
        { email: boss, organizer: true, responseStatus: 'accepted' },
        { email: me, self: true, responseStatus: 'accepted', comment: 'On my way' },
        { email: 'carol@example.org', responseStatus: 'tentative', comment: 'Maybe' },
      ]);
    });

    it('declines one occurrence of an invited series alone', async () => {
      const [, second] = await listed('retro');
      const occurrence = await fresh('retro', second!.recurrenceId);
      await writer.respondToEvent(account, calendar(), targetOf(occurrence), { response: 'declined' });
      assert.deepEqual(
        (await listed('retro')).map((o) => o.responseStatus),
        ['needs-action', 'declined', 'needs-action'],
      );
    });

    it('refuses an answer for an event the user is not invited to', async () => {
      const townhall = await fresh('townhall');
      await rejects(
        writer.respondToEvent(account, calendar(), targetOf(townhall), { response: 'tentative' }),
        'access_denied',
      );
    });
  });

  describe('guests', () => {
    const noticesFrom = (from: number) =>
      google.calendars.notices.slice(from).map((notice) => [notice.kind, notice.to]);

    it('invites on insert (sendUpdates=all): attendees with an e-mail each; the calendar organises', async () => {
      const uid = newProviderUid();
      const [from, notices] = [google.requests.length, google.calendars.notices.length];
      const id = await writer.createEvent(
        account,
        calendar(),
        {
          title: 'Kick-off',
          timing: {
            allDay: false,
            start: '2026-03-23T10:00:00',
            end: '2026-03-23T11:00:00',
            timeZone: berlin,
          },
          guests: {
            add: [
              { email: 'ann@example.org', name: 'Ann', optional: false },
              { email: 'ben@example.org', optional: true },
            ],
            remove: [],
          },
        },
        uid,
      );
      const [insert] = writesFrom(from);
      assert.match(insert?.url ?? '', /\?sendUpdates=all&conferenceDataVersion=1$/);
      assert.deepEqual((insert?.body as GoogleEvent | undefined)?.attendees, [
        { email: 'ann@example.org', displayName: 'Ann' },
        { email: 'ben@example.org', optional: true },
      ]);
      assert.deepEqual(noticesFrom(notices), [
        ['invitation', 'ann@example.org'],
        ['invitation', 'ben@example.org'],
      ]);
      const made = await fresh(id);
      assert.deepEqual(
        [made.organizer, made.attendees, made.facts.organizer, made.facts.attendees],
        [
          { email: me, name: me, self: true },
          [
            { email: 'ann@example.org', name: 'Ann', optional: false, response: 'needs-action', self: false },
            { email: 'ben@example.org', optional: true, response: 'needs-action', self: false },
          ],
          'self',
          true,
        ],
      );
      assert.deepEqual(await writer.scheduling(account, calendar()), {
        delivers: true,
        quiet: { update: true, delete: true },
        selfAddresses: [me],
      });
    });

    it('changes the list Google holds, answers kept; sendUpdates=none tells nobody', async () => {
      const uid = newProviderUid();
      const id = await writer.createEvent(
        account,
        calendar(),
        {
          title: 'Sync',
          timing: {
            allDay: false,
            start: '2026-03-23T12:00:00',
            end: '2026-03-23T12:30:00',
            timeZone: berlin,
          },
          guests: { add: [{ email: 'ann@example.org', optional: false }], remove: [] },
        },
        uid,
      );
      google.calendars.changeEvent(me, id, {
        attendees: [{ email: 'ann@example.org', responseStatus: 'accepted', comment: 'Yes' }],
      });
      const [from, notices] = [google.requests.length, google.calendars.notices.length];
      const before = await fresh(id);
      await writer.updateEvent(
        account,
        calendar(),
        targetOf(before),
        { guests: { add: [{ email: 'cat@example.org', optional: false }], remove: [] } },
        'quiet',
      );
      const [patch] = writesFrom(from);
      assert.match(patch?.url ?? '', /\?sendUpdates=none$/);
      assert.equal(patch?.ifMatch, before.facts.version);
      assert.deepEqual(stored(id)?.attendees, [
        { email: 'ann@example.org', responseStatus: 'accepted', comment: 'Yes' },
        { email: 'cat@example.org' },
      ]);
      assert.deepEqual(noticesFrom(notices), [], 'nobody was told');

      const told = google.calendars.notices.length;
      await writer.updateEvent(
        account,
        calendar(),
        targetOf(await fresh(id)),
        { title: 'Sync (moved)', guests: { add: [], remove: ['ANN@example.org'] } },
        'send',
      );
      assert.deepEqual(noticesFrom(told), [
        ['update', 'cat@example.org'],
        ['cancellation', 'ann@example.org'],
      ]);
      const quietly = google.calendars.notices.length;
      await writer.deleteEvent(account, calendar(), targetOf(await fresh(id)), 'quiet');
      assert.equal(stored(id), undefined);
      assert.deepEqual(noticesFrom(quietly), []);
    });

    it('cancels for every guest when a deletion is sent', async () => {
      const uid = newProviderUid();
      const id = await writer.createEvent(
        account,
        calendar(),
        {
          title: 'Lunch',
          timing: {
            allDay: false,
            start: '2026-03-23T13:00:00',
            end: '2026-03-23T14:00:00',
            timeZone: berlin,
          },
          guests: { add: [{ email: 'ann@example.org', optional: false }], remove: [] },
        },
        uid,
      );
      const [from, notices] = [google.requests.length, google.calendars.notices.length];
      await writer.deleteEvent(account, calendar(), targetOf(await fresh(id)), 'send');
      assert.match(writesFrom(from)[0]?.url ?? '', /\?sendUpdates=all$/);
      assert.deepEqual(noticesFrom(notices), [['cancellation', 'ann@example.org']]);
    });

    it('refuses an attendee without an e-mail, as Google does', async () => {
      const response = await fetch(
        `${google.config().apiBaseUrl}/calendars/${encodeURIComponent(me)}/events`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${account.credentials.accessToken}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            summary: 'x',
            start: local('2026-03-23T09:00:00'),
            end: local('2026-03-23T10:00:00'),
            attendees: [{ displayName: 'Nobody' }],
          }),
        },
      );
      assert.equal(response.status, 400);
      assert.match(await response.text(), /Missing attendee email/);
    });
  });

  describe('the fake Google keeps to the documented write rules', () => {
    const api = async (
      method: string,
      path: string,
      body?: unknown,
      token = account.credentials.accessToken,
    ) => {
      const response = await fetch(
        `${google.url}/calendar/v3/calendars/${encodeURIComponent(me)}/events${path}`,
        {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        },
      );
      const text = await response.text();
      const answer =
        text === '' ? {} : (JSON.parse(text) as { error?: { errors?: Array<{ reason?: string }> } });
      return [response.status, answer.error?.errors?.[0]?.reason];
    };
    const hour = { start: local('2026-04-01T08:00:00'), end: local('2026-04-01T09:00:00') };

    it('refuses bad ids, times without a zone, empty ranges and unknown sendUpdates', async () => {
      assert.deepEqual(await api('POST', '', { id: 'UPPER-case', ...hour }), [400, 'invalid']);
      assert.deepEqual(
        await api('POST', '', { id: 'abcd', ...hour }),
        [400, 'invalid'],
        'at least 5 characters',
      );
      assert.deepEqual(await api('POST', '', { start: { dateTime: '2026-04-01T08:00:00' }, end: hour.end }), [
        400,
        'invalid',
      ]);
      assert.deepEqual(await api('POST', '', { start: hour.end, end: hour.start }), [400, 'timeRangeEmpty']);
      assert.deepEqual(await api('POST', '', { start: { date: '2026-04-01' }, end: hour.end }), [
        400,
        'invalid',
      ]);
      assert.deepEqual(await api('POST', '?sendUpdates=everyone', hour), [400, 'invalidParameter']);
      const readOnly = google.oauth.issue(['https://www.googleapis.com/auth/calendar.readonly']).accessToken;
      assert.deepEqual(await api('POST', '', hour, readOnly), [403, 'insufficientPermissions']);
    });

    it('answers 410 for a deleted event and for a cancelled instance, 404 for an unknown one', async () => {
      const id = newProviderUid();
      assert.deepEqual(await api('POST', '', { id, ...hour }), [200, undefined]);
      assert.deepEqual(await api('DELETE', `/${id}`), [204, undefined]);
      assert.deepEqual(await api('DELETE', `/${id}`), [410, 'deleted']);
      assert.deepEqual(await api('PATCH', `/${id}`, { summary: 'x' }), [410, 'deleted']);
      assert.deepEqual(await api('POST', '', { id, ...hour }), [409, 'duplicate']);
      assert.deepEqual(await api('DELETE', '/retro_20260327T150000Z'), [204, undefined]);
      assert.deepEqual(await api('DELETE', '/retro_20260327T150000Z'), [410, 'deleted']);
      assert.deepEqual(await api('PATCH', '/nothing-here', { summary: 'x' }), [404, 'notFound']);
    });
  });

  describe('failures', () => {
    it('a read-only calendar: calendar_read_only, nothing made', async () => {
      const offsite = await provider.getEvent(account, calendar(shared.id), 'offsite');
      assert.ok(offsite);
      await rejects(
        writer.updateEvent(account, calendar(shared.id), targetOf(offsite), { title: 'Ours now' }),
        'calendar_read_only',
        { status: 403, googleReason: 'requiredAccessLevel' },
      );
      const uid = newProviderUid();
      await rejects(
        writer.createEvent(
          account,
          calendar(shared.id),
          { title: 'x', timing: { allDay: true, startDate: '2026-04-01', endDate: '2026-04-02' } },
          uid,
        ),
        'calendar_read_only',
      );
      assert.equal(stored('offsite', shared.id)?.summary, 'Offsite');
      assert.equal(stored(uid, shared.id), undefined);
    });

    it('a 429: provider_unavailable rate_limited, sent once, nothing changed', async () => {
      const before = await fresh('invite');
      const from = google.requests.length;
      google.inject({ method: 'PATCH', status: 429, retryAfter: '7' });
      await assert.rejects(
        writer.updateEvent(account, calendar(), targetOf(before), { title: 'Budget' }),
        (error: AppError) => {
          assert.deepEqual(
            [error.code, error.details?.reason, error.retryAfter],
            ['provider_unavailable', 'rate_limited', 7],
          );
          return true;
        },
      );
      assert.deepEqual(
        writesFrom(from).map((r) => [r.method, r.status]),
        [['PATCH', 429]],
      );
      assert.equal(stored('invite')?.summary, 'Budget review');
    });

    it('a 403 usage limit and a 503 are provider_unavailable, each sent once', async () => {
      const before = await fresh('invite');
      const from = google.requests.length;
      google.inject({ method: 'PATCH', status: 403, reason: 'rateLimitExceeded' });
      await rejects(
        writer.updateEvent(account, calendar(), targetOf(before), { title: 'x' }),
        'provider_unavailable',
        {
          reason: 'rate_limited',
        },
      );
      google.inject({ method: 'DELETE', status: 503 });
      await rejects(writer.deleteEvent(account, calendar(), targetOf(before)), 'provider_unavailable', {
        reason: 'server_error',
        status: 503,
      });
      assert.deepEqual(
        writesFrom(from).map((r) => [r.method, r.status]),
        [
          ['PATCH', 403],
          ['DELETE', 503],
        ],
      );
      assert.equal(stored('invite')?.summary, 'Budget review');
    });

    it('refreshes an access token Google refused (401) and sends the write again, once', async () => {
      const patient: GoogleAccount = {
        ...account,
        credentials: { kind: 'google', ...google.oauth.issue() },
        saveCredentials: async () => {},
      };
      const before = await provider.getEvent(patient, calendar(), 'invite');
      google.oauth.expireAccessTokens();
      const from = google.requests.length;
      await writer.updateEvent(patient, calendar(), targetOf(before!), { location: 'Room 9' });
      assert.deepEqual(
        google.requests.slice(from).map((r) => `${r.method} ${r.url.split('?')[0]} ${r.status}`),
        [
          'PATCH /calendar/v3/calendars/person%40example.com/events/invite 401',
          'POST /token 200',
          'PATCH /calendar/v3/calendars/person%40example.com/events/invite 200',
        ],
      );
      assert.equal(stored('invite')?.location, 'Room 9');
      account = { ...account, credentials: { kind: 'google', ...google.oauth.issue() } };
    });

    describe('timeouts', () => {
      let impatient: ReturnType<typeof createGoogleProvider>;
      const deadline = new TestDeadline();
      before(() => {
        impatient = createGoogleProvider({
          http: new ProviderHttp({ deadline: deadline.signal, sleep: async () => {} }),
          config: google.config(),
          clock: systemClock,
        });
      });

      it('times out before Google applied the change: provider_unavailable timeout, nothing changed', async () => {
        const before = await fresh('invite');
        const from = google.requests.length;
        google.inject({ method: 'PATCH', phase: 'before', ...deadline.held() });
        await rejects(
          impatient.writer!.updateEvent(account, calendar(), targetOf(before), { title: 'Too late' }),
          'provider_unavailable',
          { reason: 'timeout' },
        );
        await google.settled();
        assert.equal(stored('invite')?.summary, 'Budget review');
        assert.equal(stored('invite')?.etag, before.facts.version);
        assert.deepEqual(
          writesFrom(from).map((r) => [r.method, r.status]),
          [['PATCH', 0]],
          'sent once, and dropped',
        );
      });

      it('times out after Google applied the change: provider_unavailable timeout, the change is there', async () => {
        const before = await fresh('invite');
        google.inject({ method: 'PATCH', phase: 'after', ...deadline.held() });
        await rejects(
          impatient.writer!.updateEvent(account, calendar(), targetOf(before), { title: 'Budget (final)' }),
          'provider_unavailable',
          { reason: 'timeout' },
        );
        assert.equal((await fresh('invite')).title, 'Budget (final)');
        await google.settled();
      });

      it('a create that timed out after Google made it: findCreated finds it, a repeat is refused', async () => {
        const uid = newProviderUid();
        const draft = {
          title: 'Late lunch',
          timing: {
            allDay: false as const,
            start: '2026-04-01T12:00:00',
            end: '2026-04-01T13:00:00',
            timeZone: berlin,
          },
        };
        google.inject({ method: 'POST', phase: 'after', ...deadline.held() });
        await rejects(
          impatient.writer!.createEvent(account, calendar(), draft, uid),
          'provider_unavailable',
          {
            reason: 'timeout',
          },
        );
        assert.equal(await writer.findCreated(account, calendar(), uid), uid);
        await rejects(writer.createEvent(account, calendar(), draft, uid), 'conflict', { reason: 'exists' });
        assert.equal((await listed(uid)).length, 1);
        await google.settled();
      });

      it('a create that timed out before Google made it: findCreated finds nothing', async () => {
        const uid = newProviderUid();
        google.inject({ method: 'POST', phase: 'before', ...deadline.held() });
        await rejects(
          impatient.writer!.createEvent(
            account,
            calendar(),
            { title: 'Never', timing: { allDay: true, startDate: '2026-04-03', endDate: '2026-04-04' } },
            uid,
          ),
          'provider_unavailable',
          { reason: 'timeout' },
        );
        await google.settled();
        assert.equal(await writer.findCreated(account, calendar(), uid), undefined);
        assert.equal(stored(uid), undefined);
      });
    });
  });
});
