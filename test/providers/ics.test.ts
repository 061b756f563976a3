/**
 * ICS subscriptions against a local HTTP server: conditional requests, webcal, size and
 * redirect limits, the SSRF guard, and feeds that are not (valid) iCalendar.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { ProviderCalendar } from '../../src/domain/providerFacts.ts';
import { AppError } from '../../src/errors.ts';
import { createIcsProvider } from '../../src/providers/ics/adapter.ts';
import type { AccountAccess, CredentialsOf } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';

const feed = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Test//Feed//EN',
  'X-WR-CALNAME:Team\\, Berlin',
  'X-WR-TIMEZONE:Europe/Berlin',
  'BEGIN:VEVENT',
  'UID:standup@example.org',
  'DTSTAMP:20260301T000000Z',
  'DTSTART;TZID=Europe/Berlin:20260323T093000',
  'DURATION:PT15M',
  'RRULE:FREQ=DAILY;COUNT=10',
  'SUMMARY:Stand-up',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

const rejectsWith = (promise: Promise<unknown>, code: string, message?: RegExp) =>
  assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });

const account = (url: string): AccountAccess<CredentialsOf<'ics'>> => ({
  accountKey: 'acc_ics_test',
  credentials: { kind: 'ics', url },
  saveCredentials: async () => {},
});

// Monday 23 – Wednesday 25 March 2026 in Berlin (CET, UTC+1; DST begins on the 29th).
const window = {
  start: Temporal.Instant.from('2026-03-23T00:00:00Z'),
  end: Temporal.Instant.from('2026-03-25T23:00:00Z'),
};

describe('ICS subscriptions', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  const maxBytes = 4096;

  before(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '/';
      seen.push({ path, headers: request.headers });
      const hop = /^\/hop\/(\d+)$/.exec(path);
      if (path === '/feed.ics') {
        if (request.headers['if-none-match'] === '"v1"') return response.writeHead(304).end();
        return response
          .writeHead(200, {
            'content-type': 'text/calendar; charset=utf-8',
            etag: '"v1"',
            'last-modified': 'Sun, 01 Mar 2026 00:00:00 GMT',
          })
          .end(feed);
      }
      if (path === '/plain.ics')
        return response
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(feed.replace(/X-WR-CALNAME.*\r\n/, ''));
      if (hop) {
        const left = Number(hop[1]);
        return response.writeHead(302, { location: left === 0 ? '/feed.ics' : `/hop/${left - 1}` }).end();
      }
      if (path === '/to-metadata')
        return response.writeHead(301, { location: 'http://169.254.169.254/latest/' }).end();
      if (path === '/streamed-large.ics') {
        // No Content-Length: the limit must cut the stream itself.
        response.writeHead(200, { 'content-type': 'text/calendar' });
        response.write('BEGIN:VCALENDAR\r\n');
        const pad = `X-PAD:${'x'.repeat(1000)}\r\n`;
        let sent = 0;
        const more = () => {
          if (sent++ < 50 && !response.destroyed) response.write(pad, () => setImmediate(more));
          else response.end('END:VCALENDAR\r\n');
        };
        return more();
      }
      if (path === '/declared-large.ics') {
        return response
          .writeHead(200, { 'content-length': String(maxBytes * 10) })
          .end('x'.repeat(maxBytes * 10));
      }
      if (path === '/page') {
        return response
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!DOCTYPE html><h1>Our calendar</h1>');
      }
      if (path === '/cut-short.ics')
        return response.writeHead(200).end('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\n');
      if (path === '/one-broken-event.ics') {
        const broken = ['BEGIN:VEVENT', 'UID:broken@example.org', 'DTSTART:not a date', 'END:VEVENT', ''];
        return response
          .writeHead(200)
          .end(feed.replace('END:VCALENDAR', `${broken.join('\r\n')}END:VCALENDAR`));
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => server.close());

  /** webcal:// becomes https://; the test server speaks plain http, so the last step is undone here. */
  const fetched: string[] = [];
  const viaHttp: typeof fetch = (input, init) => {
    fetched.push(String(input));
    return fetch(String(input).replace(/^https:/, 'http:'), init);
  };
  const http = new ProviderHttp({ maxAttempts: 1, fetch: viaHttp });
  const provider = createIcsProvider({ http, maxBytes, allowPrivateNetworks: true });

  it('lists the feed as one read-only calendar named by X-WR-CALNAME, in its X-WR-TIMEZONE', async () => {
    const calendars = await provider.listCalendars(account(`${base}/feed.ics`));
    assert.deepEqual(calendars, [
      {
        providerCalendarId: `${base}/feed.ics`,
        name: 'Team, Berlin',
        timeZone: 'Europe/Berlin',
        primary: false,
        access: 'reader',
      },
    ] satisfies ProviderCalendar[]);
    const [unnamed] = await provider.listCalendars(account(`${base}/plain.ics`));
    assert.equal(unnamed?.name, '127.0.0.1');
  });

  it('asks again with If-None-Match and If-Modified-Since, and uses the cached feed on 304', async () => {
    const fresh = createIcsProvider({ http, allowPrivateNetworks: true });
    const url = `${base}/feed.ics`;
    seen.length = 0;
    const [calendar] = await fresh.listCalendars(account(url));
    const first = await fresh.listEvents(account(url), calendar!, window);
    assert.equal(seen.length, 2);
    assert.equal(seen[0]!.headers['if-none-match'], undefined);
    assert.equal(seen[1]!.headers['if-none-match'], '"v1"');
    assert.equal(seen[1]!.headers['if-modified-since'], 'Sun, 01 Mar 2026 00:00:00 GMT');
    assert.deepEqual(
      first.occurrences.map((o) => [o.providerEventId, o.start, o.timeZone, o.title, o.facts.managedCopy]),
      [
        ['standup@example.org', '2026-03-23T09:30:00', 'Europe/Berlin', 'Stand-up', true],
        ['standup@example.org', '2026-03-24T09:30:00', 'Europe/Berlin', 'Stand-up', true],
        ['standup@example.org', '2026-03-25T09:30:00', 'Europe/Berlin', 'Stand-up', true],
      ],
    );
  });

  it('turns webcal:// and webcals:// into https://', async () => {
    fetched.length = 0;
    const host = base.slice('http://'.length);
    const [calendar] = await provider.listCalendars(account(`webcal://${host}/feed.ics`));
    await provider.listCalendars(account(`WEBCALS://${host}/feed.ics`));
    assert.deepEqual(fetched, [`https://${host}/feed.ics`, `https://${host}/feed.ics`]);
    assert.equal(calendar?.providerCalendarId, `https://${host}/feed.ics`);
    await rejectsWith(
      provider.listCalendars(account('ftp://example.org/feed.ics')),
      'invalid_request',
      /webcal/,
    );
  });

  it('reads one event from the feed', async () => {
    const [calendar] = await provider.listCalendars(account(`${base}/feed.ics`));
    const listed = await provider.listEvents(account(`${base}/feed.ics`), calendar!, window);
    const second = listed.occurrences[1]!;
    assert.deepEqual(
      await provider.getEvent(
        account(`${base}/feed.ics`),
        calendar!,
        second.providerEventId,
        second.recurrenceId,
      ),
      second,
    );
    const series = await provider.getEvent(account(`${base}/feed.ics`), calendar!, 'standup@example.org');
    assert.equal(series?.start, '2026-03-23T09:30:00');
    assert.equal(
      await provider.getEvent(account(`${base}/feed.ics`), calendar!, 'unknown@example.org'),
      undefined,
    );
  });

  it('stops reading a feed beyond the size limit', async () => {
    await rejectsWith(provider.listCalendars(account(`${base}/streamed-large.ics`)), 'payload_too_large');
    await rejectsWith(provider.listCalendars(account(`${base}/declared-large.ics`)), 'payload_too_large');
  });

  it('refuses what is not iCalendar, and feeds that are cut short or gone', async () => {
    await rejectsWith(
      provider.listCalendars(account(`${base}/page`)),
      'invalid_request',
      /does not serve an iCalendar feed \(text\/html/,
    );
    await rejectsWith(
      provider.listCalendars(account(`${base}/cut-short.ics`)),
      'invalid_request',
      /END:VCALENDAR/,
    );
    await rejectsWith(provider.listCalendars(account(`${base}/gone.ics`)), 'not_found');
  });

  it('reports a malformed event by its UID and still lists the others', async () => {
    const url = `${base}/one-broken-event.ics`;
    const [calendar] = await provider.listCalendars(account(url));
    const result = await provider.listEvents(account(url), calendar!, window);
    assert.equal(result.occurrences.length, 3);
    assert.equal(result.skipped.length, 1);
    assert.equal(result.skipped[0]!.providerEventId, 'broken@example.org');
    assert.match(result.skipped[0]!.reason, /malformed/);
  });

  it('follows up to five redirects and no more', async () => {
    // /hop/4 → /hop/3 → … → /hop/0 → /feed.ics is five redirects.
    const [calendar] = await provider.listCalendars(account(`${base}/hop/4`));
    assert.equal(calendar?.name, 'Team, Berlin');
    await rejectsWith(
      provider.listCalendars(account(`${base}/hop/5`)),
      'invalid_request',
      /redirected more than 5/,
    );
  });

  it('refuses private and loopback addresses unless allowed, before every request and redirect', async () => {
    const guarded = createIcsProvider({ http });
    seen.length = 0;
    await rejectsWith(
      guarded.listCalendars(account(`${base}/feed.ics`)),
      'invalid_request',
      /private or local network, which is not allowed\. The operator can allow it with ICS_ALLOW_PRIVATE_NETWORKS=true\./,
    );
    await rejectsWith(
      guarded.listCalendars(account(`http://localhost:${new URL(base).port}/feed.ics`)),
      'invalid_request',
      /private or local network/,
    );
    assert.equal(seen.length, 0, 'nothing was requested');

    // A public address (served here by the local server) that redirects to the metadata service.
    const publicHost = '93.184.215.14';
    const fromPublic = new ProviderHttp({
      maxAttempts: 1,
      fetch: (input, init) => fetch(String(input).replace(publicHost, new URL(base).host), init),
    });
    const redirected = createIcsProvider({ http: fromPublic });
    await rejectsWith(
      redirected.listCalendars(account(`http://${publicHost}/to-metadata`)),
      'invalid_request',
      /169\.254\.169\.254/,
    );
    assert.deepEqual(
      seen.map((s) => s.path),
      ['/to-metadata'],
    );
  });
});
