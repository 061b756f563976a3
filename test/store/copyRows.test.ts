/**
 * A read of a copy is one query, on both engines: it touches only its window's rows (the index
 * on calendar and start; the rows of the rest of the horizon are never returned), places
 * floating and all-day times exactly as the core does in the reader's zone (across DST changes,
 * half-hour and +14 h zones), orders ties by occurrence id as JavaScript does, counts what it did
 * not return, and matches a search's words only against the text the reader may see: a busy-only
 * or titles-only reader never matches hidden text, a private event's text never matches without
 * private details — the same answers as the core's placement, masking and matchesWords; and
 * availability's busy time from the times alone.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import { busyIntervals } from '../../src/domain/availability.ts';
import type { DetailLevel } from '../../src/domain/detailLevels.ts';
import { type CalendarView, toEvents } from '../../src/domain/occurrences.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { matchesWords, queryWords } from '../../src/domain/search.ts';
import { localOffsets } from '../../src/domain/time/localOffsets.ts';
import { insertGrant } from '../../src/store/accessGrants.ts';
import { type CopyQuery, copyBusy, copyRows } from '../../src/store/calendarCopies.ts';
import { applyBatch } from '../../src/store/copyBatches.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { occurrence } from '../helpers/memoryCalendars.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';

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

    before(async () => {
      handle = await engine.open();
      const userId = await seedUser(handle.db, 'rea@example.org');
      const owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Reads', [[userId, 'owner']]) };
      [calendarId] = (await seedCalendars(handle.db, owner, [{ name: 'Work' }])) as [string];
      await insertGrant(handle.db, {
        id: 'grant-full',
        ...owner,
        clientId: 'c',
        clientName: 'C',
        scopes: ['calendar:read'],
        privateDetails: true,
        calendars: [{ calendarId, detailLevel: 'full' }],
        createdAt: 0,
      });
      await reconcileCopies(handle.db, 0);
    });
    after(() => handle.close());

    /** The copy holds exactly these occurrences, written by a sync as every sync writes them. */
    const copied = async (occurrences: ProviderOccurrence[]) => {
      await handle.db
        .updateTable('calendar_copies')
        .set({ lease_owner: 'test', lease_until: Number.MAX_SAFE_INTEGER })
        .where('calendar_id', '=', calendarId)
        .execute();
      const keys = [...new Set(occurrences.map((o) => o.providerEventId))];
      await applyBatch(handle.db, {
        calendarId,
        owner: 'test',
        ids,
        now: 1,
        leaseMs: 1_000,
        full: true,
        upserts: keys.map((key) => ({
          key,
          version: '1',
          occurrences: occurrences.filter((o) => o.providerEventId === key),
        })),
        removals: [],
        skipped: [],
        bytes: { spent: 0, limit: 1e9 },
        end: { state: 'position', horizon: { start: 0, end: 4e12 }, nextSyncAt: 4e12 },
      });
      const copy = await handle.db
        .selectFrom('calendar_copies')
        .select('longest_ms')
        .where('calendar_id', '=', calendarId)
        .executeTakeFirstOrThrow();
      return Number(copy.longest_ms);
    };

    const view = (fields: Partial<CalendarView> = {}): CalendarView => ({
      calendarId,
      access: 'owner',
      detailLevel: 'full',
      privateDetails: true,
      ...fields,
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
        ...(first === undefined ? {} : { first }),
      };
      const { rows, total } = await copyRows(handle.db, query);
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

    it('gives the busy time, times only, as the core finds it in the events', async () => {
      const statuses = ['confirmed', 'tentative', 'cancelled'] as const;
      const varied: ProviderOccurrence[] = [];
      for (let i = 0; i < 60; i++) {
        const start = Temporal.PlainDateTime.from('2026-03-28T06:00:00')
          .add({ minutes: 53 * i })
          .toString();
        const fields = {
          status: statuses[i % 3]!,
          freeBusyStatus: i % 5 === 0 ? ('free' as const) : ('busy' as const),
          duration: i % 7 === 0 ? 'P1D' : 'PT50M',
        };
        varied.push(i % 2 === 0 ? berlin(start, `busy-${i}`, fields) : floating(start, `busy-${i}`, fields));
      }
      const longestMs = await copied(varied);
      const w = window('2026-03-28T20:00:00Z', '2026-03-30T02:00:00Z');
      for (const placementZone of ['Europe/Berlin', 'America/New_York']) {
        for (const tentativeIsBusy of [true, false]) {
          const rows = await copyBusy(handle.db, {
            calendarId,
            window: { startNs: w.start.epochNanoseconds, endNs: w.end.epochNanoseconds },
            longestMs,
            offsets: localOffsets(placementZone, {
              startMs: w.start.epochMilliseconds - longestMs - day,
              endMs: w.end.epochMilliseconds + day,
            }),
            tentativeIsBusy,
          });
          const spans = rows.map((r) => ({
            startNs: BigInt(r.startMs) * 1_000_000n,
            endNs: BigInt(r.endMs) * 1_000_000n,
          }));
          const show = (list: { start: Temporal.Instant; end: Temporal.Instant }[]) =>
            list.map((span) => `${span.start}/${span.end}`);
          assert.deepEqual(
            show(busyIntervals([], w, { tentativeIsBusy }, spans)),
            show(busyIntervals(toEvents(varied, view({ placementZone }), ids, w), w, { tentativeIsBusy })),
            `${placementZone} ${tentativeIsBusy}`,
          );
        }
      }
    });

    it('reads its rows through the index that leads with the calendar and the start', {
      skip: engine.name !== 'sqlite',
    }, async () => {
      /** The plan of the read's `nth` query. */
      const plan = async (search: CopyQuery['search'] | 'busy', nth = 0) => {
        const nodes: RootOperationNode[] = [];
        const capture: KyselyPlugin = {
          transformQuery: ({ node }) => {
            nodes.push(node);
            return node;
          },
          transformResult: async ({ result }) => result,
        };
        const query = {
          calendarId,
          window: { startNs: 0n, endNs: 1_000_000_000_000n },
          longestMs: 0,
          offsets: localOffsets('Europe/Berlin', { startMs: -day, endMs: day }),
        };
        if (search === 'busy')
          await copyBusy(handle.db.withPlugin(capture), { ...query, tentativeIsBusy: true });
        else
          await copyRows(handle.db.withPlugin(capture), {
            ...query,
            ...(search === undefined ? {} : { search }),
            first: 10,
          });
        const compiled = handle.db.getExecutor().compileQuery(nodes[nth]!, { queryId: 'plan' });
        const rows = await handle.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
        );
        return rows.rows.map((r) => r.detail).join('\n');
      };
      const range = '\\(calendar_id=\\? AND start_ms>\\? AND start_ms<\\?\\)';
      const instants = '\\(calendar_id=\\? AND floating=\\? AND start_ms>\\? AND start_ms<\\?\\)';
      // A search reads the window's texts from the index, and no other rows.
      assert.match(
        await plan({ words: ['x'], level: 'full', privateDetails: false }),
        new RegExp(`SEARCH copy_occurrences USING COVERING INDEX copy_occurrences_text ${range}`),
      );
      // A list of the window reads the index alone until the page is chosen, its instants in the
      // index's order (no sort of the window); so does the busy time.
      for (const read of [undefined, 'busy'] as const) {
        assert.match(
          await plan(read),
          new RegExp(`SEARCH copy_occurrences USING COVERING INDEX copy_occurrences_read ${instants}`),
        );
        assert.match(
          await plan(read, 1),
          new RegExp(`SEARCH copy_occurrences USING COVERING INDEX copy_occurrences_read ${instants}`),
        );
      }
      // Only ties of one start are sorted (by occurrence id), not the window.
      assert.doesNotMatch(await plan(undefined), /USE TEMP B-TREE FOR ORDER BY/);
    });
  });
}
