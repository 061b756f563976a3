/**
 * CalDAV answers shaped unlike Radicale's (SabreDAV/iCloud style): other namespace prefixes,
 * a scheduling inbox naming the default calendar, shared calendars, mailto: address sets, and a
 * well-known redirect to another host. Served by a canned local server.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { connectCaldav, createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import type { AccountAccess, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';

const multistatus = (responses: string) =>
  '<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav" ' +
  `xmlns:x1="http://apple.com/ns/ical/">${responses}</d:multistatus>`;

const ok = (props: string) =>
  `<d:propstat><d:prop>${props}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>`;
const missing = (props: string) =>
  `<d:propstat><d:prop>${props}</d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>`;
const principal = '<d:current-user-principal><d:href>/principals/bob/</d:href></d:current-user-principal>';
const privileges = (...names: string[]) =>
  `<d:current-user-privilege-set>${names.map((n) => `<d:privilege><d:${n}/></d:privilege>`).join('')}</d:current-user-privilege-set>`;
const owner = (who: string) => `<d:owner><d:href>/principals/${who}/</d:href></d:owner>`;
const calendar = (href: string, props: string) =>
  `<d:response><d:href>${href}</d:href>${ok(
    `<d:resourcetype><d:collection/><cal:calendar/></d:resourcetype>${principal}${props}`,
  )}</d:response>`;
const components = (...names: string[]) =>
  `<cal:supported-calendar-component-set>${names.map((n) => `<cal:comp name="${n}"/>`).join('')}</cal:supported-calendar-component-set>`;

// A VTIMEZONE whose TZID line is folded (RFC 5545 §3.1), inside calendar-timezone.
const folded =
  'BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:America/New\r\n _York\r\nEND:VTIMEZONE\r\nEND:VCALENDAR';

const home = multistatus(
  `<d:response><d:href>/calendars/bob/</d:href>${ok('<d:resourcetype><d:collection/></d:resourcetype>')}</d:response>` +
    `<d:response><d:href>/calendars/bob/inbox/</d:href>${ok(
      '<d:resourcetype><d:collection/><cal:schedule-inbox/></d:resourcetype>' +
        '<cal:schedule-default-calendar-URL><d:href>/calendars/bob/work/</d:href></cal:schedule-default-calendar-URL>',
    )}</d:response>` +
    calendar(
      '/calendars/bob/personal/',
      `<d:displayname>Personal</d:displayname>${components('VEVENT', 'VTODO')}${privileges('read', 'all')}${owner('bob')}` +
        '<cal:calendar-timezone-id>Europe/Paris</cal:calendar-timezone-id>',
    ) +
    calendar(
      '/calendars/bob/work/',
      `<d:displayname>Work</d:displayname>${privileges('read', 'write-content')}${owner('bob')}<x1:calendar-color>#00FF00</x1:calendar-color>`,
    ) +
    calendar(
      '/calendars/bob/team/',
      `<d:displayname>Team</d:displayname>${privileges('read', 'write')}${owner('alice')}`,
    ) +
    calendar(
      '/calendars/bob/us%20holidays/',
      `${privileges('read')}${owner('bob')}<cal:calendar-timezone>${folded}</cal:calendar-timezone>`,
    ).replace('</d:response>', `${missing('<d:displayname/><x1:calendar-color/>')}</d:response>`) +
    calendar('/calendars/bob/tasks/', `<d:displayname>Tasks</d:displayname>${components('VTODO')}`),
);

const event = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'BEGIN:VEVENT',
  'UID:review@example.org',
  'DTSTAMP:20260301T000000Z',
  'DTSTART:20260324T090000Z',
  'DURATION:PT1H',
  'SUMMARY:Review',
  'ORGANIZER:mailto:bob.smith@example.org',
  'ATTENDEE:mailto:alice@example.org',
  'END:VEVENT',
  'END:VCALENDAR',
].join('\r\n');

describe('CalDAV answers from other servers', () => {
  let server: Server;
  let base: string;
  const requests: string[] = [];

  before(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '/';
      requests.push(`${request.method} ${request.headers.host} ${path}`);
      const xml = (body: string) =>
        response.writeHead(207, { 'content-type': 'application/xml; charset=utf-8' }).end(body);
      if (path === '/.well-known/caldav') {
        return response.writeHead(301, { location: `http://localhost:${new URL(base).port}/dav/` }).end();
      }
      if (request.method === 'PROPFIND' && path === '/principals/bob/') {
        return xml(
          multistatus(
            `<d:response><d:href>/principals/bob/</d:href>${ok(
              '<cal:calendar-home-set><d:href>/calendars/bob/</d:href></cal:calendar-home-set>' +
                '<cal:calendar-user-address-set><d:href>mailto:bob.smith%40example.org</d:href>' +
                '<d:href>/principals/bob/</d:href></cal:calendar-user-address-set>',
            )}</d:response>`,
          ),
        );
      }
      if (request.method === 'PROPFIND' && request.headers.depth === '1') return xml(home);
      if (request.method === 'PROPFIND') {
        return xml(multistatus(`<d:response><d:href>${path}</d:href>${ok(principal)}</d:response>`));
      }
      if (request.method === 'REPORT') {
        return xml(
          multistatus(
            `<d:response><d:href>/calendars/bob/work/review.ics</d:href>${ok(
              `<d:getetag>"r1"</d:getetag><cal:calendar-data><![CDATA[${event}]]></cal:calendar-data>`,
            )}</d:response>`,
          ),
        );
      }
      response.writeHead(405).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  });
  after(() => server.close());

  const http = new ProviderHttp({ maxAttempts: 1 });
  const provider = createCaldavProvider({ http });

  it('does not follow a well-known redirect to another host, and finds the principal at the root', async () => {
    requests.length = 0;
    const { credentials, calendars } = await connectCaldav(
      { http },
      {
        serverUrl: base,
        username: 'bob',
        password: 'secret',
        calendarAddress: { email: 'bob@home.example', from: 'form' },
      },
    );
    assert.equal(credentials.calendarHomeUrl, `${base}calendars/bob/`);
    // The address the server names wins over the one given, as clients find it (RFC 6638 §2.4.1).
    assert.deepEqual(credentials.calendarAddress, { email: 'bob.smith@example.org', from: 'server' });
    assert.ok(
      requests.every((r) => !r.includes(' localhost:')),
      requests.join('\n'),
    );

    assert.deepEqual(calendars, [
      {
        providerCalendarId: `${base}calendars/bob/personal/`,
        name: 'Personal',
        timeZone: 'Europe/Paris',
        primary: false,
        access: 'owner',
      },
      {
        providerCalendarId: `${base}calendars/bob/work/`,
        name: 'Work',
        color: '#00ff00',
        primary: true,
        access: 'owner',
      },
      { providerCalendarId: `${base}calendars/bob/team/`, name: 'Team', primary: false, access: 'writer' },
      {
        providerCalendarId: `${base}calendars/bob/us%20holidays/`,
        name: 'us holidays',
        timeZone: 'America/New_York',
        primary: false,
        access: 'reader',
      },
    ]);
  });

  it("reads the principal's mailto: addresses to recognise the user as organizer", async () => {
    const account: AccountAccess<CredentialsOf<'caldav'>> = {
      accountKey: 'acc_shapes',
      credentials: {
        kind: 'caldav',
        serverUrl: base,
        username: 'bob',
        password: 'secret',
        calendarHomeUrl: `${base}calendars/bob/`,
      },
      saveCredentials: async () => {},
    };
    const [, work] = await provider.listCalendars(account);
    const { occurrences } = await provider.listEvents(account, work!, {
      start: Temporal.Instant.from('2026-03-24T00:00:00Z'),
      end: Temporal.Instant.from('2026-03-25T00:00:00Z'),
    });
    assert.deepEqual(
      occurrences.map((o) => [o.providerEventId, o.title, o.facts.organizer, o.facts.version]),
      [['review.ics#review@example.org', 'Review', 'self', '"r1"']],
    );
  });
});
