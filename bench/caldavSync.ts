/**
 * The CalDAV first-sync figure of `npm run bench`: an account of 20 calendars × 1,000 events
 * synced in full over loopback HTTP by the service's own CalDAV adapter (sync-collection, then
 * calendar-multiget; XML and iCalendar parsed, series expanded in the expansion pool, rows
 * written). The server is the bench's own: it answers those reports from iCalendar made
 * beforehand, so the time measured is the service's, not a CalDAV server's.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppContext } from '../src/context.ts';
import type { ProviderCalendar } from '../src/domain/providerFacts.ts';
import { createCaldavProvider } from '../src/providers/caldav/adapter.ts';
import type { CalendarProvider } from '../src/providers/port.ts';
import { ProviderHttp } from '../src/providers/providerHttp.ts';
import type { SyncService } from '../src/sync/syncService.ts';
import { grantToken } from '../test/helpers/grantToken.ts';
import { seedMemoryAccount } from '../test/helpers/memoryCalendars.ts';
import { seedUser, seedWorkspace } from '../test/helpers/seed.ts';
import { calendarCount, eventsPerCalendar } from './seed.ts';
import { cpuSince, postgresCpu, type ThreadKind, threadCpu } from './threadCpu.ts';

/** Every `seriesEvery`-th event is a weekly series of four: the sync expands it. */
const seriesEvery = 10;

const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** The i-th event of calendar c: one VCALENDAR object, as a CalDAV server stores it. */
function objectText(c: number, i: number): string {
  const day = 1 + (i % 28);
  const hour = 7 + ((i * 7 + c) % 12);
  const at = `202603${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}${String(((i * 13) % 4) * 15).padStart(2, '0')}00`;
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Calendar Access Service bench//EN',
    'BEGIN:VEVENT',
    `UID:bench-${c}-${i}@example.test`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART;TZID=Europe/Berlin:${at}`,
    i % 3 === 0 ? 'DURATION:PT30M' : 'DURATION:PT1H',
    `SUMMARY:Meeting ${i} of calendar ${c + 1}`,
    `DESCRIPTION:Agenda: status of the open items\\, decisions needed before the end of the week\\, risks. Ref #${1000 + i}.`,
    `LOCATION:Room ${1 + ((i + c) % 9)}\\, 3rd floor`,
    ...(i % seriesEvery === 0 ? ['RRULE:FREQ=WEEKLY;COUNT=4'] : []),
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

const multistatus = (responses: string[], extra = '') =>
  `<?xml version="1.0" encoding="utf-8"?>\n<d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/">${responses.join('')}${extra}</d:multistatus>`;

const response = (href: string, props: string) =>
  `<d:response><d:href>${escapeXml(href)}</d:href><d:propstat><d:prop>${props}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`;

/**
 * A CalDAV server of `calendarCount` collections /dav/c<n>/ holding `eventsPerCalendar` objects
 * each: PROPFIND of a collection (its ctag, sync-collection offered, no principal), the
 * sync-collection REPORT (every member from the empty token) and calendar-multiget.
 */
async function startFakeCaldav() {
  const objects = new Map<string, string>();
  for (let c = 0; c < calendarCount; c++)
    for (let i = 0; i < eventsPerCalendar; i++) objects.set(`/dav/c${c}/e${i}.ics`, objectText(c, i));
  const etag = '"1"';
  const answer = (res: ServerResponse, body: string) => {
    res.writeHead(207, { 'content-type': 'application/xml; charset=utf-8' });
    res.end(body);
  };
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'PROPFIND')
      return answer(
        res,
        multistatus([
          response(
            path,
            '<cs:getctag>1</cs:getctag><d:supported-report-set><d:supported-report><d:report><d:sync-collection/></d:report></d:supported-report></d:supported-report-set>',
          ),
        ]),
      );
    if (req.method === 'REPORT' && body.includes('sync-collection')) {
      const members = [...objects.keys()].filter((href) => href.startsWith(path));
      return answer(
        res,
        multistatus(
          members.map((href) => response(href, `<d:getetag>${escapeXml(etag)}</d:getetag>`)),
          '<d:sync-token>http://localhost/sync/1</d:sync-token>',
        ),
      );
    }
    if (req.method === 'REPORT' && body.includes('calendar-multiget')) {
      const hrefs = [...body.matchAll(/<d:href>([^<]*)<\/d:href>/g)].map((m) => m[1]!);
      return answer(
        res,
        multistatus(
          hrefs.map((href) =>
            response(
              href,
              `<d:getetag>${escapeXml(etag)}</d:getetag><c:calendar-data>${escapeXml(objects.get(href) ?? '')}</c:calendar-data>`,
            ),
          ),
        ),
      );
    }
    res.writeHead(405).end();
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const calendars: ProviderCalendar[] = Array.from({ length: calendarCount }, (_, c) => ({
    providerCalendarId: `${origin}/dav/c${c}/`,
    name: `Calendar ${c + 1}`,
    timeZone: 'Europe/Berlin',
    primary: false,
    access: 'owner',
  }));
  return {
    calendars,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The CalDAV adapter for a service's providers: over HTTP, loopback allowed (self-hosted servers). */
export const caldavProvider = () =>
  createCaldavProvider({ http: new ProviderHttp({ timeoutMs: 30_000 }), allowPrivateNetworks: true });

export interface FirstSync {
  events: number;
  ms: number;
  /** CPU (ms) the process spent by kind of thread, and the PostgreSQL server's (Linux; PostgreSQL only). */
  cpu?: Map<ThreadKind, number>;
  postgresMs?: number;
}

/**
 * The first sync of the account on a service built with `caldavProvider()`, by its rounds; the
 * events (objects) synced, the time, and the CPU it took: on a machine of two cores the rate is
 * what the threads and the database's server leave each other.
 */
export async function caldavFirstSync(
  ctx: AppContext,
  sync: SyncService,
  postgres = false,
): Promise<FirstSync> {
  const server = await startFakeCaldav();
  try {
    const userId = await seedUser(ctx.db, 'caldav@example.test');
    const workspaceId = await seedWorkspace(ctx.db, 'CalDAV', [[userId, 'owner']]);
    // The account as connecting stores it; its calendars are the server's collections.
    const listing = {
      kind: 'caldav',
      listCalendars: async () => server.calendars,
    } as unknown as CalendarProvider<'caldav'>;
    const calendarIds = await seedMemoryAccount(ctx, { userId, workspaceId }, listing);
    await grantToken(ctx, {
      userId,
      workspaceId,
      calendars: calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'full' })),
    });
    const threads = threadCpu();
    const engine = postgres ? postgresCpu() : undefined;
    const started = performance.now();
    while ((await sync.runDue()) > 0);
    const ms = performance.now() - started;
    const cpu = cpuSince(threads, threadCpu());
    const postgresMs = engine === undefined ? undefined : postgresCpu()! - engine;
    const copies = await ctx.db
      .selectFrom('calendar_copies')
      .select(['items', 'failure_reason'])
      .where('calendar_id', 'in', calendarIds)
      .execute();
    const events = copies.reduce((sum, copy) => sum + copy.items, 0);
    if (events !== calendarCount * eventsPerCalendar)
      throw new Error(`CalDAV first sync: ${events} items copied: ${JSON.stringify(copies.slice(0, 3))}`);
    return {
      events,
      ms,
      ...(cpu === undefined ? {} : { cpu }),
      ...(postgresMs === undefined ? {} : { postgresMs }),
    };
  } finally {
    await server.close();
  }
}
