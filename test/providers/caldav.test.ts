/**
 * The CalDAV adapter against a real Radicale: discovery, connect-time errors, calendars with
 * their properties and rights, and the project's iCalendar fixtures (test/fixtures/ical, written
 * the way common clients write them) coming back as occurrences.
 */
import assert from 'node:assert/strict';
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
import { fixtureIcs } from '../helpers/radicaleCalendars.ts';

const skip = radicaleMissing();

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
      ['work', 'weekly-utc-exdates-on-previous-day.ics', alice],
      ['work', 'thunderbird-moved-instances.ics', alice],
      ['work', 'confidential-yearly-all-day.ics', alice],
      ['school', 'school-timetable-new-york-dst.ics', alice],
      ['holidays', 'utc-single-event.ics', admin],
    ] as const) {
      for (const [uid, { etag }] of await putIcs(`${home}${calendar}/`, auth, await fixtureIcs(file))) {
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
          start: at('2023-11-06T00:00:00Z'),
          end: at('2023-11-13T00:00:00Z'),
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
        body: await fixtureIcs('utc-weekly-open-ended.ics'),
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
    it('drops EXDATEs given in UTC on the previous day (weekly-utc-exdates-on-previous-day)', async () => {
      // Weekly from Tue 2024-03-05 00:15 Berlin; 2024-03-11T23:15Z and 2024-03-25T23:15Z are the
      // 12th and 26th at 00:15 CET. The window opens at 2024-03-18T23:00Z, just before the 19th's
      // 00:15 CET (23:15Z); 2 April 00:15 is CEST (2024-04-01T22:15Z), inside.
      const result = await provider.listEvents(account, calendarNamed('Work'), {
        start: at('2024-03-18T23:00:00Z'),
        end: at('2024-04-02T00:00:00Z'),
      });
      const uid = 'N7Q4WZ2KTD8LXHR3';
      const ours = result.occurrences.filter((o) => o.providerEventId.endsWith(`#${uid}`));
      assert.deepEqual(starts(ours), [
        ['2024-03-19T00:15:00 Europe/Berlin', uid],
        ['2024-04-02T00:15:00 Europe/Berlin', uid],
      ]);
      for (const occurrence of ours) {
        assert.equal(occurrence.providerEventId, `N7Q4WZ2KTD8LXHR3.ics#${uid}`);
        assert.equal(occurrence.duration, 'PT45M');
        assert.equal(occurrence.title, 'Late handover');
        assert.equal(occurrence.facts.recurring, true);
        assert.equal(occurrence.facts.version, etags.get(uid));
      }
      assert.ok(etags.get(uid), 'Radicale sends an ETag on PUT');
      assert.deepEqual(result.skipped, []);
    });

    it('applies moved and edited instances (thunderbird-moved-instances)', async () => {
      const work = calendarNamed('Work');
      // "Server maintenance": daily 01:00 Berlin, 6–9 November; the 7th moved to 00:00, the 8th to 02:00.
      const november = await provider.listEvents(account, work, {
        start: at('2023-11-06T00:00:00Z'),
        end: at('2023-11-10T00:00:00Z'),
      });
      const moved = 'a8e1d0c4-2f6b-4c3a-b9d7-61e5f0a2c4d8';
      assert.deepEqual(starts(november.occurrences.filter((o) => o.providerEventId.endsWith(moved))), [
        ['2023-11-06T01:00:00 Europe/Berlin', moved],
        ['2023-11-07T00:00:00 Europe/Berlin', moved],
        ['2023-11-08T02:00:00 Europe/Berlin', moved],
        ['2023-11-09T01:00:00 Europe/Berlin', moved],
      ]);
      // "Night backup check": daily 03:00 Berlin until 2023-11-15T02:00Z (inclusive: that is the
      // 15th's 03:00 CET); the 14th is an edited instance with its own title and location.
      const later = await provider.listEvents(account, work, {
        start: at('2023-11-13T00:00:00Z'),
        end: at('2023-11-20T00:00:00Z'),
      });
      const edited = '3f9a2c1e-7b4d-4e8a-9c61-5d2e0f8b7a13';
      const backups = later.occurrences
        .filter((o) => o.providerEventId.endsWith(edited))
        .sort((a, b) => a.start.localeCompare(b.start));
      assert.deepEqual(
        backups.map((o) => [o.start, o.title, o.locations?.map((l) => l.name)]),
        [
          ['2023-11-13T03:00:00', 'Night backup check', undefined],
          ['2023-11-14T03:00:00', 'Night backup check - edited', ['Server room B']],
          ['2023-11-15T03:00:00', 'Night backup check', undefined],
        ],
      );
      assert.ok(backups.every((o) => o.facts.version === etags.get(edited)));
    });

    it('keeps wall-clock times across the end of DST in New York (school-timetable-new-york-dst)', async () => {
      const school = calendarNamed('School');
      // Thanksgiving week, Mon 22 – Fri 26 Nov 2021 (EST, UTC−5): six weekly lessons, excluded
      // from Wednesday to Friday, and a one-off evening given in UTC.
      const week = await provider.listEvents(account, school, {
        start: at('2021-11-22T05:00:00Z'),
        end: at('2021-11-27T05:00:00Z'),
      });
      assert.deepEqual(starts(week.occurrences), [
        ['2021-11-22T08:15:00 America/New_York', 'math-5a@school.example'],
        ['2021-11-22T10:15:00 America/New_York', 'music-5a@school.example'],
        ['2021-11-22T23:00:00 Etc/UTC', 'parent-conferences@school.example'],
        ['2021-11-23T08:15:00 America/New_York', 'science-5a@school.example'],
        ['2021-11-23T14:15:00 America/New_York', 'pe-5a@school.example'],
      ]);
      // A series begun in EDT (13 Sep, 10:15 = 14:15Z) is at 10:15 EST = 15:15Z after 7 November.
      const monday = await provider.listEvents(account, school, {
        start: at('2021-11-08T15:00:00Z'),
        end: at('2021-11-08T15:30:00Z'),
      });
      assert.deepEqual(starts(monday.occurrences), [
        ['2021-11-08T10:15:00 America/New_York', 'music-5a@school.example'],
      ]);
      assert.ok(week.occurrences.every((o) => o.duration === 'PT45M'));
    });

    it('asks the server a day wider for all-day events, which have no zone yet', async () => {
      // Yearly on 21 October since 1999, VALUE=DATE. Radicale reads dates as UTC days, so for a
      // window that ends on 20 October it matches only because the query reaches into the 21st.
      const result = await provider.listEvents(account, calendarNamed('Work'), {
        start: at('2025-10-20T00:00:00Z'),
        end: at('2025-10-20T12:00:00Z'),
      });
      assert.deepEqual(
        result.occurrences.map((o) => [o.start, o.timeZone, o.showWithoutTime, o.duration, o.title]),
        [['2025-10-21T00:00:00', undefined, true, 'P1D', 'Wedding anniversary of Ines and Tomás']],
      );
    });

    it('reads the events of a read-only calendar', async () => {
      const result = await provider.listEvents(account, calendarNamed('Holidays'), {
        start: at('2023-05-02T00:00:00Z'),
        end: at('2023-05-03T00:00:00Z'),
      });
      assert.deepEqual(
        result.occurrences.map((o) => [o.start, o.timeZone, o.duration, o.title]),
        [['2023-05-02T13:45:00', 'Etc/UTC', 'PT1H', 'Staff briefing']],
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
        start: at('2023-11-08T00:00:00Z'),
        end: at('2023-11-09T00:00:00Z'),
      });
      const eighth = listed.occurrences.find((o) => o.start === '2023-11-08T02:00:00')!;
      assert.ok(eighth.recurrenceId);
      const fresh = await provider.getEvent(account, work, eighth.providerEventId, eighth.recurrenceId);
      assert.deepEqual(fresh, eighth);

      const series = await provider.getEvent(account, work, 'N7Q4WZ2KTD8LXHR3.ics#N7Q4WZ2KTD8LXHR3');
      assert.equal(series?.start, '2024-03-05T00:15:00');
      assert.equal(series?.facts.version, etags.get('N7Q4WZ2KTD8LXHR3'));
    });

    it('answers undefined for an event that is gone or an id that is not ours', async () => {
      const work = calendarNamed('Work');
      assert.equal(await provider.getEvent(account, work, 'missing.ics#missing'), undefined);
      assert.equal(await provider.getEvent(account, work, 'no-uid-part'), undefined);
      assert.equal(await provider.getEvent(account, work, '//elsewhere.example/x.ics#x'), undefined);
    });
  });
});
