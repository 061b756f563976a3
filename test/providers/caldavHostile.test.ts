/**
 * CalDAV servers run by strangers, on loopback: answers without end (the process keeps its
 * memory and keeps answering), hrefs naming another origin (the password never goes there),
 * private addresses when they are not allowed, and addresses that are no CalDAV server at all
 * (one answer, whatever is or is not listening there).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { watchEventLoopStalls } from '../../src/lib/eventLoopStalls.ts';
import { connectCaldav, createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import type { AccountAccess, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { hostileZoneCalendar } from '../domain/hostileCalendars.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { rejectsWith } from '../helpers/appErrors.ts';
import { multistatus, davResponse as response } from '../helpers/davXml.ts';
import { freePort } from '../helpers/freePort.ts';
import { assertStayedHealthy, watchHealth } from '../helpers/healthWatch.ts';
import {
  endless,
  type LoopbackServer,
  startHttpServer,
  startSocketServer,
} from '../helpers/hostileServers.ts';

const principal = (href: string) =>
  `<d:current-user-principal><d:href>${href}</d:href></d:current-user-principal>`;
const homeSet = (href: string) => `<c:calendar-home-set><d:href>${href}</d:href></c:calendar-home-set>`;
const calendarIn = (href: string) =>
  response(
    href,
    '<d:resourcetype><d:collection/><c:calendar/></d:resourcetype><d:displayname>Work</d:displayname>',
  );

const user = { username: 'ana', password: 'secret-password' };
/** The month of the events in the hostile calendars. */
const hostileWindow = {
  start: Temporal.Instant.from('2026-03-01T00:00:00Z'),
  end: Temporal.Instant.from('2026-04-01T00:00:00Z'),
};
const http = new ProviderHttp({ maxAttempts: 1 });
const window = {
  start: Temporal.Instant.from('2026-03-23T00:00:00Z'),
  end: Temporal.Instant.from('2026-03-24T00:00:00Z'),
};

const accountAt = (home: string): AccountAccess<CredentialsOf<'caldav'>> => ({
  accountKey: 'acc_hostile',
  credentials: { kind: 'caldav', serverUrl: home, calendarHomeUrl: home, ...user },
  saveCredentials: async () => {},
});
const calendarAt = (url: string) => ({
  providerCalendarId: url,
  name: 'Work',
  primary: true,
  access: 'owner' as const,
});

describe('CalDAV servers run by strangers', () => {
  const servers: LoopbackServer[] = [];
  const serve = async (handle: Parameters<typeof startHttpServer>[0]) => {
    const server = await startHttpServer(handle);
    servers.push(server);
    return server;
  };
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await app.close();
  });

  const watched = (work: () => Promise<unknown>) => watchHealth(app.app, work);

  describe('calendar data that would never finish', () => {
    it("reads a REPORT holding the FREQ=SECONDLY zones: other events answered, the zone's reported, health answering", async () => {
      const data = (ics: string) =>
        `<c:calendar-data>${ics.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</c:calendar-data>`;
      const objects = [
        hostileZoneCalendar('1600', 'Hostile/Old'),
        hostileZoneCalendar('2026', 'Hostile/New'),
      ];
      const server = await serve((req, res) =>
        res
          .writeHead(207)
          .end(
            req.method === 'REPORT'
              ? multistatus(
                  objects
                    .map((ics, i) =>
                      response(
                        `/calendars/ana/work/hostile-${i}.ics`,
                        `<d:getetag>"${i}"</d:getetag>${data(ics)}`,
                      ),
                    )
                    .join(''),
                )
              : multistatus(''),
          ),
      );
      const provider = createCaldavProvider({ http });
      const calendarUrl = `${server.url}calendars/ana/work/`;
      let read: Awaited<ReturnType<typeof provider.listEvents>> | undefined;
      const seen = await watched(async () => {
        read = await provider.listEvents(accountAt(server.url), calendarAt(calendarUrl), hostileWindow);
      });
      assert.deepEqual(
        read!.occurrences.map((o) => o.title),
        ['Plain', 'Plain'],
      );
      assert.ok(read!.skipped.length >= 2, JSON.stringify(read!.skipped));
      for (const item of read!.skipped) assert.match(item.reason, /time zone/);
      assertStayedHealthy(seen);
    });
  });

  describe('answers of megabytes of XML', () => {
    it('reads a 15 MB REPORT answer off the request thread: every event, no stall of the event loop', async () => {
      const description = `DESCRIPTION:${'Agenda item\\, '.repeat(240)}`;
      const object = (i: number) =>
        [
          'BEGIN:VCALENDAR',
          'VERSION:2.0',
          'PRODID:-//test//EN',
          'BEGIN:VEVENT',
          `UID:big-${i}`,
          'DTSTAMP:20260101T000000Z',
          'DTSTART:20260310T100000Z',
          'DURATION:PT1H',
          `SUMMARY:Big ${i}`,
          description,
          'END:VEVENT',
          'END:VCALENDAR',
        ].join('\r\n');
      const count = 4_000;
      const body = multistatus(
        Array.from({ length: count }, (_, i) =>
          response(
            `/calendars/ana/work/big-${i}.ics`,
            `<d:getetag>"${i}"</d:getetag><c:calendar-data>${object(i)}</c:calendar-data>`,
          ),
        ).join(''),
      );
      assert.ok(body.length > 15_000_000 && body.length < 16 * 1024 * 1024, String(body.length));
      // Encoded before the watch: the server shares this thread, and its own work is not measured.
      const bytes = Buffer.from(body);
      const server = await serve((req, res) =>
        res.writeHead(207).end(req.method === 'REPORT' ? bytes : multistatus('')),
      );
      const provider = createCaldavProvider({ http });
      const stalls: number[] = [];
      const stop = watchEventLoopStalls((ms) => stalls.push(Math.round(ms)), {
        thresholdMs: 200,
        everyMs: 20,
      });
      try {
        const read = await provider.listEvents(
          accountAt(server.url),
          calendarAt(`${server.url}calendars/ana/work/`),
          hostileWindow,
        );
        assert.equal(read.occurrences.length, count);
      } finally {
        stop();
      }
      assert.deepEqual(stalls, [], 'the event loop stalled (ms)');
    });
  });

  describe('answers without end', () => {
    it('stops reading a 300 MB REPORT at the limit: a clear error, memory low, health answering', async () => {
      const server = await serve((req, res) =>
        req.method === 'REPORT'
          ? endless(res, { status: 207, prefix: '<?xml version="1.0"?>' })
          : res.writeHead(207).end(multistatus('')),
      );
      const provider = createCaldavProvider({ http });
      const calendarUrl = `${server.url}calendars/ana/work/`;
      const seen = await watched(() =>
        rejectsWith(
          provider.listEvents(accountAt(server.url), calendarAt(calendarUrl), window),
          'payload_too_large',
          (error) => {
            assert.equal(error.details?.reason, 'too_large');
            assert.match(
              error.message,
              /answer for the calendar \(\/calendars\/ana\/work\/\) is larger than the 16 MiB/,
            );
          },
        ),
      );
      assertStayedHealthy(seen);
    });

    it('stops reading the first PROPFIND of a connect at the limit', async () => {
      const server = await serve((_, res) => endless(res, { status: 207 }));
      const { peakRss } = await watched(() =>
        rejectsWith(
          connectCaldav({ http }, { serverUrl: `${server.url}dav/`, ...user }),
          'payload_too_large',
          (error) =>
            assert.match(error.message, /answer for the principal \(\/dav\/\) is larger than the 4 MiB/),
        ),
      );
      assert.ok(peakRss < 1024 ** 3, `RSS peaked at ${Math.round(peakRss / 1024 ** 2)} MiB`);
      assert.equal(server.requests.length, 1, 'discovery ends at the first answer over the limit');
    });

    it('refuses an answer whose Content-Length is over the limit before reading it', async () => {
      const server = await serve((_, res) =>
        endless(res, { status: 207, headers: { 'content-length': String(300 * 1024 * 1024) } }),
      );
      await rejectsWith(
        connectCaldav({ http }, { serverUrl: `${server.url}dav/`, ...user }),
        'payload_too_large',
      );
    });
  });

  describe('hrefs naming another origin', () => {
    let elsewhere: LoopbackServer;
    before(async () => {
      elsewhere = await serve((_, res) => res.writeHead(207).end(multistatus('')));
    });
    const nothingSentElsewhere = () =>
      assert.deepEqual(
        elsewhere.requests.filter((r) => r.authorization),
        [],
        'the other origin received no credentials',
      );

    it('never follows a current-user-principal on another origin', async () => {
      const server = await serve((_, res) =>
        res.writeHead(207).end(multistatus(response('/dav/', principal(`${elsewhere.url}principals/ana/`)))),
      );
      await rejectsWith(
        connectCaldav({ http }, { serverUrl: `${server.url}dav/`, ...user }),
        'invalid_request',
        (error) => {
          assert.equal(error.details?.field, 'serverUrl');
          assert.equal(error.details?.reason, 'other_origin');
          assert.match(
            error.message,
            new RegExp(`the principal on another server \\(127\\.0\\.0\\.1:${elsewhere.port}\\)`),
          );
        },
      );
      assert.equal(elsewhere.requests.length, 0);
    });

    it('never follows a calendar-home-set or a calendar on another origin', async () => {
      let homeHref = `${elsewhere.url}calendars/ana/`;
      const server = await serve((req, res) => {
        if (req.headers.depth === '1')
          return res.writeHead(207).end(multistatus(calendarIn(`${elsewhere.url}work/`)));
        const props = req.url === '/principals/ana/' ? homeSet(homeHref) : principal('/principals/ana/');
        return res.writeHead(207).end(multistatus(response(req.url ?? '/', props)));
      });
      await rejectsWith(
        connectCaldav({ http }, { serverUrl: `${server.url}dav/`, ...user }),
        'invalid_request',
        (error) => assert.equal(error.details?.reason, 'other_origin'),
      );
      homeHref = '/calendars/ana/';
      await rejectsWith(
        connectCaldav({ http }, { serverUrl: `${server.url}dav/`, ...user }),
        'invalid_request',
        (error) => assert.match(error.message, /named a calendar on another server/),
      );
      const provider = createCaldavProvider({ http });
      await rejectsWith(
        provider.listCalendars(accountAt(`${server.url}calendars/ana/`)),
        'provider_unavailable',
        (error) => assert.equal(error.details?.reason, 'other_origin'),
      );
      nothingSentElsewhere();
    });

    it('skips an event object named on another origin', async () => {
      const server = await serve((_, res) =>
        res
          .writeHead(207)
          .end(multistatus(response(`${elsewhere.url}work/a.ics`, '<d:getetag>"1"</d:getetag>'))),
      );
      const provider = createCaldavProvider({ http });
      const result = await provider.listEvents(
        accountAt(server.url),
        calendarAt(`${server.url}work/`),
        window,
      );
      assert.deepEqual(result.occurrences, []);
      assert.deepEqual(result.skipped, [
        { providerEventId: `${elsewhere.url}work/a.ics`, reason: 'the server placed it on another server' },
      ]);
      nothingSentElsewhere();
    });
  });

  describe('private addresses', () => {
    it('refuses loopback servers when private networks are not allowed, before any request', async () => {
      const server = await serve((_, res) => res.writeHead(207).end(multistatus('')));
      for (const serverUrl of [server.url, `http://localhost:${server.port}/`]) {
        await rejectsWith(
          connectCaldav({ http, allowPrivateNetworks: false }, { serverUrl, ...user }),
          'invalid_request',
          (error) => {
            assert.equal(error.details?.field, 'serverUrl');
            assert.match(error.message, /private or local network.*CALDAV_ALLOW_PRIVATE_NETWORKS=true/);
          },
        );
      }
      const provider = createCaldavProvider({ http, allowPrivateNetworks: false });
      await rejectsWith(provider.listCalendars(accountAt(server.url)), 'provider_unavailable', (error) =>
        assert.equal(error.details?.reason, 'private_address'),
      );
      assert.equal(server.requests.length, 0);
    });
  });

  describe('addresses that are no CalDAV server', () => {
    it('gives the same code and message for a closed port, a silent port and one that speaks garbage', async () => {
      const quick = new ProviderHttp({ maxAttempts: 1, timeoutMs: 300 });
      const silent = await startSocketServer(() => {});
      const banner = await startSocketServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
      const garbage = await startSocketServer((socket) =>
        socket.once('data', () =>
          socket.end('HTTP/1.1 207 Multi-Status\r\nContent-Length: 900\r\n\r\n<d:multi'),
        ),
      );
      servers.push(silent, banner, garbage);
      const answers = [];
      for (const port of [await freePort(), silent.port, banner.port, garbage.port]) {
        const host = `127.0.0.1:${port}`;
        const error = await connectCaldav(
          { http: quick },
          { serverUrl: `http://${host}/dav/`, ...user },
        ).then(
          () => assert.fail('connected'),
          (error: unknown) => error,
        );
        assert.ok(error instanceof AppError, String(error));
        answers.push({
          code: error.code,
          details: error.details,
          message: error.message.replace(host, 'HOST'),
        });
      }
      assert.deepEqual(answers, Array(4).fill(answers[0]));
      assert.deepEqual(answers[0], {
        code: 'invalid_request',
        details: { field: 'serverUrl' },
        message: 'No CalDAV server answered at HOST; check the address.',
      });
    });
  });
});
