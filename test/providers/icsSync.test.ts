/**
 * Syncing the copy of an ICS subscription against a local HTTP server whose feeds change between
 * syncs: conditional requests by ETag, by Last-Modified and without validators, the diff against
 * the copy's versions, bounded batches, feeds that stop being iCalendar, a budget that runs out,
 * and a full sync that holds exactly what listEvents reads from the fixtures.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { calendarLimits } from '../../src/domain/budget.ts';
import type { ProviderCalendar, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { TimeWindow } from '../../src/domain/window.ts';
import { createExpansionPool } from '../../src/providers/expansionPool.ts';
import { createIcsProvider } from '../../src/providers/ics/adapter.ts';
import { nearWindow } from '../../src/providers/nearWindow.ts';
import type { AccountAccess, CredentialsOf, SyncBatch, SyncedItem } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { fixture, window } from '../domain/icalFixtures.ts';
import { rejectsWith } from '../helpers/appErrors.ts';

const event = (uid: string, start: string, summary: string, extra: string[] = []) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20260301T000000Z',
  `DTSTART;TZID=Europe/Berlin:${start}`,
  'DURATION:PT1H',
  `SUMMARY:${summary}`,
  ...extra,
  'END:VEVENT',
];

const feedOf = (...events: string[][]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//Sync//EN', ...events.flat(), 'END:VCALENDAR', ''].join(
    '\r\n',
  );

const standup = event('standup@example.org', '20260302T093000', 'Stand-up', ['RRULE:FREQ=WEEKLY;COUNT=8']);
const review = event('review@example.org', '20260310T140000', 'Review');
const retro = event('retro@example.org', '20260320T160000', 'Retro');
/** Not items of the copy: long past, and a day that ends before March begins anywhere on earth. */
const ancient = event('ancient@example.org', '20200101T100000', 'Ancient');
const eve = [
  'BEGIN:VEVENT',
  'UID:eve@example.org',
  'DTSTAMP:20260301T000000Z',
  'DTSTART;VALUE=DATE:20260227',
  'SUMMARY:Eve',
  'END:VEVENT',
];
const baseFeed = feedOf(standup, review, retro, ancient, eve);

const march = window('2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z');

type Validators = 'etag' | 'last-modified' | 'none';

interface Served {
  body: string;
  validators: Validators;
  contentType?: string;
  /** Changes with every new body, as servers keep it. */
  lastModified: string;
}

/** The service's copy as the caller keeps it, applying one batch at a time by the port's rules. */
class Copy {
  items = new Map<string, SyncedItem>();
  state: string | undefined;
  knownVersionsAsked = 0;

  request(horizon: TimeWindow) {
    return {
      horizon,
      ...(this.state !== undefined && { state: this.state }),
      knownVersions: async () => {
        this.knownVersionsAsked++;
        return new Map([...this.items].map(([key, item]) => [key, item.version]));
      },
    };
  }

  apply(batches: SyncBatch[]): void {
    const upserted = new Set<string>();
    for (const [index, batch] of batches.entries()) {
      assert.equal(batch.nextState !== undefined, index === batches.length - 1, 'the state only on the last');
      for (const item of batch.upserts) {
        this.items.set(item.key, item);
        upserted.add(item.key);
      }
      for (const key of batch.removals) this.items.delete(key);
      if (batch.full && index === batches.length - 1) {
        for (const key of this.items.keys()) if (!upserted.has(key)) this.items.delete(key);
      }
    }
    this.state = batches.at(-1)?.nextState;
  }

  occurrences(): ProviderOccurrence[] {
    return [...this.items.values()].flatMap((item) => item.occurrences);
  }
}

const byEventThenRecurrence = (a: ProviderOccurrence, b: ProviderOccurrence) =>
  a.providerEventId.localeCompare(b.providerEventId) ||
  (a.recurrenceId ?? '').localeCompare(b.recurrenceId ?? '') ||
  a.start.localeCompare(b.start);

describe('ICS sync', () => {
  let server: Server;
  let base: string;
  const feeds = new Map<string, Served>();
  const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  const pool = createExpansionPool({ workers: 1 });
  const http = new ProviderHttp({ maxAttempts: 1 });
  const provider = createIcsProvider({ http, allowPrivateNetworks: true, pool });
  let modified = Temporal.Instant.from('2026-03-01T00:00:00Z');

  const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
  /** Serves `body` at `path` from now on. */
  function serve(path: string, body: string, validators: Validators = 'etag', contentType = 'text/calendar') {
    modified = modified.add({ hours: 1 });
    const lastModified = new Date(modified.epochMilliseconds).toUTCString();
    feeds.set(path, { body, validators, contentType, lastModified });
    return `${base}${path}`;
  }

  before(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '/';
      seen.push({ path, headers: request.headers });
      const served = feeds.get(path);
      if (served === undefined) return response.writeHead(404).end();
      const headers: Record<string, string> = { 'content-type': served.contentType ?? 'text/calendar' };
      if (served.validators === 'etag') {
        headers.etag = etagOf(served.body);
        if (request.headers['if-none-match'] === headers.etag) return response.writeHead(304, headers).end();
      }
      if (served.validators === 'last-modified') {
        headers['last-modified'] = served.lastModified;
        if (request.headers['if-modified-since'] === served.lastModified) {
          return response.writeHead(304, headers).end();
        }
      }
      response.writeHead(200, headers).end(served.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(async () => {
    server.close();
    await pool.close();
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const account = (url: string): AccountAccess<CredentialsOf<'ics'>> => ({
    accountKey: 'acc_ics_sync',
    credentials: { kind: 'ics', url },
    saveCredentials: async () => {},
  });
  const calendarOf = (url: string): ProviderCalendar => ({
    providerCalendarId: url,
    name: 'Feed',
    primary: false,
    access: 'reader',
  });

  /** Every batch of one sync, pulled one at a time as the caller does. */
  async function sync(
    url: string,
    request: ReturnType<Copy['request']>,
    using = provider,
    pulled: SyncBatch[] = [],
  ): Promise<SyncBatch[]> {
    for await (const batch of using.sync!.syncCalendar(account(url), calendarOf(url), request)) {
      pulled.push(batch);
    }
    return pulled;
  }

  async function syncedCopy(url: string, horizon = march): Promise<Copy> {
    const copy = new Copy();
    copy.apply(await sync(url, copy.request(horizon)));
    return copy;
  }

  it('starts with a full sync: every item in the horizon, one batch, the state on it', async () => {
    const url = serve('/first.ics', baseFeed);
    const copy = new Copy();
    const batches = await sync(url, copy.request(march));
    assert.equal(batches.length, 1);
    const [batch] = batches;
    assert.equal(batch!.full, true);
    assert.deepEqual(batch!.upserts.map((item) => item.key).sort(), [
      'retro@example.org',
      'review@example.org',
      'standup@example.org',
    ]);
    assert.deepEqual(batch!.removals, []);
    assert.equal(batch!.upserts.find((item) => item.key === 'standup@example.org')!.occurrences.length, 5);
    for (const item of batch!.upserts) {
      assert.ok(item.occurrences.every((occurrence) => occurrence.providerEventId === item.key));
      assert.ok(item.occurrences.every((occurrence) => occurrence.facts.managedCopy));
      // The content's sha256, cut to 128 bits.
      assert.match(item.version, /^[\w-]{22}$/);
    }
    assert.equal(copy.knownVersionsAsked, 0, 'a full sync replaces the copy without comparing');
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.headers['if-none-match'], undefined);
  });

  it('asks again with the ETag: 304, one request, no changes, the same state', async () => {
    const url = serve('/etag.ics', baseFeed);
    const copy = await syncedCopy(url);
    const before = copy.state;
    seen.length = 0;
    const batches = await sync(url, copy.request(march));
    assert.deepEqual(batches, [{ full: false, upserts: [], removals: [], skipped: [], nextState: before }]);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.headers['if-none-match'], etagOf(baseFeed));
    assert.equal(copy.knownVersionsAsked, 0);
  });

  it('upserts exactly the event that changed, with a new version', async () => {
    const url = serve('/changed.ics', baseFeed);
    const copy = await syncedCopy(url);
    const old = copy.items.get('review@example.org')!.version;
    serve('/changed.ics', feedOf(standup, event('review@example.org', '20260310T150000', 'Review'), retro));
    const batches = await sync(url, copy.request(march));
    assert.equal(batches.length, 1);
    assert.equal(batches[0]!.full, false);
    assert.deepEqual(
      batches[0]!.upserts.map((item) => item.key),
      ['review@example.org'],
    );
    assert.notEqual(batches[0]!.upserts[0]!.version, old);
    assert.equal(batches[0]!.upserts[0]!.occurrences[0]!.start, '2026-03-10T15:00:00');
    assert.deepEqual(batches[0]!.removals, []);
    assert.notEqual(batches[0]!.nextState, copy.state, 'the new ETag is kept');
  });

  it('removes an event that left the feed, and nothing else', async () => {
    const url = serve('/removed.ics', baseFeed);
    const copy = await syncedCopy(url);
    serve('/removed.ics', feedOf(standup, retro, ancient));
    const batches = await sync(url, copy.request(march));
    assert.deepEqual(
      batches.map(({ upserts, removals }) => ({ upserts, removals })),
      [{ upserts: [], removals: ['review@example.org'] }],
    );
    copy.apply(batches);
    assert.deepEqual([...copy.items.keys()].sort(), ['retro@example.org', 'standup@example.org']);
  });

  it('throws what listEvents throws when the feed turns into HTML, and yields nothing', async () => {
    const url = serve('/turns-html.ics', baseFeed);
    const copy = await syncedCopy(url);
    serve('/turns-html.ics', '<!DOCTYPE html><h1>Moved</h1>', 'etag', 'text/html');
    const pulled: SyncBatch[] = [];
    const reason = (error: { details?: Record<string, unknown> }) =>
      assert.equal(error.details?.reason, 'not_calendar_data');
    await rejectsWith(sync(url, copy.request(march), provider, pulled), 'invalid_request', reason);
    await rejectsWith(provider.listEvents(account(url), calendarOf(url), march), 'invalid_request', reason);
    assert.deepEqual(pulled, []);

    feeds.delete('/turns-html.ics');
    await rejectsWith(sync(url, copy.request(march), provider, pulled), 'not_found');
    assert.deepEqual(pulled, []);
  });

  it('asks with If-Modified-Since when the server gives only Last-Modified', async () => {
    const url = serve('/last-modified.ics', baseFeed, 'last-modified');
    const copy = await syncedCopy(url);
    const stamp = feeds.get('/last-modified.ics')!.lastModified;
    seen.length = 0;
    const unchanged = await sync(url, copy.request(march));
    assert.deepEqual(unchanged, [
      { full: false, upserts: [], removals: [], skipped: [], nextState: copy.state },
    ]);
    assert.equal(seen[0]!.headers['if-modified-since'], stamp);
    assert.equal(seen[0]!.headers['if-none-match'], undefined);

    serve('/last-modified.ics', feedOf(standup, review), 'last-modified');
    const changed = await sync(url, copy.request(march));
    assert.deepEqual(changed[0]!.removals, ['retro@example.org']);
    assert.deepEqual(changed[0]!.upserts, []);
    copy.apply(changed);
    seen.length = 0;
    await sync(url, copy.request(march));
    assert.equal(seen[0]!.headers['if-modified-since'], feeds.get('/last-modified.ics')!.lastModified);
  });

  it('reads a feed without validators every time, and the diff leaves an unchanged copy alone', async () => {
    const url = serve('/no-validators.ics', baseFeed, 'none');
    const copy = await syncedCopy(url);
    seen.length = 0;
    const again = await sync(url, copy.request(march));
    assert.deepEqual(again, [{ full: false, upserts: [], removals: [], skipped: [], nextState: copy.state }]);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.headers['if-none-match'], undefined);
    assert.equal(seen[0]!.headers['if-modified-since'], undefined);
    assert.equal(copy.knownVersionsAsked, 1);
  });

  it('reads the feed again when the horizon moves: items leave and enter the copy', async () => {
    const url = serve('/moving.ics', baseFeed);
    const copy = await syncedCopy(url);
    seen.length = 0;
    // From the 15th: the review (10 March) leaves; the stand-up keeps its later weeks, April's too.
    const later = window('2026-03-15T00:00:00Z', '2026-04-15T00:00:00Z');
    const batches = await sync(url, copy.request(later));
    assert.equal(seen[0]!.headers['if-none-match'], undefined, 'a 304 would say nothing of the new horizon');
    assert.deepEqual(batches[0]!.removals, ['review@example.org']);
    assert.deepEqual(
      batches[0]!.upserts.map((item) => [item.key, item.occurrences.map((occurrence) => occurrence.start)]),
      [
        [
          'standup@example.org',
          [
            '2026-03-16T09:30:00',
            '2026-03-23T09:30:00',
            '2026-03-30T09:30:00',
            '2026-04-06T09:30:00',
            '2026-04-13T09:30:00',
          ],
        ],
      ],
    );
  });

  it('starts over with a full sync, every item upserted, when the state is not one it wrote', async () => {
    const url = serve('/foreign-state.ics', baseFeed);
    const copy = await syncedCopy(url);
    for (const state of ['not json', 'null', '{"validators":{"etag":7},"horizon":{}}']) {
      seen.length = 0;
      copy.state = state;
      const batches = await sync(url, copy.request(march));
      assert.equal(batches[0]!.full, true, state);
      assert.equal(batches[0]!.upserts.length, 3, state);
      assert.equal(seen[0]!.headers['if-none-match'], undefined, state);
    }
  });

  it('cuts many changes into bounded batches, every one of the full sync marked full', async () => {
    const many = Array.from({ length: 1203 }, (_, i) =>
      event(`bulk-${String(i).padStart(4, '0')}@example.org`, '20260311T080000', `Item ${i}`),
    );
    const url = serve('/many.ics', feedOf(...many));
    const copy = new Copy();
    const batches = await sync(url, copy.request(march));
    assert.deepEqual(
      batches.map((batch) => [batch.full, batch.upserts.length, batch.nextState !== undefined]),
      [
        [true, 500, false],
        [true, 500, false],
        [true, 203, true],
      ],
    );
    copy.apply(batches);
    assert.equal(copy.items.size, 1203);

    // 600 removed, 2 changed: removals share the bound with upserts.
    const kept = many.slice(0, 603);
    kept[0] = event('bulk-0000@example.org', '20260311T090000', 'Item 0');
    kept[1] = event('bulk-0001@example.org', '20260311T090000', 'Item 1');
    serve('/many.ics', feedOf(...kept));
    const diff = await sync(url, copy.request(march));
    assert.deepEqual(
      diff.map((batch) => [batch.full, batch.upserts.length, batch.removals.length]),
      [
        [false, 2, 498],
        [false, 0, 102],
      ],
    );
    copy.apply(diff);
    assert.equal(copy.items.size, 603);
  });

  it('removes nothing and keeps no validators when the budget runs out before the feed is read', async () => {
    const small = createExpansionPool({ workers: 1, limits: { ...calendarLimits, occurrences: 4 } });
    try {
      const tight = createIcsProvider({ http, allowPrivateNetworks: true, pool: small });
      const url = serve('/over-budget.ics', feedOf(review, retro));
      const copy = new Copy();
      copy.apply(await sync(url, copy.request(march), tight));
      assert.equal(copy.items.size, 2);

      // The stand-up's five occurrences spend the budget: the review and retro are not reached.
      serve('/over-budget.ics', feedOf(standup, review, retro));
      const batches = await sync(url, copy.request(march), tight);
      assert.deepEqual(batches[0]!.removals, [], 'events the budget did not reach are not gone');
      assert.ok(batches[0]!.skipped.some((item) => /left out/.test(item.reason)));
      copy.apply(batches);
      assert.deepEqual([...copy.items.keys()].sort(), ['retro@example.org', 'review@example.org']);
      seen.length = 0;
      await sync(url, copy.request(march), tight);
      assert.equal(seen[0]!.headers['if-none-match'], undefined, 'an incomplete read is read again');
    } finally {
      await small.close();
    }
  });

  // Each fixture in a horizon around its events and a window inside it.
  const fixtures: Array<[name: string, horizon: TimeWindow, window: TimeWindow]> = [
    [
      'community-calendar-berlin.ics', // recurring rules across DST changes, moved instances
      window('2021-05-01T00:00:00Z', '2022-07-01T00:00:00Z'),
      window('2021-09-15T00:00:00Z', '2021-11-01T00:00:00Z'),
    ],
    [
      'thunderbird-moved-instances.ics', // overrides
      window('2023-10-01T00:00:00Z', '2023-12-01T00:00:00Z'),
      window('2023-11-06T00:00:00Z', '2023-11-14T12:00:00Z'),
    ],
    [
      'override-before-master-zero-length.ics', // an override before its master, zero length
      window('2023-10-01T00:00:00Z', '2024-03-01T00:00:00Z'),
      window('2023-12-01T00:00:00Z', '2024-01-01T00:00:00Z'),
    ],
    [
      'zoned-series-rdates-exdates-overrides.ics', // RDATEs, EXDATEs, overrides in two forms
      window('2022-09-01T00:00:00Z', '2023-06-01T00:00:00Z'),
      window('2022-09-01T00:00:00Z', '2022-12-31T00:00:00Z'),
    ],
    [
      'all-day-weekdays-absolute-alarms.ics', // all-day weekdays in the feed's zone
      window('2023-07-01T00:00:00Z', '2023-10-01T00:00:00Z'),
      window('2023-08-01T07:00:00Z', '2023-08-15T07:00:00Z'),
    ],
    [
      'confidential-yearly-all-day.ics', // yearly all-day
      window('2020-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
      window('2024-10-01T00:00:00Z', '2024-11-01T00:00:00Z'),
    ],
    [
      'floating-times-x-wr-timezone.ics', // floating, placed with X-WR-TIMEZONE
      window('2022-01-01T00:00:00Z', '2023-01-01T00:00:00Z'),
      window('2022-05-12T17:00:00Z', '2022-05-12T18:00:00Z'),
    ],
  ];

  for (const [name, horizon, inside] of fixtures) {
    it(`holds after a full sync what listEvents reads in a window: ${name}`, async () => {
      const url = serve(`/fixture/${name}`, fixture(name));
      const copy = await syncedCopy(url, horizon);
      const near = (occurrence: ProviderOccurrence) => nearWindow(occurrence, inside);
      const fromCopy = copy.occurrences().filter(near).sort(byEventThenRecurrence);
      const live = await provider.listEvents(account(url), calendarOf(url), inside);
      assert.ok(fromCopy.length > 0, 'the window holds occurrences');
      assert.deepEqual(fromCopy, live.occurrences.filter(near).sort(byEventThenRecurrence));
    });
  }
});
