/**
 * The CalDAV adapter against a real Radicale: discovery, connect-time errors, calendars with
 * their properties and rights, and real-world iCalendar files coming back as occurrences.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { ProviderCalendar, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { connectCaldav, createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import type { AccountAccess, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { rejectsWith } from '../helpers/appErrors.ts';
import {
  basicAuth,
  mkcalendar,
  putIcs,
  type RadicaleServer,
  radicaleMissing,
  readOnlyCollectionRights,
  startRadicale,
} from '../helpers/radicale.ts';

const skip = radicaleMissing();

const fixture = (name: string) =>
  readFile(new URL(`../../../shared/fixtures/ical/${name}`, import.meta.url), 'utf8');

const alice = { username: 'alice', password: 'alice-password' };
const admin = { username: 'admin', password: 'admin-password' };
/** A user whose login is an e-mail address: that address counts as hers when reading ORGANIZER. */
const carol = { username: 'carol@example.org', password: 'carol-password' };

const planning = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Test//Planning//EN',
  'BEGIN:VEVENT',
  'UID:planning@example.org',
  'DTSTAMP:20260301T000000Z',
  'DTSTART:20260324T090000Z',
  'DURATION:PT1H',
  'SUMMARY:Planning',
  'ORGANIZER:mailto:Carol@Example.org',
  'ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:alice@example.org',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

// Radicale's from_file rights (first matching section wins): alice may only read
// alice/holidays, which the admin creates and fills; otherwise owner-only like `owner_only`.
const rights = readOnlyCollectionRights('alice', 'alice/holidays');

const vtimezone = (tzid: string) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'BEGIN:VTIMEZONE',
    `TZID:${tzid}`,
    'END:VTIMEZONE',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

const at = (iso: string) => Temporal.Instant.from(iso);

/** [start, UID] pairs in start order: what a person would check on a calendar page. */
const starts = (occurrences: ProviderOccurrence[]) =>
  occurrences
    .map((o) => [`${o.start} ${o.timeZone ?? 'floating'}`, o.providerEventId.split('#')[1]] as const)
    .sort(([a], [b]) => a.localeCompare(b));

describe('CalDAV against Radicale', { skip }, () => {
  let radicale: RadicaleServer;
  let home: string;
  let html: Server;
  let htmlUrl: string;
  const requests: string[] = [];
  const http = new ProviderHttp({
    maxAttempts: 1,
    timeoutMs: 5000,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      requests.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname} ${response.status}`);
      return response;
    },
  });
  const provider = createCaldavProvider({ http });
  const saved: CredentialsOf<'caldav'>[] = [];
  const accountWith = (credentials: CredentialsOf<'caldav'>): AccountAccess<CredentialsOf<'caldav'>> => ({
    accountKey: 'acc_caldav_test',
    credentials,
    saveCredentials: async (changed) => {
      saved.push(changed);
    },
  });
  let account: AccountAccess<CredentialsOf<'caldav'>>;
  let calendars: ProviderCalendar[];
  const etags = new Map<string, string | null>();
  const calendarNamed = (name: string) => calendars.find((c) => c.name === name)!;

  before(async () => {
    radicale = await startRadicale({
      users: {
        [alice.username]: alice.password,
        [admin.username]: admin.password,
        [carol.username]: carol.password,
      },
      rights,
    });
    home = `${radicale.url}alice/`;
    html = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>Welcome</title>');
    });
    await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
    htmlUrl = `http://127.0.0.1:${(html.address() as { port: number }).port}/`;

    // Alice's first request makes Radicale create her principal collection.
    const connection = await connectCaldav({ http }, { serverUrl: radicale.url, ...alice });
    account = accountWith(connection.credentials);
    await mkcalendar(`${home}work/`, alice, {
      displayName: 'Work',
      color: '#E78074FF',
      timeZone: vtimezone('Europe/Berlin'),
    });
    await mkcalendar(`${home}school/`, alice, { displayName: 'School' });
    await mkcalendar(`${home}tasks/`, alice, { displayName: 'Tasks', components: ['VTODO'] });
    await mkcalendar(`${home}holidays/`, admin, {
      displayName: 'Holidays',
      color: '#3366cc',
      timeZone: vtimezone('/freeassociation.sourceforge.net/Tzfile/America/Chicago'),
    });
    for (const [calendar, file, auth] of [
      ['work', 'recurring__each_week_but_two_deleted.ics', alice],
      ['work', 'recurring__recurring_events_moved.ics', alice],
      ['work', 'recurring__issue_179_example.ics', alice],
      ['school', 'recurring__issue_48_dst.ics', alice],
      ['holidays', 'tsdav__1.ics', admin],
    ] as const) {
      for (const [uid, { etag }] of await putIcs(`${home}${calendar}/`, auth, await fixture(file))) {
        etags.set(uid, etag);
      }
    }
    calendars = await provider.listCalendars(account);
  });
  after(async () => {
    await radicale?.stop();
    html?.close();
  });

  describe('connecting', () => {
    it('finds the calendar home through /.well-known/caldav', async () => {
      requests.length = 0;
      const { credentials } = await connectCaldav({ http }, { serverUrl: radicale.url, ...alice });
      assert.equal(credentials.calendarHomeUrl, home);
      assert.equal(credentials.serverUrl, radicale.url);
      // RFC 6764: Radicale answers the well-known URI with a redirect to its root, which we follow.
      assert.deepEqual(requests.slice(0, 3), [
        'PROPFIND /.well-known/caldav 301',
        'PROPFIND / 207',
        'PROPFIND /alice/ 207',
      ]);
    });

    it('accepts the calendar home itself as the server address', async () => {
      requests.length = 0;
      const { credentials, calendars: found } = await connectCaldav({ http }, { serverUrl: home, ...alice });
      assert.equal(credentials.calendarHomeUrl, home);
      assert.equal(requests[0], 'PROPFIND /alice/ 207');
      assert.deepEqual(found.map((c) => c.name).sort(), ['Holidays', 'School', 'Work']);
    });

    it('names the password field when the server refuses the credentials', async () => {
      await rejectsWith(
        connectCaldav({ http }, { serverUrl: radicale.url, username: 'alice', password: 'wrong' }),
        'invalid_request',
        (error) => {
          assert.equal(error.details?.field, 'password');
          assert.match(error.message, /did not accept this username and password/);
        },
      );
    });

    it('says so when the address is not a CalDAV server', async () => {
      await rejectsWith(
        connectCaldav({ http }, { serverUrl: htmlUrl, ...alice }),
        'invalid_request',
        (error) => {
          assert.equal(error.details?.field, 'serverUrl');
          assert.match(error.message, /No CalDAV server answered at 127\.0\.0\.1:\d+/);
        },
      );
      await rejectsWith(
        connectCaldav({ http }, { serverUrl: 'ftp://example.org/', ...alice }),
        'invalid_request',
        (error) => assert.equal(error.details?.field, 'serverUrl'),
      );
    });

    it('reports an unreachable server as no CalDAV server at the address', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as { port: number }).port;
      await new Promise((resolve) => closed.close(resolve));
      await rejectsWith(
        connectCaldav({ http }, { serverUrl: `http://127.0.0.1:${port}/`, ...alice }),
        'invalid_request',
        (error) => assert.match(error.message, /No CalDAV server answered at 127\.0\.0\.1:\d+/),
      );
    });

    it('asks to reconnect when a stored account is refused later', async () => {
      const stale = accountWith({ ...account.credentials, password: 'changed-since' });
      await rejectsWith(provider.listCalendars(stale), 'reconnect_required');
      await rejectsWith(
        provider.listEvents(stale, calendarNamed('Work'), {
          start: at('2019-03-01T00:00:00Z'),
          end: at('2019-03-08T00:00:00Z'),
        }),
        'reconnect_required',
      );
    });
  });

  describe('calendars', () => {
    it('lists event calendars with their names, colours, zones and rights', () => {
      const byName = Object.fromEntries(calendars.map(({ primary: _, ...c }) => [c.name, c]));
      assert.deepEqual(byName, {
        Work: {
          providerCalendarId: `${home}work/`,
          name: 'Work',
          timeZone: 'Europe/Berlin',
          color: '#e78074',
          access: 'owner',
        },
        School: { providerCalendarId: `${home}school/`, name: 'School', access: 'owner' },
        // Read-only through the rights file; its VTIMEZONE names the zone with a vendor prefix.
        Holidays: {
          providerCalendarId: `${home}holidays/`,
          name: 'Holidays',
          timeZone: 'America/Chicago',
          color: '#3366cc',
          access: 'reader',
        },
      });
      assert.equal(calendars.filter((c) => c.primary).length, 1);
      assert.equal(calendars[0]!.primary, true);
    });

    it('is really read-only at the server for the reader calendar', async () => {
      const response = await fetch(`${home}holidays/new.ics`, {
        method: 'PUT',
        headers: {
          authorization: basicAuth(alice.username, alice.password),
          'content-type': 'text/calendar',
        },
        body: await fixture('tsdav__13.ics'),
      });
      assert.equal(response.status, 403);
    });

    it('discovers the home when the credentials do not carry it, and saves it', async () => {
      saved.length = 0;
      const { calendarHomeUrl: _, ...withoutHome } = account.credentials;
      const found = await provider.listCalendars(accountWith(withoutHome));
      assert.deepEqual(found, calendars);
      assert.deepEqual(saved, [{ ...withoutHome, calendarHomeUrl: home }]);
    });
  });

  describe('events', () => {
    it('drops EXDATEs given in UTC on the previous day (each_week_but_two_deleted)', async () => {
      // Weekly from Mon 2019-03-04 00:30 Berlin; 2019-03-10T23:30Z and 2019-03-24T23:30Z are the
      // 11th and 25th at 00:30 CET. The window opens at 2019-03-17T23:00Z, just before the 18th's
      // 00:30 CET (23:30Z); 1 April 00:30 is CEST (2019-03-31T22:30Z), inside.
      const result = await provider.listEvents(account, calendarNamed('Work'), {
        start: at('2019-03-17T23:00:00Z'),
        end: at('2019-04-01T00:00:00Z'),
      });
      const uid = 'SX2CURHKFTKKFFU3VUD7K';
      const ours = result.occurrences.filter((o) => o.providerEventId.endsWith(`#${uid}`));
      assert.deepEqual(starts(ours), [
        ['2019-03-18T00:30:00 Europe/Berlin', uid],
        ['2019-04-01T00:30:00 Europe/Berlin', uid],
      ]);
      for (const occurrence of ours) {
        assert.equal(occurrence.providerEventId, `SX2CURHKFTKKFFU3VUD7K.ics#${uid}`);
        assert.equal(occurrence.duration, 'PT30M');
        assert.equal(occurrence.title, 'test6');
        assert.equal(occurrence.facts.recurring, true);
        assert.equal(occurrence.facts.version, etags.get(uid));
      }
      assert.ok(etags.get(uid), 'Radicale sends an ETag on PUT');
      assert.deepEqual(result.skipped, []);
    });

    it('applies moved and edited instances (recurring_events_moved)', async () => {
      const work = calendarNamed('Work');
      // "New Event": daily 02:00 Berlin, 7–10 March; the 8th moved to 01:00, the 9th to 03:00.
      const march = await provider.listEvents(account, work, {
        start: at('2019-03-07T00:00:00Z'),
        end: at('2019-03-11T00:00:00Z'),
      });
      const moved = 'a0c78729-30b1-4ba3-a86e-6aedd995d788';
      assert.deepEqual(starts(march.occurrences.filter((o) => o.providerEventId.endsWith(moved))), [
        ['2019-03-07T02:00:00 Europe/Berlin', moved],
        ['2019-03-08T01:00:00 Europe/Berlin', moved],
        ['2019-03-09T03:00:00 Europe/Berlin', moved],
        ['2019-03-10T02:00:00 Europe/Berlin', moved],
      ]);
      // "test7": daily 04:00 Berlin until 2019-03-20T03:00Z (inclusive: that is the 20th's 04:00 CET);
      // the 19th is an edited instance with its own title and location.
      const later = await provider.listEvents(account, work, {
        start: at('2019-03-18T00:00:00Z'),
        end: at('2019-03-25T00:00:00Z'),
      });
      const edited = '5d4c6843-9300-4f91-8d88-6094d4b0b840';
      const test7 = later.occurrences
        .filter((o) => o.providerEventId.endsWith(edited))
        .sort((a, b) => a.start.localeCompare(b.start));
      assert.deepEqual(
        test7.map((o) => [o.start, o.title, o.locations?.map((l) => l.name)]),
        [
          ['2019-03-18T04:00:00', 'test7', undefined],
          ['2019-03-19T04:00:00', 'test7 - edited', ['location']],
          ['2019-03-20T04:00:00', 'test7', undefined],
        ],
      );
      assert.ok(test7.every((o) => o.facts.version === etags.get(edited)));
    });

    it('keeps wall-clock times across the end of DST in Chicago (issue_48_dst)', async () => {
      const school = calendarNamed('School');
      // Thanksgiving week, Mon 23 – Fri 27 Nov 2020 (CST, UTC−6): thirteen series, most of them
      // with EXDATEs on the 26th and 27th.
      const week = await provider.listEvents(account, school, {
        start: at('2020-11-23T06:00:00Z'),
        end: at('2020-11-28T06:00:00Z'),
      });
      assert.deepEqual(starts(week.occurrences), [
        ['2020-11-23T08:15:00 America/Chicago', 'c4p6@google.com'],
        ['2020-11-23T10:15:00 America/Chicago', 'm4b9nckq@google.com'],
        ['2020-11-23T12:30:00 America/Chicago', 'u81j@google.com'],
        ['2020-11-24T08:15:00 America/Chicago', 'c4p6@google.com'],
        ['2020-11-24T10:15:00 America/Chicago', '2ohv@google.com'],
        ['2020-11-24T12:30:00 America/Chicago', 'm0lbs@google.com'],
        ['2020-11-24T14:15:00 America/Chicago', '2n0o@google.com'],
      ]);
      // A series begun in CDT (28 Sep, 10:15 = 15:15Z) is at 10:15 CST = 16:15Z after 1 November.
      const monday = await provider.listEvents(account, school, {
        start: at('2020-11-02T16:00:00Z'),
        end: at('2020-11-02T16:30:00Z'),
      });
      assert.deepEqual(starts(monday.occurrences), [
        ['2020-11-02T10:15:00 America/Chicago', 'm4b9nckq@google.com'],
      ]);
      assert.ok(week.occurrences.every((o) => o.duration === 'PT15M'));
    });

    it('asks the server a day wider for all-day events, which have no zone yet', async () => {
      // Yearly on 2 November since 1997, VALUE=DATE. Radicale reads dates as UTC days, so for a
      // window that ends on 1 November it matches only because the query reaches into the 2nd.
      const result = await provider.listEvents(account, calendarNamed('Work'), {
        start: at('2025-11-01T00:00:00Z'),
        end: at('2025-11-01T12:00:00Z'),
      });
      assert.deepEqual(
        result.occurrences.map((o) => [o.start, o.timeZone, o.showWithoutTime, o.duration, o.title]),
        [['2025-11-02T00:00:00', undefined, true, 'P1D', 'Our Blissful Anniversary']],
      );
    });

    it('reads the events of a read-only calendar', async () => {
      const result = await provider.listEvents(account, calendarNamed('Holidays'), {
        start: at('2021-04-01T00:00:00Z'),
        end: at('2021-04-02T00:00:00Z'),
      });
      assert.deepEqual(
        result.occurrences.map((o) => [o.start, o.timeZone, o.duration, o.title]),
        [['2021-04-01T09:08:00', 'Etc/UTC', 'PT1H', '1']],
      );
    });
  });

  describe('organizer', () => {
    it("counts an e-mail login as the user's own address", async () => {
      const window = { start: at('2026-03-24T00:00:00Z'), end: at('2026-03-25T00:00:00Z') };
      const carolHome = `${radicale.url}${carol.username}/`;
      await mkcalendar(`${carolHome}meetings/`, carol, { displayName: 'Meetings' });
      await putIcs(`${carolHome}meetings/`, carol, planning);
      await putIcs(`${home}school/`, alice, planning);
      const carols = accountWith(
        (await connectCaldav({ http }, { serverUrl: radicale.url, ...carol })).credentials,
      );
      const [meetings] = await provider.listCalendars(carols);
      const [own] = (await provider.listEvents(carols, meetings!, window)).occurrences;
      assert.deepEqual([own?.title, own?.facts.organizer, own?.facts.attendees], ['Planning', 'self', true]);
      // Alice logs in as `alice` and Radicale gives no mailto: address set, so nobody can say.
      const invited = (await provider.listEvents(account, calendarNamed('School'), window)).occurrences;
      assert.deepEqual(
        invited.filter((o) => o.title === 'Planning').map((o) => o.facts.organizer),
        ['unknown'],
      );
    });
  });

  describe('one event', () => {
    it('reads an occurrence by its recurrence id, and a series by its first occurrence', async () => {
      const work = calendarNamed('Work');
      const listed = await provider.listEvents(account, work, {
        start: at('2019-03-09T00:00:00Z'),
        end: at('2019-03-10T00:00:00Z'),
      });
      const ninth = listed.occurrences.find((o) => o.start === '2019-03-09T03:00:00')!;
      assert.ok(ninth.recurrenceId);
      const fresh = await provider.getEvent(account, work, ninth.providerEventId, ninth.recurrenceId);
      assert.deepEqual(fresh, ninth);

      const series = await provider.getEvent(
        account,
        work,
        'SX2CURHKFTKKFFU3VUD7K.ics#SX2CURHKFTKKFFU3VUD7K',
      );
      assert.equal(series?.start, '2019-03-04T00:30:00');
      assert.equal(series?.facts.version, etags.get('SX2CURHKFTKKFFU3VUD7K'));
    });

    it('answers undefined for an event that is gone or an id that is not ours', async () => {
      const work = calendarNamed('Work');
      assert.equal(await provider.getEvent(account, work, 'missing.ics#missing'), undefined);
      assert.equal(await provider.getEvent(account, work, 'no-uid-part'), undefined);
      assert.equal(await provider.getEvent(account, work, '//elsewhere.example/x.ics#x'), undefined);
    });
  });
});
