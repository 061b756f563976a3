/**
 * A CalDAV server that schedules (RFC 6638), as far as free/busy goes: Radicale has no schedule
 * outbox, this one does. Every PROPFIND (Depth 0) answers the properties it names among the
 * principal's (current-user-principal, calendar-home-set, calendar-user-address-set,
 * schedule-outbox-URL); a VFREEBUSY request POSTed to the outbox by its owner is answered with a
 * CALDAV:schedule-response (§5, §10.2): per ATTENDEE `2.0;Success` and a VFREEBUSY reply with
 * the periods set by the test, or `3.7;Invalid calendar user` for an address it does not know.
 * An ORGANIZER other than the owner is refused (403), as §5 asks. Its principals are searched
 * (RFC 3744 §9.4 principal-property-search in `/principals/`): the rooms set by the test
 * (calendar-user-type ROOM) and, as a server matching substrings might, a RESOURCE that is none.
 *
 *   const server = await startSchedulingServer({ username, password, address: 'ana@example.org' });
 *   server.people.set('gus@partner.example', [{ start, end, fbtype: 'BUSY-TENTATIVE' }]);
 *   server.requests;   // every POST body received
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import ICAL from 'ical.js';
import { type LoopbackServer, startHttpServer } from '../helpers/hostileServers.ts';
import { basicAuth } from '../helpers/radicale.ts';

export interface FreeBusyPeriod {
  /** Instants (`2026-03-02T10:00:00Z`). */
  start: string;
  end: string;
  /** Default BUSY. */
  fbtype?: 'FREE' | 'BUSY' | 'BUSY-TENTATIVE' | 'BUSY-UNAVAILABLE';
}

export interface SchedulingServer {
  url: string;
  /** The account's calendar home (what a connect would have found). */
  calendarHomeUrl: string;
  /** Whom the outbox can tell about, by lower-cased address. */
  people: Map<string, FreeBusyPeriod[]>;
  /** The iCalendar bodies POSTed to the outbox, in order. */
  posted: string[];
  /** Room principals: address → display name. */
  rooms: Map<string, string>;
  close(): Promise<void>;
}

const principalPath = '/principals/owner/';
const homePath = '/calendars/owner/';
const outboxPath = '/principals/owner/outbox/';
const principalsPath = '/principals/';

export async function startSchedulingServer(account: {
  username: string;
  password: string;
  address: string;
}): Promise<SchedulingServer> {
  const people = new Map<string, FreeBusyPeriod[]>();
  const posted: string[] = [];
  const rooms = new Map<string, string>();
  const server: LoopbackServer = await startHttpServer((request, response) => {
    void answer(request, response).catch(() => response.writeHead(500).end());
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (request.headers.authorization !== basicAuth(account.username, account.password)) {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="fake"' }).end();
      return;
    }
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    if (request.method === 'PROPFIND') return void xml(response, 207, propfind(path, body));
    if (request.method === 'REPORT' && path === principalsPath && body.includes('principal-property-search'))
      return void xml(response, 207, principalSearch(body));
    if (request.method === 'POST' && path === outboxPath) {
      posted.push(body);
      const reply = schedule(body);
      if (reply === undefined) return void response.writeHead(403).end();
      return void xml(response, 200, reply);
    }
    response.writeHead(405).end();
  }

  function propfind(path: string, body: string): string {
    const known: Record<string, string> = {
      'current-user-principal': `<d:current-user-principal><d:href>${principalPath}</d:href></d:current-user-principal>`,
      'calendar-home-set': `<c:calendar-home-set><d:href>${homePath}</d:href></c:calendar-home-set>`,
      'calendar-user-address-set': `<c:calendar-user-address-set><d:href>mailto:${account.address}</d:href><d:href>${principalPath}</d:href></c:calendar-user-address-set>`,
      'schedule-outbox-URL': `<c:schedule-outbox-URL><d:href>${outboxPath}</d:href></c:schedule-outbox-URL>`,
      'principal-collection-set': `<d:principal-collection-set><d:href>${principalsPath}</d:href></d:principal-collection-set>`,
    };
    const props = Object.entries(known)
      .filter(([name]) => new RegExp(`[:<]${name}[\\s/>]`).test(body))
      .map(([, prop]) => prop)
      .join('');
    return `<?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:response><d:href>${path}</d:href><d:propstat><d:prop>${props}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>`;
  }

  /** The principals whose calendar-user-type contains the match: the rooms, and a projector. */
  function principalSearch(body: string): string {
    const match = /<d:match>([^<]*)<\/d:match>/.exec(body)?.[1] ?? '';
    const principals = [
      ...[...rooms].map(([address, name], i) => ({
        path: `/principals/room${i}/`,
        address,
        name,
        type: 'ROOM',
      })),
      {
        path: '/principals/projector/',
        address: 'projector@example.org',
        name: 'Projector',
        type: 'RESOURCE',
      },
    ].filter((p) => p.type.includes(match));
    const responses = principals.map(
      (p) =>
        `<d:response><d:href>${p.path}</d:href><d:propstat><d:prop><d:displayname>${p.name}</d:displayname><c:calendar-user-type>${p.type}</c:calendar-user-type><c:calendar-user-address-set><d:href>mailto:${p.address}</d:href><d:href>${p.path}</d:href></c:calendar-user-address-set></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`,
    );
    return `<?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">${responses.join('')}</d:multistatus>`;
  }

  /** The schedule-response for a VFREEBUSY request; undefined when its organizer is not the owner. */
  function schedule(body: string): string | undefined {
    const request = new ICAL.Component(ICAL.parse(body)).getFirstSubcomponent('vfreebusy')!;
    const organizer = String(request.getFirstPropertyValue('organizer'));
    if (organizer.toLowerCase() !== `mailto:${account.address.toLowerCase()}`) return undefined;
    const start = request.getFirstPropertyValue('dtstart') as InstanceType<typeof ICAL.Time>;
    const end = request.getFirstPropertyValue('dtend') as InstanceType<typeof ICAL.Time>;
    const responses = request.getAllProperties('attendee').map((attendee) => {
      const recipient = String(attendee.getFirstValue());
      const periods = people.get(recipient.replace(/^mailto:/i, '').toLowerCase());
      const status = periods === undefined ? '3.7;Invalid calendar user' : '2.0;Success';
      const data =
        periods === undefined
          ? ''
          : `<c:calendar-data>${reply(recipient, start, end, periods)}</c:calendar-data>`;
      return `<c:response><c:recipient><d:href>${recipient}</d:href></c:recipient><c:request-status>${status}</c:request-status>${data}</c:response>`;
    });
    return `<?xml version="1.0" encoding="utf-8"?><c:schedule-response xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">${responses.join('')}</c:schedule-response>`;
  }

  function reply(
    recipient: string,
    start: InstanceType<typeof ICAL.Time>,
    end: InstanceType<typeof ICAL.Time>,
    periods: FreeBusyPeriod[],
  ): string {
    const basic = (instant: string) =>
      Temporal.Instant.from(instant).toString({ smallestUnit: 'second' }).replaceAll(/[-:]/g, '');
    const lines = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//Fake scheduling server//EN',
      'METHOD:REPLY',
      'BEGIN:VFREEBUSY',
      `DTSTART:${start.toICALString()}`,
      `DTEND:${end.toICALString()}`,
      `ATTENDEE:${recipient}`,
      ...periods.map((p) => `FREEBUSY;FBTYPE=${p.fbtype ?? 'BUSY'}:${basic(p.start)}/${basic(p.end)}`),
      'END:VFREEBUSY',
      'END:VCALENDAR',
      '',
    ];
    return lines.join('\r\n');
  }

  return {
    url: server.url,
    calendarHomeUrl: new URL(homePath, server.url).href,
    people,
    posted,
    rooms,
    close: () => server.close(),
  };
}

function xml(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/xml; charset=utf-8' }).end(body);
}
