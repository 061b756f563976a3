/**
 * CalDAV sync against a real Radicale: RFC 6578 sync-collection (full in batches, incremental,
 * unchanged, rejected tokens), the ctag/ETag fallback behind a proxy that refuses
 * sync-collection, a failure between batches, and the copy reading as the live calendar on the
 * project's fixtures. Loopback servers answer what Radicale never would: hrefs outside the
 * calendar, truncated answers, endless member lists.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { ProviderCalendar, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { TimeWindow } from '../../src/domain/window.ts';
import { connectCaldav, createCaldavProvider } from '../../src/providers/caldav/adapter.ts';
import { nearWindow } from '../../src/providers/nearWindow.ts';
import type { AccountAccess, CredentialsOf, SyncBatch, SyncRequest } from '../../src/providers/port.ts';
import { ProviderHttp } from '../../src/providers/providerHttp.ts';
import { rejectsWith } from '../helpers/appErrors.ts';
import { FaultProxy } from '../helpers/faultProxy.ts';
import { type LoopbackServer, startHttpServer } from '../helpers/hostileServers.ts';
import {
  basicAuth,
  mkcalendar,
  putIcs,
  type RadicaleServer,
  radicaleMissing,
  startRadicale,
} from '../helpers/radicale.ts';
import { fixtureIcs, vcalendar } from '../helpers/radicaleCalendars.ts';

const skip = radicaleMissing();

type Account = AccountAccess<CredentialsOf<'caldav'>>;
const alice = { username: 'alice', password: 'alice-password' };
const http = new ProviderHttp({ maxAttempts: 1 });
const provider = createCaldavProvider({ http });
const sync = provider.sync!;

const at = (iso: string) => Temporal.Instant.from(iso);
const horizon: TimeWindow = { start: at('2026-01-01T00:00:00Z'), end: at('2027-01-01T00:00:00Z') };

const accountAt = (serverUrl: string): Account => ({
  accountKey: `acc_sync ${serverUrl}`,
  credentials: { kind: 'caldav', serverUrl, calendarHomeUrl: `${serverUrl}alice/`, ...alice },
  saveCredentials: async () => {},
});
const calendarAt = (url: string): ProviderCalendar => ({
  providerCalendarId: url,
  name: 'Calendar',
  primary: true,
  access: 'owner',
});

/** What the service keeps of a calendar: key → version and occurrences. */
type Copy = Map<string, { version: string; occurrences: ProviderOccurrence[] }>;

const requestFor = (copy: Copy, state: string | undefined, window = horizon): SyncRequest => ({
  horizon: window,
  ...(state !== undefined && { state }),
  knownVersions: async () => new Map([...copy].map(([key, item]) => [key, item.version])),
});

async function collect(batches: AsyncIterable<SyncBatch>): Promise<SyncBatch[]> {
  const all: SyncBatch[] = [];
  for await (const batch of batches) all.push(batch);
  return all;
}

/** Applies batches as the port says the caller does; the saved state. */
function apply(copy: Copy, batches: SyncBatch[]): string | undefined {
  const upserted = new Set<string>();
  for (const batch of batches) {
    for (const key of batch.removals) copy.delete(key);
    for (const item of batch.upserts) {
      copy.set(item.key, { version: item.version, occurrences: item.occurrences });
      upserted.add(item.key);
    }
  }
  if (batches.at(-1)?.full) for (const key of copy.keys()) if (!upserted.has(key)) copy.delete(key);
  return batches.at(-1)?.nextState;
}

const keysOf = (batches: SyncBatch[]) =>
  batches.flatMap((batch) => batch.upserts.map((item) => item.key)).sort();
const removalsOf = (batches: SyncBatch[]) => batches.flatMap((batch) => batch.removals).sort();

/** Occurrences in one order: by event id, then recurrence id. */
const sorted = (occurrences: ProviderOccurrence[]) =>
  occurrences.toSorted((a, b) =>
    `${a.providerEventId} ${a.recurrenceId ?? ''}`.localeCompare(
      `${b.providerEventId} ${b.recurrenceId ?? ''}`,
    ),
  );

/** Event `n`: one hour on day n of 2026 (past the horizon for every tenth). */
const numbered = (n: number, summary = `Event ${n}`) => [
  `UID:ev-${n}`,
  `DTSTART:${n % 10 === 0 ? '2031' : '2026'}${Temporal.PlainDate.from('2026-01-01')
    .add({ days: n % 360 })
    .toString()
    .slice(4)
    .replaceAll('-', '')}T090000Z`,
  'DURATION:PT1H',
  `SUMMARY:${summary}`,
];

describe('CalDAV sync against Radicale', { skip }, () => {
  let radicale: RadicaleServer;
  /** In front of Radicale: counts requests, fails chosen ones. */
  let proxy: FaultProxy;
  /** In front of Radicale, refusing every sync-collection REPORT (a server without RFC 6578). */
  let noSync: FaultProxy;
  const etags = new Map<string, string | null>();
  const direct = (slug: string) => `${radicale.url}alice/${slug}/`;

  async function remove(slug: string, name: string): Promise<void> {
    const response = await fetch(new URL(name, direct(slug)), {
      method: 'DELETE',
      headers: { authorization: basicAuth(alice.username, alice.password) },
    });
    assert.equal(response.status, 200);
  }

  before(async () => {
    radicale = await startRadicale({ users: { [alice.username]: alice.password } });
    proxy = await FaultProxy.start(radicale.url);
    noSync = await FaultProxy.start(radicale.url);
    noSync.inject({
      method: 'REPORT',
      body: /sync-collection/,
      status: 501,
      times: Number.POSITIVE_INFINITY,
    });
    // Alice's first request makes Radicale create her principal collection.
    await connectCaldav({ http }, { serverUrl: radicale.url, ...alice });
    for (const slug of ['big', 'plain', 'fixtures'])
      await mkcalendar(direct(slug), alice, { displayName: slug });
    const events = Array.from({ length: 230 }, (_, n) => numbered(n));
    for (const [uid, { etag }] of await putIcs(direct('big'), alice, vcalendar(...events)))
      etags.set(uid, etag);
  });
  after(async () => {
    await proxy?.close();
    await noSync?.close();
    await radicale?.stop();
  });

  describe('with sync-collection', () => {
    const copy: Copy = new Map();
    let state: string | undefined;
    const big = () => calendarAt(`${proxy.url}alice/big/`);

    it('a full sync of fewer objects than a chunk is one batch (nothing to stage), full, with the state', async () => {
      const multigets = proxy.count('REPORT');
      const batches = await collect(
        sync.syncCalendar(accountAt(proxy.url), big(), requestFor(copy, undefined)),
      );
      assert.deepEqual(
        batches.map((batch) => batch.upserts.length),
        [230],
      );
      assert.ok(
        batches.every((batch) => batch.full && batch.removals.length === 0 && batch.skipped.length === 0),
      );
      assert.match(batches[0]!.nextState!, /^sync:http:\/\/radicale\.org\/ns\/sync\/[0-9a-f]{64}$/);
      assert.equal(proxy.count('REPORT') - multigets, 2, 'one sync-collection, one multiget');
      const items = new Map(batches.flatMap((batch) => batch.upserts).map((item) => [item.key, item]));
      assert.equal(items.size, 230);
      const third = items.get(`${proxy.url}alice/big/ev-3.ics`)!;
      assert.equal(third.version, etags.get('ev-3'));
      assert.deepEqual(
        third.occurrences.map((o) => [o.providerEventId, o.start, o.timeZone, o.title]),
        [['ev-3.ics#ev-3', '2026-01-04T09:00:00', 'Etc/UTC', 'Event 3']],
      );
      // Outside the horizon: kept, with its version, without occurrences.
      assert.deepEqual(items.get(`${proxy.url}alice/big/ev-10.ics`)!.occurrences, []);
      state = apply(copy, batches);
    });

    it('an incremental sync yields exactly the objects put, changed and deleted since', async () => {
      await putIcs(direct('big'), alice, vcalendar(numbered(500), numbered(5, 'Event 5 moved')));
      await remove('big', 'ev-7.ics');
      const batches = await collect(sync.syncCalendar(accountAt(proxy.url), big(), requestFor(copy, state)));
      assert.equal(batches.length, 1);
      const [batch] = batches;
      assert.equal(batch!.full, false);
      assert.deepEqual(keysOf(batches), [
        `${proxy.url}alice/big/ev-5.ics`,
        `${proxy.url}alice/big/ev-500.ics`,
      ]);
      assert.deepEqual(removalsOf(batches), [`${proxy.url}alice/big/ev-7.ics`]);
      const moved = batch!.upserts.find((item) => item.key.endsWith('ev-5.ics'))!;
      assert.notEqual(moved.version, copy.get(moved.key)!.version);
      assert.equal(moved.occurrences[0]!.title, 'Event 5 moved');
      assert.ok(batch!.nextState?.startsWith('sync:') && batch!.nextState !== state);
      state = apply(copy, batches);
      // The copy now holds what a new full sync holds.
      const fresh: Copy = new Map();
      apply(
        fresh,
        await collect(sync.syncCalendar(accountAt(proxy.url), big(), requestFor(fresh, undefined))),
      );
      assert.deepEqual(copy, fresh);
    });

    it('an unchanged calendar: one empty batch with the same state, after one request', async () => {
      const before = proxy.requests.length;
      const batches = await collect(sync.syncCalendar(accountAt(proxy.url), big(), requestFor(copy, state)));
      assert.deepEqual(batches, [{ full: false, upserts: [], removals: [], skipped: [], nextState: state }]);
      assert.deepEqual(
        proxy.requests.slice(before).map((r) => r.method),
        ['REPORT'],
      );
    });

    for (const [name, rejected] of [
      ['a token the server does not know', `sync:http://radicale.org/ns/sync/${'0'.repeat(64)}`],
      ['a malformed token', 'sync:not a token'],
      ['a state this adapter never wrote', 'delta:abc'],
    ] as const) {
      it(`${name} starts over as a full sync in the same iteration`, async () => {
        const batches = await collect(
          sync.syncCalendar(accountAt(proxy.url), big(), requestFor(copy, rejected)),
        );
        assert.ok(batches.every((batch) => batch.full));
        assert.equal(keysOf(batches).length, copy.size);
        assert.equal(batches.at(-1)!.nextState, state);
        assert.ok(batches.slice(0, -1).every((batch) => batch.nextState === undefined));
      });
    }
  });

  describe('without sync-collection (ctag and ETags)', () => {
    const copy: Copy = new Map();
    let state: string | undefined;
    const plain = () => calendarAt(`${noSync.url}alice/plain/`);

    it('a full sync lists every member and fetches them all, with the ctag as state', async () => {
      await putIcs(direct('plain'), alice, vcalendar(...Array.from({ length: 150 }, (_, n) => numbered(n))));
      const batches = await collect(
        sync.syncCalendar(accountAt(noSync.url), plain(), requestFor(copy, undefined)),
      );
      assert.deepEqual(
        batches.map((batch) => [batch.full, batch.upserts.length, batch.nextState !== undefined]),
        [[true, 150, true]],
      );
      assert.match(batches[0]!.nextState!, /^ctag:.+/);
      assert.deepEqual(
        noSync.requests.filter((r) => r.method === 'REPORT').map((r) => r.status),
        [501, 207],
        'the refused sync-collection, then one multiget',
      );
      state = apply(copy, batches);
    });

    it('an unchanged ctag: one empty batch with the same state, after one PROPFIND', async () => {
      const before = noSync.requests.length;
      const batches = await collect(
        sync.syncCalendar(accountAt(noSync.url), plain(), requestFor(copy, state)),
      );
      assert.deepEqual(batches, [{ full: false, upserts: [], removals: [], skipped: [], nextState: state }]);
      assert.deepEqual(
        noSync.requests.slice(before).map((r) => r.method),
        ['PROPFIND'],
      );
    });

    it('a changed ctag: the ETags compared with the copy, exactly the changes fetched', async () => {
      await putIcs(direct('plain'), alice, vcalendar(numbered(900), numbered(12, 'Event 12 moved')));
      await remove('plain', 'ev-40.ics');
      const before = noSync.requests.length;
      const batches = await collect(
        sync.syncCalendar(accountAt(noSync.url), plain(), requestFor(copy, state)),
      );
      assert.deepEqual(
        batches.map((batch) => [batch.full, batch.nextState !== undefined && batch.nextState !== state]),
        [[false, true]],
      );
      assert.deepEqual(keysOf(batches), [
        `${noSync.url}alice/plain/ev-12.ics`,
        `${noSync.url}alice/plain/ev-900.ics`,
      ]);
      assert.deepEqual(removalsOf(batches), [`${noSync.url}alice/plain/ev-40.ics`]);
      assert.deepEqual(
        noSync.requests.slice(before).map((r) => r.method),
        ['PROPFIND', 'PROPFIND', 'REPORT'],
      );
      apply(copy, batches);
      const fresh: Copy = new Map();
      apply(
        fresh,
        await collect(sync.syncCalendar(accountAt(noSync.url), plain(), requestFor(fresh, undefined))),
      );
      assert.deepEqual(copy, fresh);
    });

    it('a sync-token the server no longer takes the report for: compared by ETags, not started over', async () => {
      const batches = await collect(
        sync.syncCalendar(
          accountAt(noSync.url),
          plain(),
          requestFor(copy, `sync:http://radicale.org/ns/sync/${'1'.repeat(64)}`),
        ),
      );
      assert.deepEqual(batches, [
        { full: false, upserts: [], removals: [], skipped: [], nextState: batches[0]!.nextState },
      ]);
      assert.match(batches[0]!.nextState!, /^ctag:.+/);
    });
  });

  describe('the copy reads as the live calendar', () => {
    const files = [
      'community-calendar-berlin.ics',
      'weekly-utc-exdates-on-previous-day.ics',
      'apple-structured-location.ics',
      'override-before-master-zero-length.ics',
      'confidential-yearly-all-day.ics',
      'all-day-weekdays-absolute-alarms.ics',
      'floating-times-x-wr-timezone.ics',
      'thunderbird-moved-instances.ics',
      'thunderbird-overrides-by-sequence.ics',
      'this-and-future-range.ics',
      'school-timetable-new-york-dst.ics',
      'duration-instead-of-dtend.ics',
      'utc-weekly-open-ended.ics',
    ];
    // Not windows-tzid-all-day-series.ics: Radicale's own time-range filter reads its UTC UNTIL
    // as a UTC date and leaves the series' last instance out of a live read of that week.
    const wide: TimeWindow = { start: at('2021-01-01T00:00:00Z'), end: at('2027-01-01T00:00:00Z') };

    it('full-sync occurrences in each window equal listEvents of that window (series, overrides, all-day)', async () => {
      for (const file of files) await putIcs(direct('fixtures'), alice, await fixtureIcs(file));
      const account = accountAt(proxy.url);
      const calendar = calendarAt(`${proxy.url}alice/fixtures/`);
      const batches = await collect(
        sync.syncCalendar(account, calendar, requestFor(new Map(), undefined, wide)),
      );
      const copied = batches.flatMap((batch) => batch.upserts.flatMap((item) => item.occurrences));
      const uids = new Set(copied.map((o) => o.providerEventId.split('#')[1]));
      assert.ok(uids.size >= files.length, `occurrences of every file (${uids.size} UIDs)`);
      let compared = 0;
      const step = { hours: 24 * 61 };
      for (let start = wide.start; Temporal.Instant.compare(start, wide.end) < 0; start = start.add(step)) {
        const end = start.add(step);
        const window = { start, end: Temporal.Instant.compare(end, wide.end) < 0 ? end : wide.end };
        const live = await provider.listEvents(account, calendar, window);
        const fromCopy = copied.filter((o) => nearWindow(o, window));
        assert.deepEqual(sorted(fromCopy), sorted(live.occurrences), `${window.start} – ${window.end}`);
        compared += live.occurrences.length;
      }
      assert.ok(compared > 200, `${compared} occurrences compared`);
    });
  });
});

describe('CalDAV sync with servers that answer what Radicale never would', () => {
  const servers: LoopbackServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));

  const multistatus = (inner: string) =>
    `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">${inner}</d:multistatus>`;
  const member = (href: string, props: string) =>
    `<d:response><d:href>${href}</d:href><d:propstat><d:prop>${props}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`;
  const object = (uid: string) =>
    vcalendar([`UID:${uid}`, 'DTSTART:20260310T090000Z', 'DURATION:PT1H', `SUMMARY:${uid}`]);
  const bodyOf = async (request: IncomingMessage) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    return body;
  };

  /**
   * A server at /dav/cal/: sync-collection answers by token (a 207 body, or another status and
   * body), PROPFIND answers by Depth, multigets with what was asked (and one object more) unless
   * `multiget` says to fail it (503) or to announce an answer past the size limit.
   */
  async function serve(
    rounds: Record<string, string | { status: number; body: string }>,
    propfinds: Record<string, string> = {},
    multiget: (hrefs: number, index: number) => 'answer' | 'fail' | 'too large' = () => 'answer',
  ): Promise<{ server: LoopbackServer; multigets: string[]; bodies: string[] }> {
    const multigets: string[] = [];
    const bodies: string[] = [];
    const server = await startHttpServer(async (request: IncomingMessage, response: ServerResponse) => {
      const body = await bodyOf(request);
      bodies.push(body);
      const answer = (xml: string, status = 207) =>
        response.writeHead(status, { 'content-type': 'application/xml' }).end(xml);
      if (request.method !== 'REPORT') {
        return answer(propfinds[String(request.headers.depth)] ?? multistatus(''));
      }
      const token = /<d:sync-token>([^<]*)<\/d:sync-token>/.exec(body)?.[1];
      if (token !== undefined) {
        const round = rounds[token] ?? multistatus('');
        return typeof round === 'string' ? answer(round) : answer(round.body, round.status);
      }
      multigets.push(body);
      const asked = [...body.matchAll(/<d:href>([^<]*)<\/d:href>/g)].map((m) => m[1]!);
      const how = multiget(asked.length, multigets.length - 1);
      if (how === 'fail') return answer('', 503);
      if (how === 'too large')
        return void response.writeHead(207, { 'content-length': String(17 * 1024 * 1024) }).write('<');
      return answer(
        multistatus(
          [...asked, '/dav/cal/extra.ics']
            .map((href) =>
              member(
                href,
                `<d:getetag>"${href}"</d:getetag><c:calendar-data>${object(href.split('/').at(-1)!)}</c:calendar-data>`,
              ),
            )
            .join(''),
        ),
      );
    });
    servers.push(server);
    return { server, multigets, bodies };
  }
  const run = (server: LoopbackServer, state: string) =>
    collect(
      sync.syncCalendar(
        accountAt(server.url),
        calendarAt(`${server.url}dav/cal/`),
        requestFor(new Map(), state),
      ),
    );

  it('refuses hrefs outside the calendar: never fetched, reported as skipped', async () => {
    const elsewhere = await startHttpServer((_, response) => response.end());
    servers.push(elsewhere);
    const outside = [
      '/dav/other/b.ics',
      `${elsewhere.url}dav/cal/c.ics`,
      '/dav/cal/../secret/d.ics',
      '/dav/',
    ];
    const { server, multigets } = await serve({
      t0: multistatus(
        [
          member('/dav/cal/', '<d:getetag>"c"</d:getetag>'),
          member('/dav/cal/a.ics', '<d:getetag>"1"</d:getetag>'),
          ...outside.map((href) => member(href, '<d:getetag>"2"</d:getetag>')),
          '<d:sync-token>t1</d:sync-token>',
        ].join(''),
      ),
    });
    const batches = await run(server, 'sync:t0');
    assert.deepEqual(
      keysOf(batches),
      [`${server.url}dav/cal/a.ics`],
      'not the extra object it was not asked for',
    );
    assert.deepEqual(
      batches.flatMap((batch) => batch.skipped.map((item) => item.providerEventId)).sort(),
      outside.toSorted(),
    );
    assert.equal(multigets.length, 1);
    assert.deepEqual(
      [...multigets[0]!.matchAll(/<d:href>([^<]*)<\/d:href>/g)].map((m) => m[1]),
      ['/dav/cal/a.ics'],
    );
    assert.equal(elsewhere.requests.length, 0);
    assert.equal(batches.at(-1)!.nextState, 'sync:t1');
  });

  it('continues a truncated answer (507 on the calendar) from its token; the state only at the end', async () => {
    const { server } = await serve({
      t0: multistatus(
        `${member('/dav/cal/a.ics', '<d:getetag>"1"</d:getetag>')}<d:response><d:href>/dav/cal/</d:href><d:status>HTTP/1.1 507 Insufficient Storage</d:status></d:response><d:sync-token>t1</d:sync-token>`,
      ),
      t1: multistatus(
        `${member('/dav/cal/b.ics', '<d:getetag>"1"</d:getetag>')}<d:response><d:href>/dav/cal/gone.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response><d:sync-token>t2</d:sync-token>`,
      ),
    });
    const batches = await run(server, 'sync:t0');
    assert.deepEqual(
      batches.map((batch) => [keysOf([batch]), batch.removals, batch.nextState]),
      [
        [[`${server.url}dav/cal/a.ics`], [], undefined],
        [[`${server.url}dav/cal/b.ics`], [`${server.url}dav/cal/gone.ics`], 'sync:t2'],
      ],
    );
  });

  it('refuses a truncated answer that does not move on, without a state', async () => {
    const truncated = `<d:response><d:href>/dav/cal/</d:href><d:status>HTTP/1.1 507 Insufficient Storage</d:status></d:response><d:sync-token>t0</d:sync-token>`;
    const { server } = await serve({ t0: multistatus(truncated) });
    await rejectsWith(run(server, 'sync:t0'), 'provider_unavailable', (error) =>
      assert.equal(error.details?.reason, 'unexpected_answer'),
    );
  });

  it('a 409 naming DAV:valid-sync-token starts over with the initial token, every batch full', async () => {
    const { server, bodies } = await serve({
      old: { status: 409, body: '<?xml version="1.0"?><error xmlns="DAV:"><valid-sync-token/></error>' },
      '': multistatus(
        `${member('/dav/cal/a.ics', '<d:getetag>"1"</d:getetag>')}<d:sync-token>t1</d:sync-token>`,
      ),
    });
    const batches = await run(server, 'sync:old');
    assert.deepEqual(
      batches.map((batch) => [batch.full, keysOf([batch]), batch.nextState]),
      [[true, [`${server.url}dav/cal/a.ics`], 'sync:t1']],
    );
    assert.equal(bodies.filter((body) => body.includes('<d:sync-token></d:sync-token>')).length, 1);
  });

  it('a 409 without that precondition is an error, not a reason to start over', async () => {
    const { server } = await serve({ old: { status: 409, body: '<error xmlns="DAV:"><other/></error>' } });
    await rejectsWith(run(server, 'sync:old'), 'provider_unavailable', (error) =>
      assert.equal(error.details?.reason, 'unexpected_answer'),
    );
  });

  it('a calendar whose supported-report-set lacks sync-collection is synced by ctag and ETags', async () => {
    const own = member(
      '/dav/cal/',
      '<cs:getctag xmlns:cs="http://calendarserver.org/ns/">c1</cs:getctag><d:supported-report-set><d:supported-report><d:report><c:calendar-multiget/></d:report></d:supported-report></d:supported-report-set>',
    );
    const { server, bodies } = await serve(
      {},
      {
        '0': multistatus(own),
        '1': multistatus(`${own}${member('/dav/cal/a.ics', '<d:getetag>"1"</d:getetag>')}`),
      },
    );
    const batches = await collect(
      sync.syncCalendar(
        accountAt(server.url),
        calendarAt(`${server.url}dav/cal/`),
        requestFor(new Map(), undefined),
      ),
    );
    assert.deepEqual(
      batches.map((batch) => [batch.full, keysOf([batch]), batch.nextState]),
      [[true, [`${server.url}dav/cal/a.ics`], 'ctag:c1']],
    );
    assert.ok(!bodies.some((body) => body.includes('sync-collection')), 'no sync-collection REPORT sent');
  });

  it('refuses a listing of more members than one calendar may hold, before fetching any', async () => {
    const many = Array.from({ length: 50_001 }, (_, n) =>
      member(`/dav/cal/${n}.ics`, '<d:getetag>"1"</d:getetag>'),
    );
    const { server, multigets } = await serve({
      t0: multistatus(`${many.join('')}<d:sync-token>t1</d:sync-token>`),
    });
    await rejectsWith(run(server, 'sync:t0'), 'payload_too_large', (error) =>
      assert.equal(error.details?.reason, 'too_large'),
    );
    assert.equal(multigets.length, 0);
  });

  describe('a calendar of more objects than one multiget asks for', () => {
    const members = Array.from({ length: 1100 }, (_, n) =>
      member(`/dav/cal/${n}.ics`, '<d:getetag>"1"</d:getetag>'),
    );
    const listing = { t0: multistatus(`${members.join('')}<d:sync-token>t1</d:sync-token>`) };
    const hrefCounts = (multigets: string[]) => multigets.map((body) => body.split('<d:href>').length - 1);

    it('is fetched in chunks of 500, one batch each, the state only on the last', async () => {
      const { server, multigets } = await serve(listing);
      const batches = await run(server, 'sync:t0');
      assert.deepEqual(
        batches.map((batch) => [batch.upserts.length, batch.nextState]),
        [
          [500, undefined],
          [500, undefined],
          [100, 'sync:t1'],
        ],
      );
      assert.deepEqual(hrefCounts(multigets), [500, 500, 100]);
    });

    it('the next chunk is asked for while the caller holds a batch, never more than one ahead', async () => {
      const { server, multigets } = await serve(listing, {}, (_, index) => (index === 1 ? 'fail' : 'answer'));
      const iterator = sync
        .syncCalendar(
          accountAt(server.url),
          calendarAt(`${server.url}dav/cal/`),
          requestFor(new Map(), 'sync:t0'),
        )
        [Symbol.asyncIterator]();
      const first = await iterator.next();
      assert.equal(first.value!.upserts.length, 500);
      for (let waited = 0; multigets.length < 2 && waited < 5000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(
        multigets.length,
        2,
        'the second chunk asked for before the first batch was taken, not the third',
      );
      // The second chunk failed while the first was held: the failure comes with the next batch asked for.
      await rejectsWith(iterator.next(), 'provider_unavailable', (error) =>
        assert.equal(error.details?.reason, 'server_error'),
      );
      assert.equal(multigets.length, 2);
    });

    it('a chunk whose answer is past the size limit is asked for in halves, the batches as before', async () => {
      const { server, multigets } = await serve(listing, {}, (hrefs) =>
        hrefs > 200 ? 'too large' : 'answer',
      );
      const batches = await run(server, 'sync:t0');
      assert.deepEqual(
        batches.map((batch) => batch.upserts.length),
        [500, 500, 100],
      );
      assert.equal(new Set(batches.flatMap((batch) => batch.upserts.map((item) => item.key))).size, 1100);
      // The first two chunks are fetched at once: their halves interleave.
      assert.deepEqual(
        hrefCounts(multigets).sort((a, b) => b - a),
        [500, 500, 250, 250, 250, 250, 125, 125, 125, 125, 125, 125, 125, 125, 100],
      );
    });

    it('a server whose every answer is too large costs a few requests, then the sync fails too_large', async () => {
      const { server, multigets } = await serve(listing, {}, () => 'too large');
      await rejectsWith(run(server, 'sync:t0'), 'payload_too_large', (error) =>
        assert.equal(error.details?.reason, 'too_large'),
      );
      // Halves down to 100 objects, depth first: the first failure ends the sync (the second chunk,
      // fetched at once with the first, makes as many requests).
      for (let waited = 0; multigets.length < 8 && waited < 5000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(
        hrefCounts(multigets).sort((a, b) => b - a),
        [500, 500, 250, 250, 125, 125, 63, 63],
      );
    });
  });
});
