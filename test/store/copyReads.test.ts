/**
 * A read of a copy is one query, on both engines: it touches only its window's rows (the index
 * on calendar and start; the rows of the rest of the horizon are never returned), places
 * floating and all-day times exactly as the core does in the reader's zone (across DST changes,
 * half-hour and +14 h zones), orders ties by occurrence id as JavaScript does, counts what it did
 * not return, and matches a search's words only against the text the reader may see: a busy-only
 * or titles-only reader never matches hidden text, a private event's text never matches without
 * private details, and each calendar of a read is matched as its own reader sees it (never as
 * the first calendar's reader does) — the same answers as the core's placement, masking and
 * matchesWords; and availability's busy time from the times alone.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, type KyselyPlugin } from 'kysely';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import { busyIntervals } from '../../src/domain/availability.ts';
import type { DetailLevel } from '../../src/domain/detailLevels.ts';
import { type CalendarView, compareStrings, mergeOrdered, toEvents } from '../../src/domain/occurrences.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { matchesWords, queryWords } from '../../src/domain/search.ts';
import { localOffsets } from '../../src/domain/time/localOffsets.ts';
import { copiesOf } from '../../src/store/calendarCopies.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { type CopyPlace, type CopyQuery, copyBusy, copyPage } from '../../src/store/copyReads.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { type CacheOutcome, copyEdition, WordCache } from '../../src/store/wordCache.ts';
import { capturing } from '../helpers/capturedStatements.ts';
import { copyHolding, copyKeys } from '../helpers/copiedOccurrences.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { occurrence } from '../helpers/memoryCalendars.ts';
import { seedCalendars, seedReadGrant, seedUser, seedWorkspace } from '../helpers/seed.ts';

const ids = createEventIds(randomBytes(32));
const day = 86_400_000;

const berlin = (start: string, id: string, fields: Partial<ProviderOccurrence> = {}) =>
  occurrence({ providerEventId: id, start, timeZone: 'Europe/Berlin', ...fields });
const floating = (start: string, id: string, fields: Partial<ProviderOccurrence> = {}) =>
  occurrence({ providerEventId: id, start, ...fields });

const window = (start: string, end: string) => ({
  start: Temporal.Instant.from(start),
  end: Temporal.Instant.from(end),
});

for (const engine of await enginesUnderTest({ sqliteReaders: true })) {
  describe(`a read of a copy is one query (${engine.label})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    let calendarId: string;
    let otherId: string;
    let keys: Map<string, number>;

    before(async () => {
      handle = await engine.open();
      const userId = await seedUser(handle.db, 'rea@example.org');
      const owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Reads', [[userId, 'owner']]) };
      [calendarId, otherId] = (await seedCalendars(handle.db, owner, [
        { name: 'Work' },
        { name: 'Home' },
      ])) as [string, string];
      await seedReadGrant(handle.db, owner, [calendarId, otherId], { privateDetails: true });
      await reconcileCopies(handle.db, 0);
      keys = await copyKeys(handle.db);
    });
    after(() => handle.close());

    /** The copy holds exactly these occurrences, written by a sync as every sync writes them. */
    const copied = (occurrences: ProviderOccurrence[], into = calendarId) =>
      copyHolding(handle.db, ids, into, occurrences);

    const view = (fields: Partial<CalendarView> = {}): CalendarView => ({
      calendarId,
      access: 'owner',
      detailLevel: 'full',
      privateDetails: true,
      ...fields,
    });

    /** A read of a calendar over `w`, placed in Berlin: with its words if given, and after `place` (an event of the core's). */
    const berlinQuery = (
      calendar: string,
      w: { start: Temporal.Instant; end: Temporal.Instant },
      longestMs: number,
      words?: string[],
      place?: { startMs: number; event: { calendarId: string; occurrenceId: string } },
    ): CopyQuery => ({
      calendarId: calendar,
      copyKey: keys.get(calendar)!,
      window: { startNs: w.start.epochNanoseconds, endNs: w.end.epochNanoseconds },
      longestMs,
      offsets: localOffsets('Europe/Berlin', {
        startMs: w.start.epochMilliseconds - longestMs - day,
        endMs: w.end.epochMilliseconds + day,
      }),
      ...(words === undefined ? {} : { search: { words, level: 'full', privateDetails: true } }),
      ...(place === undefined
        ? {}
        : {
            after: {
              startMs: place.startMs,
              calendarId: place.event.calendarId,
              occurrenceId: place.event.occurrenceId,
            },
          }),
    });

    /** The query's answer next to the core's: occurrence ids in order, and the count. */
    const both = async (
      occurrences: ProviderOccurrence[],
      longestMs: number,
      w: { start: Temporal.Instant; end: Temporal.Instant },
      v: CalendarView,
      words?: string[],
      first?: number,
    ) => {
      const zone = v.placementZone;
      const query: CopyQuery = {
        calendarId,
        copyKey: keys.get(calendarId)!,
        window: { startNs: w.start.epochNanoseconds, endNs: w.end.epochNanoseconds },
        longestMs,
        offsets:
          zone === undefined
            ? []
            : localOffsets(zone, {
                startMs: w.start.epochMilliseconds - longestMs - day,
                endMs: w.end.epochMilliseconds + day,
              }),
        ...(words === undefined
          ? {}
          : { search: { words, level: v.detailLevel, privateDetails: v.privateDetails } }),
      };
      const { rows, total } = await copyPage(handle.db, [query], first);
      const core = toEvents(occurrences, v, ids, w).filter(
        (placed) => words === undefined || matchesWords(placed.event, words),
      );
      return {
        query: { ids: rows.map((r) => r.occurrenceId), starts: rows.map((r) => r.startMs), total },
        core: {
          ids: core.slice(0, first).map((p) => p.event.occurrenceId),
          starts: core.slice(0, first).map((p) => p.startMs),
          // A search counts every match; other reads count the rows they return.
          total: words === undefined ? core.slice(0, first).length : core.length,
        },
      };
    };

    it('returns only the rows of its window, placed, ordered and counted as the core does', async () => {
      const month: ProviderOccurrence[] = [];
      for (let d = 1; d <= 28; d++) {
        const date = `2026-03-${String(d).padStart(2, '0')}`;
        month.push(
          berlin(`${date}T09:00:00`, `standup-${d}`, { title: 'Standup' }),
          berlin(`${date}T09:00:00`, `sync-${d}`),
        );
      }
      month.push(
        berlin('2026-02-20T09:00:00', 'sabbatical', { duration: 'P60D' }),
        berlin('2026-03-09T00:00:00', 'deadline-at-start', { duration: 'PT0S' }),
        berlin('2026-03-16T00:00:00', 'deadline-at-end', { duration: 'PT0S' }),
      );
      const longestMs = await copied(month);
      const week = window('2026-03-08T23:00:00Z', '2026-03-15T23:00:00Z');
      const { query, core } = await both(month, longestMs, week, view({ placementZone: 'Europe/Berlin' }));
      assert.deepEqual(query, core);
      // 7 days of two, the long one reaching in, the zero-length one at the start (not the one at the end).
      assert.equal(query.total, 16);
      const page = await both(month, longestMs, week, view({ placementZone: 'Europe/Berlin' }), undefined, 5);
      assert.deepEqual(page.query, page.core);
      assert.equal(page.query.ids.length, 5);
      const counted = await both(
        month,
        longestMs,
        week,
        view({ placementZone: 'Europe/Berlin' }),
        ['standup'],
        5,
      );
      assert.deepEqual(counted.query, counted.core);
      assert.equal(counted.query.total, 7);
    });

    it('orders events of one start by occurrence id as JavaScript compares them', async () => {
      const same = Array.from({ length: 60 }, (_, i) => berlin('2026-03-10T09:00:00', `tie-${i}`));
      const longestMs = await copied(same);
      const w = window('2026-03-10T00:00:00Z', '2026-03-11T00:00:00Z');
      const { query, core } = await both(
        same,
        longestMs,
        w,
        view({ placementZone: 'Europe/Berlin' }),
        undefined,
        40,
      );
      assert.deepEqual(query, core);
      // Sealed ids hold '-', '_', capitals and small letters: a locale's order would differ.
      assert.ok(core.ids.some((id) => /[-_]/.test(id.slice(4))));
    });

    it('names the calendar of each local time when calendars of one zone are read together', async () => {
      // Both copies' floating times at the same local hours: one branch reads both, and the rows
      // name their copy by its number alone, so the branch must give each its own calendar.
      const hours = ['09:00', '10:00'];
      await copied(hours.map((hour, i) => floating(`2026-03-02T${hour}:00`, `work-${i}`)));
      await copied(
        hours.map((hour, i) => floating(`2026-03-02T${hour}:00`, `home-${i}`)),
        otherId,
      );
      const w = window('2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z');
      const offsets = localOffsets('Europe/Berlin', {
        startMs: w.start.epochMilliseconds - day,
        endMs: w.end.epochMilliseconds + day,
      });
      const queries = (after?: CopyPlace): CopyQuery[] =>
        [calendarId, otherId].map((id) => ({
          calendarId: id,
          copyKey: keys.get(id)!,
          window: { startNs: w.start.epochNanoseconds, endNs: w.end.epochNanoseconds },
          longestMs: 3_600_000,
          offsets,
          ...(after === undefined ? {} : { after }),
        }));
      const [first, second] = [calendarId, otherId].sort();
      const { rows } = await copyPage(handle.db, queries());
      // Each start: the two calendars in order of id.
      assert.deepEqual(
        rows.map((row) => row.calendarId),
        [first, second, first, second],
      );
      // After the first place, the same start's other calendar comes next.
      const next = await copyPage(handle.db, queries(rows[0]), 1);
      assert.deepEqual(
        next.rows.map((row) => [row.calendarId, row.startMs]),
        [[second, rows[0]!.startMs]],
      );
    });

    it('merges the calendars of a read in the one order, after a cursor, and counts every match', async () => {
      const work = Array.from({ length: 30 }, (_, i) =>
        berlin(`2026-03-${String(10 + (i % 3)).padStart(2, '0')}T09:00:00`, `work-${i}`, {
          title: i % 2 === 0 ? 'Budget review' : 'Standup',
        }),
      );
      const home = [
        ...Array.from({ length: 20 }, (_, i) =>
          berlin(`2026-03-${String(10 + (i % 3)).padStart(2, '0')}T09:00:00`, `home-${i}`, {
            title: i % 4 === 0 ? 'Budget at home' : 'Dinner',
          }),
        ),
        floating('2026-03-11T09:00:00', 'home-local', { title: 'Budget, local' }),
      ];
      const longest = Math.max(await copied(work), await copied(home, otherId));
      const w = window('2026-03-09T00:00:00Z', '2026-03-13T00:00:00Z');
      const views = [calendarId, otherId].map((id) =>
        view({ calendarId: id, placementZone: 'Europe/Berlin' }),
      );
      const core = mergeOrdered(
        views.map((v) => toEvents(v.calendarId === calendarId ? work : home, v, ids, w)),
      );
      const queryOf = (v: CalendarView, words?: string[], place?: (typeof core)[number]) =>
        berlinQuery(v.calendarId, w, longest, words, place);
      const shown = (list: { event: { calendarId: string; occurrenceId: string } }[] | CopyPlace[]) =>
        list.map((e) =>
          'event' in e
            ? `${e.event.calendarId}/${e.event.occurrenceId}`
            : `${e.calendarId}/${e.occurrenceId}`,
        );
      // Pages of 7 walked with the cursor give every event once, in the core's order.
      const walked: CopyPlace[] = [];
      let place: (typeof core)[number] | undefined;
      for (let page = 0; page < 20; page++) {
        const { rows } = await copyPage(
          handle.db,
          views.map((v) => queryOf(v, undefined, place)),
          7,
        );
        walked.push(...rows);
        if (rows.length < 7) break;
        place = core.find((e) => e.event.occurrenceId === rows.at(-1)!.occurrenceId);
      }
      assert.deepEqual(shown(walked), shown(core));
      assert.equal(walked.length, 51);
      // A search's page is its first matches over both calendars; its count, every match.
      const words = ['budget'];
      const { rows, total } = await copyPage(
        handle.db,
        views.map((v) => queryOf(v, words)),
        4,
      );
      const matches = core.filter((e) => matchesWords(e.event, words));
      assert.deepEqual(shown(rows), shown(matches.slice(0, 4)));
      assert.equal(total, matches.length);
      assert.equal(total, 15 + 5 + 1);
    });

    it("walks a month's search in pages: every match once and in order, each page counting those after its cursor", async () => {
      // A month holds about ten buckets of starts: the one holding the window's start, those
      // wholly inside (read until a page is full, then counted), the one holding its end, one of
      // a long event's start weeks before, an event begun the evening before, and a local time;
      // the DST change of 29 March within.
      const dates = Array.from({ length: 38 }, (_, d) =>
        Temporal.PlainDate.from('2026-02-24').add({ days: d }),
      );
      const work = dates.flatMap((date, d) =>
        ['08:00', '13:00', '17:00'].map((hour, h) =>
          berlin(`${date}T${hour}:00`, `work-${d}-${h}`, {
            title: (d + h) % 3 === 0 ? 'Budget review' : 'Standup',
          }),
        ),
      );
      const home = [
        ...dates.map((date, d) =>
          berlin(`${date}T19:00:00`, `home-${d}`, { title: d % 2 === 0 ? 'Budget at home' : 'Dinner' }),
        ),
        berlin('2026-02-10T09:00:00', 'home-retreat', { title: 'Budget retreat', duration: 'PT600H' }),
        floating('2026-03-15T09:00:00', 'home-local', { title: 'Budget, local' }),
        // At the window's very start, and at one start with a match of the other calendar.
        berlin('2026-03-01T01:00:00', 'home-midnight', { title: 'Budget at midnight' }),
        // Begun the evening before the window, in the bucket holding its start: its end decides.
        berlin('2026-02-28T23:30:00', 'home-eve', { title: 'Budget eve', duration: 'PT3H' }),
        berlin('2026-03-05T08:00:00', 'home-tie', { title: 'Budget tie' }),
      ];
      const longest = Math.max(await copied(work), await copied(home, otherId));
      const w = window('2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z');
      const words = ['budget'];
      const views = [calendarId, otherId].map((id) =>
        view({ calendarId: id, placementZone: 'Europe/Berlin' }),
      );
      const matches = mergeOrdered(
        views.map((v) => toEvents(v.calendarId === calendarId ? work : home, v, ids, w)),
      ).filter((e) => matchesWords(e.event, words));
      const walk = async () => {
        const walked: string[] = [];
        let place: (typeof matches)[number] | undefined;
        for (let page = 0; page < 30; page++) {
          const { rows, total } = await copyPage(
            handle.db,
            [calendarId, otherId].map((id) => berlinQuery(id, w, longest, words, place)),
            5,
          );
          const from = place === undefined ? 0 : matches.indexOf(place) + 1;
          assert.equal(total, matches.length - from, `page ${page}`);
          walked.push(...rows.map((row) => row.occurrenceId));
          if (rows.length < 5) break;
          place = matches.find((e) => e.event.occurrenceId === rows.at(-1)!.occurrenceId);
        }
        assert.deepEqual(
          walked,
          matches.map((e) => e.event.occurrenceId),
        );
      };
      await walk();
      // Without the starts (a copy changed since its words were read lists rows they do not),
      // every row named is looked up: the same pages, only slower.
      await handle.db.deleteFrom('copy_starts').execute();
      await walk();
      // The retreat, begun in February, and the local time are among them.
      assert.ok(matches.length > 40);
      assert.equal(matches[0]!.event.title, 'Budget retreat');
      assert.ok(matches.some((e) => e.event.title === 'Budget, local'));
      assert.ok(matches.some((e) => e.event.title === 'Budget eve'));
    });

    it("brings a search's page alone, never every match, and keeps the order past a cursor of a calendar it does not read", async () => {
      // Two matches a day all month (and some the day before, which end before it starts); the
      // other calendar's at the same starts, for ties.
      const march = Array.from({ length: 31 }, (_, d) => `2026-03-${String(d + 1).padStart(2, '0')}`);
      const work = [
        ...march.flatMap((date, d) =>
          ['08:00', '14:00'].map((hour, h) =>
            berlin(`${date}T${hour}:00`, `work-${d}-${h}`, { title: 'Budget review' }),
          ),
        ),
        berlin('2026-02-28T08:00:00', 'work-before', { title: 'Budget review' }),
      ];
      const home = march.map((date, d) =>
        berlin(`${date}T08:00:00`, `home-${d}`, { title: 'Budget at home' }),
      );
      const longest = Math.max(await copied(work), await copied(home, otherId));
      const w = window('2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z');
      const words = ['budget'];
      const [workView, homeView] = [calendarId, otherId].map((id) =>
        view({ calendarId: id, placementZone: 'Europe/Berlin' }),
      ) as [CalendarView, CalendarView];
      const both = mergeOrdered([toEvents(work, workView, ids, w), toEvents(home, homeView, ids, w)]);
      /** The occurrence rows the read's statements bring (the word index's are not rows of copies). */
      let brought = 0;
      const counting: KyselyPlugin = {
        transformQuery: ({ node }) => node,
        transformResult: async ({ result }) => {
          brought += result.rows.filter(
            (row) => typeof (row as { occurrence_id?: unknown }).occurrence_id === 'string',
          ).length;
          return result;
        },
      };
      const { rows, total } = await copyPage(
        handle.db.withPlugin(counting),
        [calendarId, otherId].map((id) => berlinQuery(id, w, longest, words)),
        5,
      );
      const shown = (list: readonly { occurrenceId: string }[]) => list.map((e) => e.occurrenceId);
      assert.deepEqual(shown(rows), shown(both.slice(0, 5).map((e) => e.event)));
      assert.equal(total, 62 + 31);
      assert.equal(brought, 5);
      // A page of none still counts every match.
      const none = await copyPage(
        handle.db,
        [calendarId, otherId].map((id) => berlinQuery(id, w, longest, words)),
        0,
      );
      assert.deepEqual([none.rows.length, none.total], [0, 62 + 31]);
      brought = 0;
      // Past a cursor of the other calendar at a start both share, a calendar read alone goes on
      // from there in the one order: its id comes before the other's one way round, after it the other.
      for (const [read, readView, other] of [
        [calendarId, workView, otherId],
        [otherId, homeView, calendarId],
      ] as const) {
        const cursor = both.find((e) => e.event.calendarId === other && e.startMs > both[20]!.startMs)!;
        const after = toEvents(read === calendarId ? work : home, readView, ids, w).filter(
          (e) =>
            e.startMs > cursor.startMs || (e.startMs === cursor.startMs && compareStrings(read, other) > 0),
        );
        brought = 0;
        const next = await copyPage(
          handle.db.withPlugin(counting),
          [berlinQuery(read, w, longest, words, cursor)],
          5,
        );
        assert.deepEqual(shown(next.rows), shown(after.slice(0, 5).map((e) => e.event)));
        assert.equal(next.total, after.length);
        assert.equal(brought, 5);
      }
    });

    it("answers a search the same from the words it kept, and never from a copy's earlier version", async () => {
      const titled = (budget: string, forecast: string) => [
        ...[1, 2, 3].map((d) => berlin(`2026-03-0${d}T09:00:00`, `a-${d}`, { title: budget })),
        ...[4, 5].map((d) => berlin(`2026-03-0${d}T09:00:00`, `b-${d}`, { title: forecast })),
      ];
      const w = window('2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z');
      const outcomes: CacheOutcome[] = [];
      const cache = new WordCache(1024 * 1024, (outcome) => outcomes.push(outcome));
      /** A search of the work calendar as the read service makes it: the copy's edition as it is now. */
      /** Per search, whether it read the copy's lists or its starts (a search from what is kept reads neither). */
      const reads: string[] = [];
      const search = async (word: string, kept?: WordCache) => {
        const longest = await copied(await held());
        const copy = (await copiesOf(handle.db, [calendarId])).get(calendarId)!;
        const { nodes, capture } = capturing();
        const { rows, total } = await copyPage(
          handle.db.withPlugin(capture),
          [{ ...berlinQuery(calendarId, w, longest, [word]), edition: copyEdition(copy) }],
          10,
          kept,
        );
        const sent = nodes.map((node) => handle.db.getExecutor().compileQuery(node, { queryId: 'read' }).sql);
        reads.push(
          ['copy_words', 'copy_starts']
            .filter((table) => sent.some((text) => text.includes(table)))
            .join(' '),
        );
        return { ids: rows.map((row) => row.occurrenceId), total, version: copy.version };
      };
      let held = async () => titled('Budget review', 'Forecast');
      const uncached = await search('budget');
      assert.equal(uncached.total, 3);
      for (let i = 0; i < 3; i++) assert.deepEqual(await search('budget', cache), uncached);
      assert.deepEqual(outcomes, ['miss', 'miss', 'hit']);
      // The starts are kept with the words: the third search reads neither.
      assert.deepEqual(reads, [
        'copy_words copy_starts',
        'copy_words copy_starts',
        'copy_words copy_starts',
        '',
      ]);
      // Renamed at the provider: the next sync moves the copy's version, and the kept words are not used.
      held = async () => titled('Planning', 'Budget forecast');
      const renamed = await search('budget');
      assert.ok(renamed.version > uncached.version);
      assert.equal(renamed.total, 2);
      for (let i = 0; i < 3; i++) assert.deepEqual(await search('budget', cache), renamed);
      // Another word's slot is read once, then kept beside the first's.
      const planning = await search('planning');
      assert.equal(planning.total, 3);
      for (let i = 0; i < 2; i++) assert.deepEqual(await search('planning', cache), planning);
      assert.deepEqual(outcomes, ['miss', 'miss', 'hit', 'miss', 'miss', 'hit', 'miss', 'hit']);
    });

    it('places floating and all-day times in the reader zone, across DST changes and far zones', async () => {
      const loose: ProviderOccurrence[] = [];
      let n = 0;
      for (let minutes = 0; minutes < 4 * 24 * 60; minutes += 37) {
        const start = Temporal.PlainDateTime.from('2026-03-27T00:00:00').add({ minutes }).toString();
        const duration = ['PT0S', 'PT45M', 'PT3H', 'P1D'][n % 4]!;
        loose.push(floating(start, `loose-${n++}`, { duration, showWithoutTime: duration === 'P1D' }));
      }
      loose.push(berlin('2026-03-29T01:30:00', 'zoned'));
      const longestMs = await copied(loose);
      const zones = [
        'Europe/Berlin',
        'America/New_York',
        'Australia/Lord_Howe',
        'Pacific/Kiritimati',
        'Pacific/Pago_Pago',
      ];
      for (const placementZone of zones) {
        for (const [start, end] of [
          ['2026-03-28T22:00:00Z', '2026-03-29T04:00:00Z'],
          ['2026-03-29T00:30:00Z', '2026-03-29T01:30:00Z'],
          ['2026-03-27T10:00:00Z', '2026-03-30T10:00:00Z'],
        ] as const) {
          const { query, core } = await both(loose, longestMs, window(start, end), view({ placementZone }));
          assert.deepEqual(query, core, `${placementZone} ${start}`);
        }
      }
    });

    it('matches a search only against the text the reader may see', async () => {
      const texts = [
        berlin('2026-03-10T09:00:00', 'review', {
          title: 'Budget review',
          description: 'Quarterly numbers',
          categories: ['Finance'],
        }),
        berlin('2026-03-10T10:00:00', 'doctor', {
          title: 'Doctor Müller',
          description: 'numbers of the lab',
          privacy: 'private',
        }),
        berlin('2026-03-10T11:00:00', 'secret', {
          title: 'Busy plans',
          privacy: 'secret',
          freeBusyStatus: 'free',
        }),
        berlin('2026-03-10T12:00:00', 'lunch', {
          title: 'Lunch',
          freeBusyStatus: 'free',
          keywords: ['food'],
        }),
        // Characters that are wildcards to the engines' pattern matchers.
        berlin('2026-03-10T13:00:00', 'wild', { title: 'Q[1] 100% done*? a_b' }),
      ];
      const longestMs = await copied(texts);
      const w = window('2026-03-10T00:00:00Z', '2026-03-11T00:00:00Z');
      const found = async (level: DetailLevel, privateDetails: boolean, query: string) => {
        const { query: got, core } = await both(
          texts,
          longestMs,
          w,
          view({ detailLevel: level, privateDetails, placementZone: 'Europe/Berlin' }),
          queryWords(query),
        );
        assert.deepEqual(got, core, `${level} ${privateDetails} ${query}`);
        return got.total;
      };
      for (const level of ['full', 'titles', 'busy'] as const)
        for (const privateDetails of [true, false])
          for (const query of [
            'numbers',
            'budget',
            'muller',
            'busy',
            'free',
            'finance',
            'food',
            'lunch',
            'plans',
            'q[1]',
            '100%',
            'done*?',
            'a_b',
            '*',
            '?',
            '[',
            '%',
            '_',
            ']',
          ])
            await found(level, privateDetails, query);
      // Hidden text never matches: the description below full, a private event's without private details.
      assert.equal(await found('titles', true, 'numbers'), 0);
      assert.equal(await found('full', false, 'numbers'), 1);
      assert.equal(await found('full', false, 'muller'), 0);
      assert.equal(await found('busy', true, 'budget'), 0);
      // Where a reader sees a placeholder, the placeholder is its text.
      assert.equal(await found('busy', true, 'busy'), 3);
      assert.equal(await found('full', false, 'free'), 1);
      // Wildcards are letters like any other.
      assert.equal(await found('full', true, 'q[1]'), 1);
      assert.equal(await found('full', true, 'done*?'), 1);
      assert.equal(await found('full', true, 'do*e'), 0);
      assert.equal(await found('full', true, 'q?1'), 0);
      assert.equal(await found('full', true, 'a%b'), 0);
    });

    it('matches each calendar of one read as its own reader sees it', async () => {
      // Both copies hold everything (a grant with private details reaches them); one read may see
      // each at another level: one calendar's reader never decides what another's matches.
      const texts = [
        berlin('2026-03-10T09:00:00', 'review', { title: 'Budget review', description: 'Quarterly numbers' }),
        berlin('2026-03-10T10:00:00', 'doctor', {
          title: 'Doctor',
          description: 'lab numbers',
          privacy: 'private',
        }),
      ];
      const longestMs = Math.max(await copied(texts), await copied(texts, otherId));
      const w = window('2026-03-10T00:00:00Z', '2026-03-11T00:00:00Z');
      const query = (id: string, [level, privateDetails]: Reader, word: string): CopyQuery => ({
        calendarId: id,
        copyKey: keys.get(id)!,
        window: { startNs: w.start.epochNanoseconds, endNs: w.end.epochNanoseconds },
        longestMs,
        offsets: [],
        search: { words: [word], level, privateDetails },
      });
      type Reader = [DetailLevel, boolean];
      const readers: Reader[] = [
        ['full', true],
        ['full', false],
        ['titles', true],
        ['busy', false],
      ];
      const named = (rows: readonly CopyPlace[]) =>
        rows.map((row) => `${row.calendarId} ${row.occurrenceId}`).sort();
      for (const a of readers)
        for (const b of readers)
          for (const word of ['numbers', 'busy', 'doctor']) {
            const alone = await Promise.all([
              copyPage(handle.db, [query(calendarId, a, word)]),
              copyPage(handle.db, [query(otherId, b, word)]),
            ]);
            const together = await copyPage(handle.db, [query(calendarId, a, word), query(otherId, b, word)]);
            const what = `${a.join(' ')} | ${b.join(' ')}: ${word}`;
            assert.equal(together.total, alone[0].total + alone[1].total, what);
            assert.deepEqual(named(together.rows), named([...alone[0].rows, ...alone[1].rows]), what);
          }
      // The description seen at full, not at titles, in the same read.
      const mixed = await copyPage(handle.db, [
        query(calendarId, ['full', true], 'numbers'),
        query(otherId, ['titles', true], 'numbers'),
      ]);
      assert.deepEqual(
        mixed.rows.map((row) => row.calendarId),
        [calendarId, calendarId],
      );
    });

    it('gives the busy time, times only and merged, as the core finds it in the events', async () => {
      const statuses = ['confirmed', 'tentative', 'cancelled'] as const;
      const varied: ProviderOccurrence[] = [];
      for (let i = 0; i < 60; i++) {
        const start = Temporal.PlainDateTime.from('2026-03-28T06:00:00')
          .add({ minutes: 53 * i })
          .toString();
        const fields = {
          status: statuses[i % 3]!,
          freeBusyStatus: i % 5 === 0 ? ('free' as const) : ('busy' as const),
          duration: i % 29 === 0 ? 'P1D' : 'PT50M',
        };
        varied.push(i % 2 === 0 ? berlin(start, `busy-${i}`, fields) : floating(start, `busy-${i}`, fields));
      }
      const longestMs = await copied(varied);
      // The other calendar holds every other one, read in a zone of its own: one statement reads both.
      const others = varied.filter((_, i) => i % 4 < 2);
      await copied(others, otherId);
      const w = window('2026-03-28T20:00:00Z', '2026-03-30T02:00:00Z');
      const offsets = (zone: string) =>
        localOffsets(zone, {
          startMs: w.start.epochMilliseconds - longestMs - day,
          endMs: w.end.epochMilliseconds + day,
        });
      for (const placementZone of ['Europe/Berlin', 'America/New_York']) {
        for (const tentativeIsBusy of [true, false]) {
          const rows = await copyBusy(
            handle.db,
            [
              [calendarId, placementZone],
              [otherId, 'Asia/Kolkata'],
            ].map(([id, zone]) => ({
              calendarId: id!,
              copyKey: keys.get(id!)!,
              window: { startNs: w.start.epochNanoseconds, endNs: w.end.epochNanoseconds },
              longestMs,
              offsets: offsets(zone!),
            })),
            tentativeIsBusy,
          );
          // Merged in the statement: in order, and each span starts after the last one ended.
          assert.ok(rows.length > 1);
          rows.forEach((row, i) => {
            assert.ok(row.startMs <= row.endMs);
            if (i > 0)
              assert.ok(row.startMs > rows[i - 1]!.endMs, `${placementZone} ${tentativeIsBusy}: span ${i}`);
          });
          const spans = rows.map((r) => ({
            startNs: BigInt(r.startMs) * 1_000_000n,
            endNs: BigInt(r.endMs) * 1_000_000n,
          }));
          const show = (list: { start: Temporal.Instant; end: Temporal.Instant }[]) =>
            list.map((span) => `${span.start}/${span.end}`);
          const events = [
            ...toEvents(varied, view({ placementZone }), ids, w),
            ...toEvents(others, view({ calendarId: otherId, placementZone: 'Asia/Kolkata' }), ids, w),
          ];
          assert.deepEqual(
            show(busyIntervals([], w, { tentativeIsBusy }, spans)),
            show(busyIntervals(events, w, { tentativeIsBusy })),
            `${placementZone} ${tentativeIsBusy}`,
          );
        }
      }
      // A window without busy time has no span: PostgreSQL's closing row is never one.
      const quiet = window('2027-01-04T00:00:00Z', '2027-01-05T00:00:00Z');
      assert.deepEqual(await copyBusy(handle.db, [berlinQuery(calendarId, quiet, longestMs)], true), []);
    });

    it('reads its rows through the index that leads with the copy and the start', {
      skip: engine.name !== 'sqlite',
    }, async () => {
      /** The plan of the read's `nth` query (over `w`, epoch ns: the first 1,000 s unless given). */
      const plan = async (
        search: CopyQuery['search'] | 'busy',
        nth = 0,
        w = { startNs: 0n, endNs: 1_000_000_000_000n },
      ) => {
        const { nodes, capture } = capturing();
        const query = {
          calendarId,
          copyKey: keys.get(calendarId)!,
          window: w,
          longestMs: 0,
          offsets: localOffsets('Europe/Berlin', { startMs: -day, endMs: day }),
        };
        if (search === 'busy') await copyBusy(handle.db.withPlugin(capture), [query], true);
        else
          await copyPage(
            handle.db.withPlugin(capture),
            [calendarId, otherId].map((id) => ({
              ...query,
              calendarId: id,
              copyKey: keys.get(id)!,
              ...(search === undefined ? {} : { search }),
            })),
            10,
          );
        const compiled = handle.db.getExecutor().compileQuery(nodes[nth]!, { queryId: 'plan' });
        const rows = await handle.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
        );
        return rows.rows.map((r) => r.detail).join('\n');
      };
      const readIndex =
        /USING (COVERING )?INDEX copy_occurrences_read \(copy_key=\? AND floating=\? AND start_ms>\? AND start_ms<\?\)/;
      const lines = async (read: Parameters<typeof plan>[0], nth: number) =>
        (await plan(read, nth)).split('\n');
      // The page's rows read whole once it is cut: each by its id, in the page's order (no sort).
      const wholeRows = ['SCAN places', 'SEARCH whole USING INTEGER PRIMARY KEY (rowid=?)'];
      const searches = (all: string[]) =>
        all.filter((line) => line.startsWith('SEARCH') && line !== wholeRows[1]);
      // A list of the window reads the index alone until the page is chosen: each calendar's
      // instants a range of it in its order, merged, only ties of one start sorted (by calendar,
      // the branch's one, given as a value the engine cannot know constant, and id)...
      const list = await lines(undefined, 0);
      assert.deepEqual(list.slice(0, 2), ['CO-ROUTINE places', 'MERGE (UNION ALL)']);
      assert.deepEqual(list.slice(-2), wholeRows);
      assert.equal(list.filter((line) => line.startsWith('USE TEMP B-TREE FOR ORDER BY')).length, 0);
      assert.equal(searches(list).length, 2);
      for (const [i, line] of list.entries())
        if (searches([line]).length > 0) {
          assert.match(line, readIndex);
          assert.equal(list[i + 1], 'USE TEMP B-TREE FOR LAST 2 TERMS OF ORDER BY');
        }
      // ...and the local times a range of it too; so does the busy time.
      for (const line of [...searches(await lines(undefined, 1)), ...searches(await lines('busy', 0))])
        assert.match(line, readIndex);
      // A search of busy-level calendars alone reads the window by the read index, the
      // placeholder decided by the row's free/busy: its page, its local times and its count.
      const busy = { words: ['bus'], level: 'busy' as const, privateDetails: false };
      const page = await lines(busy, 0);
      assert.deepEqual(page.slice(0, 2), ['CO-ROUTINE places', 'MERGE (UNION ALL)']);
      assert.deepEqual(page.slice(-2), wholeRows);
      const scanned = [
        ...searches(page),
        ...searches(await lines(busy, 1)),
        ...searches(await lines(busy, 2)),
      ];
      assert.equal(scanned.length, 5);
      for (const line of scanned) assert.match(line, readIndex);
      // A word of the busy placeholder, which private events show a reader without private
      // details: their rows come from ranges of the read index, beside the word index.
      const placeholder = await lines({ words: ['bus'], level: 'full', privateDetails: false }, 1);
      assert.deepEqual(
        searches(placeholder).map((line) => line.replace(/=\?|>\?|<\?/g, '')),
        [
          'SEARCH copy_occurrences USING COVERING INDEX copy_occurrences_read (copy_key AND floating AND start_ms AND start_ms)',
        ],
      );
      // Any other search reads the copies' vocabularies, then the slots of the words found (by
      // their key), then the starts of the buckets they name, then the page's rows by id — never
      // a walk of the window.
      await copied([berlin('2026-03-02T09:00:00', 'plan-1', { title: 'Plan review' })]);
      const march = {
        startNs: Temporal.Instant.from('2026-03-01T00:00:00Z').epochNanoseconds,
        endNs: Temporal.Instant.from('2026-04-01T00:00:00Z').epochNanoseconds,
      };
      const indexed = { words: ['review'], level: 'full' as const, privateDetails: true };
      // The vocabularies by calendar; the read knows each copy's number, by which its lists are keyed.
      assert.deepEqual(searches(await lines(indexed, 0)), [
        'SEARCH copy_vocabulary USING INDEX sqlite_autoindex_copy_vocabulary_1 (calendar_id=?)',
      ]);
      for (const line of searches((await plan(indexed, 1, march)).split('\n')))
        assert.match(
          line,
          /SEARCH copy_words USING PRIMARY KEY \(copy_key=\? AND slot=\? AND bucket>\? AND bucket<\?\)/,
        );
      // The starts of the buckets the page and the count need, by their key.
      assert.deepEqual(searches((await plan(indexed, 2, march)).split('\n')), [
        'SEARCH copy_starts USING PRIMARY KEY (copy_key=? AND bucket=?)',
      ]);
      // The page's rows alone, each by its id: the index names them and their starts place them.
      const lookup = (await plan(indexed, 3, march)).split('\n');
      assert.deepEqual(searches(lookup), ['SEARCH copy_occurrences USING INTEGER PRIMARY KEY (rowid=?)']);
      assert.match(lookup.join('\n'), /LIST SUBQUERY[\s\S]*SCAN json_each/);
    });

    it('keeps one text for its statements however many calendars it reads', async () => {
      await copied([berlin('2026-03-02T09:00:00', 'plan-1', { title: 'Plan review' })]);
      await copied([berlin('2026-03-03T09:00:00', 'plan-2', { title: 'Hiring review' })], otherId);
      const march = {
        startNs: Temporal.Instant.from('2026-03-01T00:00:00Z').epochNanoseconds,
        endNs: Temporal.Instant.from('2026-04-01T00:00:00Z').epochNanoseconds,
      };
      /** The texts a read sends, marked to be prepared once (PostgreSQL: under a name). */
      const texts = async (calendarIds: string[], search?: CopyQuery['search']) => {
        const { nodes, capture } = capturing();
        const { rows } = await copyPage(
          handle.db.withPlugin(capture),
          calendarIds.map((id) => ({
            calendarId: id,
            copyKey: keys.get(id)!,
            window: march,
            longestMs: 3_600_000,
            offsets: [],
            ...(search === undefined ? {} : { search }),
          })),
          10,
        );
        const sent = nodes.map((node) => handle.db.getExecutor().compileQuery(node, { queryId: 'text' }).sql);
        return { sent, found: rows.length };
      };
      const search = { words: ['review'], level: 'full' as const, privateDetails: true };
      // A search by the word index: the vocabularies, the lists, the starts, the rows named.
      const one = await texts([calendarId], search);
      const two = await texts([calendarId, otherId], search);
      assert.deepEqual([one.found, two.found], [1, 2]);
      assert.equal(two.sent.length, 4);
      assert.deepEqual(two.sent, one.sent);
      // Each marked to be prepared but the lists', which PostgreSQL plans with its slots (store/reusedStatements.ts).
      for (const text of two.sent)
        assert.equal(text.startsWith('/* reused */'), !text.includes('from copy_words'), text);
      assert.equal(two.sent.filter((text) => text.includes('from copy_words')).length, 1);
      // A page of events: PostgreSQL keeps a text per power of two of calendars, the values
      // parameters (SQLite keeps a text per shape).
      if (engine.name === 'postgres') {
        const [page] = (await texts([calendarId, otherId])).sent;
        assert.equal(page, (await texts([otherId, calendarId])).sent[0]);
        assert.ok(page!.startsWith('/* reused */'));
      }
    });

    it('merges the calendars of a page by the read index, reading each no further than the page (PostgreSQL)', {
      skip: engine.name !== 'postgres',
    }, async () => {
      const days = Array.from({ length: 30 }, (_, d) => `2026-03-${String(d + 1).padStart(2, '0')}`);
      await copied(days.map((day, d) => berlin(`${day}T09:00:00`, `a-${d}`)));
      await copied(
        days.map((day, d) => berlin(`${day}T10:00:00`, `b-${d}`)),
        otherId,
      );
      const { nodes, capture } = capturing();
      const march = window('2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z');
      const { rows } = await copyPage(
        handle.db.withPlugin(capture),
        [calendarId, otherId].map((id) => berlinQuery(id, march, 3_600_000)),
        5,
      );
      assert.deepEqual(
        rows.map((row) => row.calendarId),
        [calendarId, otherId, calendarId, otherId, calendarId],
        'in the one order across calendars',
      );
      const compiled = handle.db.getExecutor().compileQuery(nodes[0]!, { queryId: 'plan' });
      const explained = await handle.db.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain (analyze, costs off, timing off, summary off) ${compiled.sql}`, [
          ...compiled.parameters,
        ]),
      );
      const plan = explained.rows.map((row) => row['QUERY PLAN']).join('\n');
      assert.match(plan, /Merge Append/);
      // Each calendar's range of the index is read up to the page's end, never its 30 rows.
      const scans = [...plan.matchAll(/Index Only Scan using copy_occurrences_read .*rows=(\d+)/g)];
      assert.equal(scans.length, 2, plan);
      for (const [, read] of scans) assert.ok(Number(read) <= 5, plan);
    });
  });
}
