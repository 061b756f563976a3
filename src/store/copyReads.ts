/**
 * Reads of the synced copies: the places of a page over every calendar of a read in one
 * statement, a search's words matched and counted there, a copy's busy time, and the chosen rows
 * whole. Each calendar's rows are ranges of the read index (calendar, kind of time, start): a
 * read's cost is its window's rows, never the horizon or the other copies.
 */
import type { Kysely } from 'kysely';
import type { DetailLevel } from '../domain/detailLevels.ts';
import { compareStrings } from '../domain/occurrences.ts';
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import { foldText } from '../domain/search.ts';
import { type OffsetStep, placeLocalMs } from '../domain/time/localOffsets.ts';
import { busyTitle } from '../domain/visibility.ts';
import { startsOfIds } from './bucketStarts.ts';
import { bucketStarts } from './copyStarts.ts';
import {
  addCandidate,
  appendIds,
  type Candidates,
  noCandidates,
  type WordQuery,
  wordCandidates,
} from './copyWords.ts';
import { engineOf } from './database.ts';
import { inList, numberParameter, q, reused, type Statement } from './reusedStatements.ts';
import { type Database, statusCodes } from './schema.ts';
import { readOffLoop, readSpansOffLoop, readUnpackedOffLoop } from './sqliteReaders.ts';
import type { CopyEdition, WordCache } from './wordCache.ts';
import { bucketOf, bucketStartMs } from './wordPostings.ts';

type Db = Kysely<Database>;

/** One calendar's part of a read: the window, how floating times are placed, and what of its rows is wanted. */
export interface CopyQuery {
  calendarId: string;
  /** The copy's number (calendar_copies.copy_key): what its rows are found by. */
  copyKey: number;
  /** The copy's edition, when a search may keep its words (store/wordCache.ts). */
  edition?: CopyEdition;
  /** The window's bounds, epoch ns (overlap as domain/occurrences.ts#overlapsNs has it). */
  window: { startNs: bigint; endNs: bigint };
  /** The copy's longest occurrence: how long before the window an overlapping one may start. */
  longestMs: number;
  /** The reading zone's offsets (domain/time/localOffsets.ts) for floating and all-day times; none: read as UTC. */
  offsets: readonly OffsetStep[];
  /** Only rows whose text, as this reader sees it, holds every folded word. */
  search?: { words: readonly string[]; level: DetailLevel; privateDetails: boolean };
  /** Only rows after this place in the one order (start, calendar, occurrence id): a page cursor's. */
  after?: { startMs: number; calendarId: string; occurrenceId: string };
}

/** A copied occurrence's place in the one order, as a read's query gives it: its row and placed start (epoch ms). */
export interface CopyPlace {
  /** The row, for `copiedRows` once the read has chosen it. */
  rowId: number;
  calendarId: string;
  startMs: number;
  /** Its times are local (placed by the query's offsets). */
  floating: boolean;
  occurrenceId: string;
  /** The row whole, where the statement that placed it brought it (a page's places): not read again. */
  copied?: CopiedRow;
}

/** What a read makes an event of: the sealed event id and the occurrence (and the sealed occurrence id the row holds). */
export interface CopiedRow {
  eventId: string;
  occurrenceId: string;
  occurrence: ProviderOccurrence;
}

/** A copied row as a statement answers it (its data unpacked); its columns passed, not the row spread. */
const copiedRowOf = (eventId: string, occurrenceId: string, occurrence: ProviderOccurrence): CopiedRow => ({
  eventId,
  occurrenceId,
  occurrence,
});

/** Floating and all-day times lie within 14 hours of their local time read as UTC, in every zone. */
const zoneSlackMs = 14 * 3_600_000;

/**
 * How rows are found: instants (`floating` 0) come in the read index's order of start, one
 * calendar at a time; local times (1: a local start and an elapsed duration, 2: local start and
 * end), few, are placed by the reading zone and sorted, calendars of one zone together.
 */
type Kind = 'instants' | 'local';

/** The calendars a statement's branch reads alike: one or several (ids and copy numbers, in step), with the window and the zone's offsets. */
type Part = Pick<CopyQuery, 'window' | 'longestMs' | 'offsets'> & {
  calendarIds: readonly string[];
  copyKeys: readonly number[];
};

/** The instant of a local time column read as UTC, by the reading zone's offsets. */
function placed(column: Statement<number>, offsets: readonly OffsetStep[]): Statement<number> {
  const last = offsets.at(-1);
  if (last === undefined) return column;
  if (offsets.length === 1) return q`(${column} - ${numberParameter(last.offsetMs)})`;
  const steps = offsets
    .slice(0, -1)
    .map(
      (step) =>
        q`when ${column} < ${numberParameter(step.untilLocalMs)} then ${numberParameter(step.offsetMs)}`,
    );
  return q`(${column} - case ${q.join(steps, q` `)} else ${numberParameter(last.offsetMs)} end)`;
}

/**
 * The rows whose placeholder title holds every word: what a busy-level reader sees of every row,
 * and a reader without private details of private and secret ones (domain/visibility.ts);
 * undefined when neither placeholder holds them all.
 */
function placeholderHolds(words: readonly string[]): Statement<boolean> | undefined {
  const inFree = words.every((word) => foldText(busyTitle('free')).includes(word));
  const inBusy = words.every((word) => foldText(busyTitle('busy')).includes(word));
  return inFree && inBusy
    ? q<boolean>`1 = 1`
    : inFree
      ? q<boolean>`is_free = 1`
      : inBusy
        ? q<boolean>`is_free = 0`
        : undefined;
}

/**
 * The rows of one kind that overlap the window, their instants placed by the reading zone's
 * offsets: the copy's number, the kind and a range of starts lead the read index.
 */
function inWindow(db: Db, part: Part, kind: Kind) {
  const startMs = q<number>`start_ms`;
  const start = kind === 'instants' ? startMs : placed(startMs, part.offsets);
  // An elapsed duration ends that long after the placed start; days end on their own local time.
  const end =
    kind === 'instants'
      ? q<number>`end_ms`
      : q<number>`(case floating when 1 then ${start} + (end_ms - start_ms) else ${placed(q<number>`end_ms`, part.offsets)} end)`;
  const { fromMs, untilCeilMs } = windowMs(part.window);
  // Local times lie within a zone's offset of where they are kept: the range widens by that much.
  const slackMs = kind === 'instants' ? 0 : zoneSlackMs;
  const [only] = part.copyKeys;
  const range: Statement<boolean>[] = [
    part.copyKeys.length === 1
      ? q`copy_key = ${numberParameter(only!)}`
      : q`copy_key ${copyKeysIn(db, part.copyKeys)}`,
    kind === 'instants' ? q`floating = 0` : q`floating in (1, 2)`,
    q`start_ms >= ${numberParameter(fromMs - part.longestMs - slackMs)}`,
    q`start_ms < ${numberParameter(untilCeilMs + slackMs)}`,
  ];
  return { start, end, range, conditions: [...range, overlaps(start, end, part.window)] };
}

/** domain/occurrences.ts#overlapsNs in the statement: a zero-length occurrence counts when it starts inside. */
function overlaps(start: Statement<number>, end: Statement<number>, window: CopyQuery['window']) {
  const { fromMs, fromCeilMs, untilCeilMs } = windowMs(window);
  return q<boolean>`((${start} = ${end} and ${start} >= ${numberParameter(fromCeilMs)} and ${start} < ${numberParameter(untilCeilMs)}) or (${start} <> ${end} and ${start} < ${numberParameter(untilCeilMs)} and ${end} > ${numberParameter(fromMs)}))`;
}

/** Whole milliseconds that decide the same as the window's nanosecond bounds. */
function windowMs(window: CopyQuery['window']) {
  const fromMs = Number(window.startNs / 1_000_000n);
  const fromCeilMs = fromMs + (window.startNs % 1_000_000n > 0n ? 1 : 0);
  const untilCeilMs = Number((window.endNs + 999_999n) / 1_000_000n);
  return { fromMs, fromCeilMs, untilCeilMs };
}

/** A row's placed start when it lies in the query's window, as `inWindow` decides for its kind; else undefined. */
function placedInWindow(
  row: { start_ms: number | string; end_ms: number | string; floating: number },
  query: CopyQuery,
): number | undefined {
  const { fromMs, fromCeilMs, untilCeilMs } = windowMs(query.window);
  const kind = Number(row.floating);
  const startMs = Number(row.start_ms);
  const endMs = Number(row.end_ms);
  const slackMs = kind === 0 ? 0 : zoneSlackMs;
  if (startMs < fromMs - query.longestMs - slackMs || startMs >= untilCeilMs + slackMs) return undefined;
  const start = kind === 0 ? startMs : placeLocalMs(startMs, query.offsets);
  const end =
    kind === 0 ? endMs : kind === 1 ? start + (endMs - startMs) : placeLocalMs(endMs, query.offsets);
  const inside =
    start === end ? start >= fromCeilMs && start < untilCeilMs : start < untilCeilMs && end > fromMs;
  return inside ? start : undefined;
}

const partOf = (query: CopyQuery): Part => ({
  ...query,
  calendarIds: [query.calendarId],
  copyKeys: [query.copyKey],
});

/**
 * A branch's calendar id, from its copy's number (the rows keep no other): the one calendar's
 * given as it is, or for several the one of the row's number.
 */
const branchCalendar = (db: Db, part: Part): Statement<string> => {
  const ids = part.calendarIds.map((id) => q<string>`cast(${id} as text)`);
  if (ids.length === 1) return ids[0]!;
  // PostgreSQL: both lists one parameter each, so the text is the same for any number of calendars.
  if (engineOf(db) === 'postgres')
    return q<string>`(cast(${part.calendarIds} as text[]))[array_position(cast(${part.copyKeys} as bigint[]), copy_key)]`;
  const cases = part.copyKeys.map((key, i) => q`when ${numberParameter(key)} then ${ids[i]}`);
  return q<string>`(case copy_key ${q.join(cases, q` `)} end)`;
};

/**
 * `in` the copies' numbers: on PostgreSQL one parameter (a text for any number of calendars,
 * prepared once per connection), on SQLite each its own (a walk of the index per number).
 */
const copyKeysIn = (db: Db, keys: readonly number[]): Statement<unknown> =>
  engineOf(db) === 'postgres' ? inList(db, keys, 'bigint') : q`in (${q.join(keys.map(numberParameter))})`;

/** Local times by the read index on SQLite, which would otherwise walk a window of the text index for them. */
const localRows = (db: Db, kind: Kind) =>
  kind === 'local' && engineOf(db) !== 'postgres'
    ? q`copy_occurrences indexed by copy_occurrences_read`
    : q`copy_occurrences`;

/**
 * The busy time of copies in the window, times only (domain/availability.ts: busy, not
 * cancelled, tentative when it counts), placed as a read places them, in one statement: their
 * instants one range of the read index per calendar, their local times per zone. Spans that
 * overlap or touch come merged, in order of start, as domain/availability.ts#busyIntervals merges
 * them: a month of 20 busy calendars is a few dozen spans to the request thread, not one per
 * occurrence (SQLite's reader thread merges the rows, PostgreSQL the statement).
 */
export async function copyBusy(
  db: Db,
  queries: readonly Pick<CopyQuery, 'calendarId' | 'copyKey' | 'window' | 'longestMs' | 'offsets'>[],
  tentativeIsBusy: boolean,
): Promise<{ startMs: number; endMs: number }[]> {
  if (queries.length === 0) return [];
  const kinds = (['instants', 'local'] as const).flatMap((kind) =>
    together(queries, kind).map(({ part }) => {
      const { start, end, conditions } = inWindow(db, part, kind);
      conditions.push(q`is_free = 0`, q`status_code <> ${q.lit(statusCodes.cancelled)}`);
      if (!tentativeIsBusy) conditions.push(q`status_code <> ${q.lit(statusCodes.tentative)}`);
      return q`select ${start} as s, ${end} as e from ${localRows(db, kind)} where ${q.join(conditions, q` and `)}`;
    }),
  );
  const spans = q<{ s: number; e: number }>`${q.join(kinds, q` union all `)}`;
  if (engineOf(db) !== 'postgres') {
    const merged = await readSpansOffLoop(db, reused(db, spans));
    return merged.map(([startMs, endMs]) => ({ startMs, endMs }));
  }
  // PostgreSQL merges them itself (20,000 rows parsed here would hold the loop): a span opens a
  // stretch when every span before it in order of start ended before it starts; a stretch ends
  // where the next one opens, with the latest end before it. A last span after every other
  // opens the stretch that is none, its latest end the last one's end: one pass of the window
  // function, not a second one for the ends of them all (20 calendars' month: 18 → 13 ms).
  const openers = q<{ s: string; m: string | null }>`select s, m from (
    select s, max(e) over (order by s rows between unbounded preceding and 1 preceding) as m
    from (${spans} union all select ${numberParameter(Number.MAX_SAFE_INTEGER)}, ${numberParameter(Number.MIN_SAFE_INTEGER)}) as spans) as marked
    where m is null or s > m order by s`;
  const rows = await readOffLoop(db, reused(db, openers));
  return rows.slice(0, -1).map((r, i) => ({ startMs: Number(r.s), endMs: Number(rows[i + 1]!.m) }));
}

/** Queries that read alike, together: the same text seen, and (for local times) the same zone. */
function together<
  Q extends Pick<CopyQuery, 'calendarId' | 'copyKey' | 'window' | 'longestMs' | 'offsets' | 'search'>,
>(queries: readonly Q[], kind: Kind): { part: Part; query: Q }[] {
  const groups = new Map<string, { part: Part; query: Q; ids: string[]; keys: number[] }>();
  for (const query of queries) {
    const key = JSON.stringify([
      query.search?.level,
      query.search?.privateDetails,
      kind === 'local' ? query.offsets : [],
    ]);
    const group = groups.get(key);
    if (group === undefined)
      groups.set(key, {
        part: { ...query, calendarIds: [], copyKeys: [] },
        query,
        ids: [query.calendarId],
        keys: [query.copyKey],
      });
    else {
      group.ids.push(query.calendarId);
      group.keys.push(query.copyKey);
      group.part.longestMs = Math.max(group.part.longestMs, query.longestMs);
    }
  }
  return [...groups.values()].map(({ part, query, ids, keys }) => ({
    part: { ...part, calendarIds: ids, copyKeys: keys },
    query,
  }));
}

/** A column (or a value) ordered as JavaScript compares ids: by code unit (they are ASCII), never by a locale. */
const inCodeOrder = (db: Db, column: string | Statement<string>) => {
  const value = typeof column === 'string' ? q.ref(column) : column;
  return engineOf(db) === 'postgres' ? q`${value} collate "C"` : value;
};

/** Branches of a read's statement: each a select of `columns` over a part's rows of one kind that the read wants. */
function branches(
  db: Db,
  parts: readonly { part: Part; query: CopyQuery }[],
  kind: Kind,
  columns: (start: Statement<number>, calendar: Statement<string>) => Statement<unknown>,
) {
  return parts.map(({ part, query }) => {
    const { start, conditions } = inWindow(db, part, kind);
    const calendar = branchCalendar(db, part);
    // A search read here is of busy-level calendars alone (searchCandidates): the placeholder is all they see.
    if (query.search !== undefined && query.search.words.length > 0)
      conditions.push(placeholderHolds(query.search.words) ?? q<boolean>`1 = 0`);
    const { after } = query;
    if (after !== undefined) {
      const at = numberParameter(after.startMs);
      conditions.push(
        q`(${start} > ${at} or (${start} = ${at} and (${inCodeOrder(db, calendar)} > ${after.calendarId} or (${calendar} = ${after.calendarId} and ${inCodeOrder(db, 'occurrence_id')} > ${after.occurrenceId}))))`,
      );
    }
    return q`select ${columns(start, calendar)} from ${localRows(db, kind)} where ${q.join(conditions, q` and `)}`;
  });
}

interface PlaceRow {
  id: number | string;
  placed_start: number | string;
  floating: number;
  calendar_id: string;
  occurrence_id: string;
  /** The row whole, on a page's places (`wholeRows`). */
  event_id?: string;
  data?: ProviderOccurrence;
}

/**
 * A page's places with their rows whole, joined once the page is cut (the places are ordered and
 * limited from the read index alone): the rows the page returns are not read a second time, nor
 * passed between threads twice. The rows come in the one order, unpacked.
 */
function wholeRows(db: Db, places: Statement<unknown>): Promise<PlaceRow[]> {
  const order = placeOrder(db, 'places.');
  const text = q<
    PlaceRow & { data: Uint8Array }
  >`select places.*, whole.event_id, whole.data from (${places}) as places join copy_occurrences as whole on whole.id = places.id ${order}`;
  return readUnpackedOffLoop(db, reused(db, text), 'data');
}

/** The one order of places (start, calendar, occurrence id by code unit), of `table`'s columns if given. */
const placeOrder = (db: Db, table = '') =>
  q`order by ${q.ref(`${table}placed_start`)}, ${inCodeOrder(db, `${table}calendar_id`)}, ${inCodeOrder(db, `${table}occurrence_id`)}`;

/** The first places of branches in the one order: start, calendar, occurrence id (by code unit). */
function firstPlaces(db: Db, selects: readonly Statement<unknown>[], first: number | undefined) {
  if (selects.length === 0) return Promise.resolve([] as PlaceRow[]);
  if (engineOf(db) !== 'postgres') {
    // A limit written in lets SQLite stop each branch's sort of equal starts there, which a bound
    // one does not (20 calendars: 0.8 → 0.4 ms). Rounded up to a power of two, so that a few
    // texts serve every page size; the rows past the page are dropped below.
    const union = q.join(selects, q` union all `);
    const order = placeOrder(db);
    if (first === undefined) return readOffLoop(db, reused(db, q<PlaceRow>`${union} ${order}`));
    const limit = q`limit ${q.lit(2 ** Math.ceil(Math.log2(Math.max(first, 1))))}`;
    return wholeRows(db, q`${union} ${order} ${limit}`);
  }
  const limit = first === undefined ? q`` : q`limit ${first}`;
  // PostgreSQL sorts a union's rows whole rather than merge its branches (its index orders ids
  // by the column's collation, not by code unit): each branch is limited to the page first.
  const order = q`${placeOrder(db)} ${limit}`;
  // Each branch ordered by its own columns (the calendar's id is one a branch makes).
  const union = q.join(
    selects.map((select) => q`(select * from (${select}) as branch ${order})`),
    q` union all `,
  );
  if (first !== undefined) return wholeRows(db, q`select * from (${union}) as places ${order}`);
  return readOffLoop(db, reused(db, q<PlaceRow>`select * from (${union}) as places ${order}`));
}

/**
 * PostgreSQL's first `first` places of instants: a branch per calendar, each a range of the read
 * index in its order of start cut at the page's end, merged by the engine, which stops there —
 * a page of 250 over 20 calendars reads ~270 entries of the index, where a list walked by one
 * statement read every calendar's first 250 and sorted the 5,000 (2.7 ms → 0.3 ms). Only starts
 * are ordered there (the rows tied at the end kept): calendar and occurrence id, by code unit,
 * which no index of PostgreSQL's orders by, are decided by the caller. The branches are as
 * many as the next power of two, those past the calendars reading a copy there is not: a few
 * texts, each prepared once per connection and planned once.
 */
function mergedFirstPlaces(
  db: Db,
  queries: readonly CopyQuery[],
  columns: (start: Statement<number>, calendar: Statement<string>) => Statement<unknown>,
  first: number,
) {
  const branchCount = 2 ** Math.ceil(Math.log2(queries.length));
  const parts = Array.from({ length: branchCount }, (_, i) => {
    const query = queries[i] ?? { ...queries[0]!, copyKey: noCopy };
    return { part: partOf(query), query };
  });
  const selects = branches(db, parts, 'instants', columns);
  const page = q`fetch first ${first} rows with ties`;
  const merged =
    selects.length === 1
      ? q`${selects[0]} order by start_ms ${page}`
      : q`${q.join(
          selects.map((select) => q`(${select} order by start_ms ${page})`),
          q` union all `,
        )} order by placed_start ${page}`;
  return wholeRows(db, merged);
}

/** A copy number no copy has (the database gives them from 1). */
const noCopy = -1;

const placeOf = (r: PlaceRow): CopyPlace => {
  const place: CopyPlace = {
    rowId: Number(r.id),
    calendarId: r.calendar_id,
    startMs: Number(r.placed_start),
    floating: r.floating !== 0,
    occurrenceId: r.occurrence_id,
  };
  if (r.data !== undefined) place.copied = copiedRowOf(r.event_id!, r.occurrence_id, r.data);
  return place;
};

type Ordered = Pick<CopyPlace, 'startMs' | 'calendarId' | 'occurrenceId'>;

const inOrder = (a: Ordered, b: Ordered) =>
  a.startMs - b.startMs ||
  compareStrings(a.calendarId, b.calendarId) ||
  compareStrings(a.occurrenceId, b.occurrenceId);

/**
 * The first `first` places of a read over every calendar in `queries`, in the one order (start,
 * calendar, occurrence). The instants of each calendar come in the read index's order and are
 * merged by the engine, which stops at the page's end instead of sorting every window; the few
 * local times, placed, come apart and join them here. A search also counts every match
 * (`total`); other reads count the places returned.
 */
export async function copyPage(
  db: Db,
  queries: readonly CopyQuery[],
  first?: number,
  cache?: WordCache,
): Promise<{ rows: CopyPlace[]; total: number }> {
  if (queries.length === 0) return { rows: [], total: 0 };
  const named = await searchCandidates(db, queries, cache);
  if (named !== undefined) return namedPlaces(db, queries, named, first, cache);
  const columns = (start: Statement<number>, calendar: Statement<string>) =>
    q`id, ${start} as placed_start, floating, ${calendar} as calendar_id, occurrence_id`;
  const local = together(queries, 'local');
  // PostgreSQL: a page merged by the engine; every place, one branch of all the calendars, sorted.
  const instants =
    engineOf(db) === 'postgres'
      ? first === undefined
        ? firstPlaces(db, branches(db, together(queries, 'instants'), 'instants', columns), undefined)
        : mergedFirstPlaces(db, queries, columns, first)
      : firstPlaces(
          db,
          branches(
            db,
            queries.map((query) => ({ part: partOf(query), query })),
            'instants',
            columns,
          ),
          first,
        );
  const placedLocal = firstPlaces(db, branches(db, local, 'local', columns), first);
  // Counted apart: a count beside the page would keep the engine reading after the page's end.
  const count = () =>
    readOffLoop(
      db,
      reused(
        db,
        q<{ total: number | string | null }>`select sum(n) as total from (${q.join(
          [
            ...branches(db, together(queries, 'instants'), 'instants', () => q`count(*) as n`),
            ...branches(db, local, 'local', () => q`count(*) as n`),
          ],
          q` union all `,
        )}) as counts`,
      ),
    );
  const [a, b, counted] = await Promise.all([
    instants,
    placedLocal,
    queries[0]!.search === undefined ? undefined : count(),
  ]);
  const rows = [...a.map(placeOf), ...b.map(placeOf)].sort(inOrder).slice(0, first);
  return { rows, total: counted === undefined ? rows.length : Number(counted[0]?.total ?? 0) };
}

/**
 * The rows a search names: from the word index, the only place text is found, and where a
 * reader sees placeholder titles (every row at busy level, private events to a reader without
 * private details) from the read index when the placeholder holds every word. Undefined for a
 * read without words, or one whose every calendar is read at busy level: that one is scanned.
 */
async function searchCandidates(
  db: Db,
  queries: readonly CopyQuery[],
  cache: WordCache | undefined,
): Promise<Map<string, Candidates> | undefined> {
  const words = queries[0]!.search?.words ?? [];
  if (words.length === 0 || queries.every((query) => query.search!.level === 'busy')) return undefined;
  // The calendars of one reader (level and private details) together: one lookup each.
  const readers = new Map<string, { level: DetailLevel; privateDetails: boolean; ranges: WordQuery[] }>();
  for (const query of queries) {
    const { level, privateDetails } = query.search!;
    const { fromMs, untilCeilMs } = windowMs(query.window);
    const range = {
      calendarId: query.calendarId,
      copyKey: query.copyKey,
      ...(query.edition === undefined ? {} : { edition: query.edition }),
      fromMs: fromMs - query.longestMs - zoneSlackMs,
      untilMs: untilCeilMs + zoneSlackMs,
    };
    const key = `${level} ${privateDetails}`;
    const reader = readers.get(key) ?? { level, privateDetails, ranges: [] };
    readers.set(key, reader);
    reader.ranges.push(range);
  }
  const named = new Map<string, Candidates>();
  // A calendar's rows named by the index, and those its placeholder title names (never the same ones).
  const add = (calendarId: string, candidates: Candidates) => {
    const held = named.get(calendarId);
    if (held === undefined) named.set(calendarId, candidates);
    else {
      for (const [bucket, ids] of candidates.buckets) {
        const ofBucket = held.buckets.get(bucket);
        if (ofBucket === undefined) held.buckets.set(bucket, ids);
        else appendIds(ofBucket, ids);
      }
      appendIds(held.local, candidates.local);
    }
  };
  await Promise.all(
    [...readers.values()].map(async ({ level, privateDetails, ranges }) => {
      const [listed, placeholders] = await Promise.all([
        level === 'busy'
          ? new Map<string, Candidates>()
          : wordCandidates(db, ranges, words, { titlesOnly: level === 'titles', privateDetails }, cache),
        level === 'busy' || !privateDetails ? placeholderRows(db, ranges, words, level !== 'busy') : [],
      ]);
      for (const [calendarId, candidates] of listed) add(calendarId, candidates);
      for (const { calendarId, candidates } of placeholders) add(calendarId, candidates);
    }),
  );
  return named;
}

/**
 * The rows of the copies' ranges whose placeholder title holds every word — `onlyPrivate`: of
 * private and secret events (a reader without private details; the index lists none of them
 * for it) — per copy.
 */
async function placeholderRows(
  db: Db,
  ranges: readonly WordQuery[],
  words: readonly string[],
  onlyPrivate: boolean,
): Promise<{ calendarId: string; candidates: Candidates }[]> {
  const holds = placeholderHolds(words);
  if (holds === undefined) return [];
  const rows = await readOffLoop(
    db,
    reused(
      db,
      q<{
        copy_key: number | string;
        id: number | string;
        start_ms: number | string;
        floating: number;
      }>`select copy_key, id, start_ms, floating from copy_occurrences where copy_key ${inList(
        db,
        ranges.map((range) => range.copyKey),
        'bigint',
      )} and floating in (0, 1, 2) and start_ms >= ${numberParameter(Math.min(...ranges.map((range) => range.fromMs)))} and start_ms < ${numberParameter(Math.max(...ranges.map((range) => range.untilMs)))} and ${onlyPrivate ? q`is_private = 1` : q`1 = 1`} and ${holds}`,
    ),
  );
  return ranges.map((range) => {
    const candidates = noCandidates();
    for (const row of rows) {
      const startMs = Number(row.start_ms);
      if (Number(row.copy_key) === range.copyKey && startMs >= range.fromMs && startMs < range.untilMs)
        addCandidate(candidates, Number(row.id), bucketOf(startMs), Number(row.floating) !== 0);
    }
    return { calendarId: range.calendarId, candidates };
  });
}

interface NamedRow {
  id: number | string;
  copy_key: number | string;
  start_ms: number | string;
  end_ms: number | string;
  floating: number;
  occurrence_id: string;
  /** The row whole (kind 1): the page's rows are not read again. */
  event_id: string | null;
  data: Uint8Array | null;
  /** 0: looked up by id, placed and matched here; 1: of the page, a match by its start. */
  kind: number | string;
}

const ascending = (ids: readonly number[]) => {
  for (let k = 1; k < ids.length; k++) if (ids[k - 1]! > ids[k]!) return false;
  return true;
};

/**
 * A search's places from the rows the word index named (each holds every word where the reader
 * may see it), chosen and counted by their starts (store/copyStarts.ts) without reading them. A
 * row of instants that starts inside the window and past the cursor matches as it is: those are
 * counted, and the page's first alone are read, whole. A bucket of starts wholly inside the
 * window, once the page is full before it, is counted by its ids alone (its starts not read).
 * Rows whose match their start cannot decide — local times (placed by the reader's zone), rows
 * that start before the window (their end decides) or at the cursor's instant (the order of
 * calendars and occurrences decides), rows the starts do not list (the copy changed since its
 * words were read) — are few: looked up by id (a page of the table each) and placed here.
 */
async function namedPlaces(
  db: Db,
  queries: readonly CopyQuery[],
  named: ReadonlyMap<string, Candidates>,
  first: number | undefined,
  cache: WordCache | undefined,
): Promise<{ rows: CopyPlace[]; total: number }> {
  // Every calendar of a read has its window, and one cursor (the page's last place).
  const { fromMs, fromCeilMs, untilCeilMs } = windowMs(queries[0]!.window);
  const after = queries[0]!.after;
  const looked: number[] = [];
  // Buckets that reach the window, their rows' ids by copy (and how many in all).
  const buckets = new Map<number, { copies: { copyKey: number; ids: number[] }[]; count: number }>();
  for (const query of queries) {
    const candidates = named.get(query.calendarId);
    if (candidates === undefined) continue;
    appendIds(looked, candidates.local);
    for (const [bucket, ids] of candidates.buckets) {
      // A bucket that ends before the window starts: its rows' ends decide.
      if (bucketStartMs(bucket + 1) <= fromCeilMs) {
        appendIds(looked, ids);
        continue;
      }
      const held = buckets.get(bucket) ?? { copies: [], count: 0 };
      buckets.set(bucket, held);
      held.copies.push({ copyKey: query.copyKey, ids });
      held.count += ids.length;
    }
  }
  // Matches counted by their ids alone, and the buckets whose starts are read.
  let unlooked = 0;
  let inside = 0;
  const started: number[] = [];
  for (const bucket of [...buckets.keys()].sort((a, b) => a - b)) {
    const bucketEnd = bucketStartMs(bucket + 1);
    if (after !== undefined && bucketEnd <= after.startMs) continue;
    const { count } = buckets.get(bucket)!;
    const edge =
      bucketStartMs(bucket) < fromCeilMs ||
      bucketEnd > untilCeilMs ||
      (after !== undefined && bucketStartMs(bucket) <= after.startMs);
    if (edge) started.push(bucket);
    else if (first !== undefined && inside >= first) unlooked += count;
    else {
      started.push(bucket);
      inside += count;
    }
  }
  // The starts of the copies named in those buckets alone.
  const startedCopies = new Set<number>();
  for (const bucket of started)
    for (const { copyKey } of buckets.get(bucket)!.copies) startedCopies.add(copyKey);
  const starts = await bucketStarts(
    db,
    queries.filter((query) => startedCopies.has(query.copyKey)),
    started,
    cache,
  );
  // Matches by their start: [start, id] pairs, flat.
  const sure: number[] = [];
  const byCopy = new Map(queries.map((query) => [query.copyKey, query]));
  // Each list's starts, written over for each.
  const startOf: number[] = [];
  for (const bucket of started)
    for (const { copyKey, ids: named } of buckets.get(bucket)!.copies) {
      const listed = starts.get(copyKey)?.get(bucket);
      // A row named under several words comes from lists of their own: ascending once sorted.
      const ids = ascending(named) ? named : Float64Array.from(named).sort();
      if (listed !== undefined) startsOfIds(bucket, listed, ids, startOf);
      const query = byCopy.get(copyKey)!;
      // What starts before the window reaches it only if the copy's longest occurrence could.
      const reachFrom = fromMs - query.longestMs;
      // At the cursor's instant another calendar's rows come after it or before it whole.
      const atCursor =
        after === undefined || after.calendarId === query.calendarId
          ? 0
          : compareStrings(query.calendarId, after.calendarId);
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k]!;
        const start = listed === undefined ? Number.NaN : startOf[k]!;
        if (Number.isNaN(start)) {
          looked.push(id);
          continue;
        }
        if (start >= untilCeilMs || (after !== undefined && start < after.startMs)) continue;
        if (start < fromCeilMs) {
          if (start > reachFrom) looked.push(id);
        } else if (after === undefined || start > after.startMs || atCursor > 0) sure.push(start, id);
        else if (atCursor === 0) looked.push(id);
      }
    }
  // The page's first by start, and every one that starts with the last of them: the order of
  // calendars and occurrences among those is the rows' own.
  const byStart = new Float64Array(sure.length / 2);
  for (let k = 0; k < byStart.length; k++) byStart[k] = sure[2 * k]!;
  byStart.sort();
  const lastStart =
    first === undefined || byStart.length <= first
      ? Number.POSITIVE_INFINITY
      : first <= 0
        ? Number.NEGATIVE_INFINITY
        : byStart[first - 1]!;
  const page: number[] = [];
  for (let k = 0; k < sure.length; k += 2) if (sure[k]! <= lastStart) page.push(sure[k + 1]!);
  const columns = q.raw('id, copy_key, start_ms, end_ms, floating, occurrence_id');
  const reads = [
    ...(looked.length === 0
      ? []
      : [q`select ${columns}, null as event_id, null as data, 0 as kind ${byIds(db, looked)}`]),
    ...(page.length === 0 ? [] : [q`select ${columns}, event_id, data, 1 as kind ${byIds(db, page)}`]),
  ];
  const found =
    reads.length === 0
      ? []
      : await readUnpackedOffLoop(db, reused(db, q<NamedRow>`${q.join(reads, q` union all `)}`), 'data');
  const places: CopyPlace[] = [];
  let lookedMatches = 0;
  for (const row of found) {
    const query = byCopy.get(Number(row.copy_key));
    if (query === undefined) continue;
    const chosen = Number(row.kind) === 1;
    const startMs = chosen ? Number(row.start_ms) : placedInWindow(row, query);
    if (startMs === undefined) continue;
    const place: CopyPlace = {
      rowId: Number(row.id),
      calendarId: query.calendarId,
      startMs,
      floating: Number(row.floating) !== 0,
      occurrenceId: row.occurrence_id,
    };
    if (chosen) {
      place.copied = copiedRowOf(row.event_id!, row.occurrence_id, row.data!);
      places.push(place);
    } else if (after === undefined || inOrder(place, after) > 0) {
      places.push(place);
      lookedMatches += 1;
    }
  }
  places.sort(inOrder);
  return { rows: places.slice(0, first), total: sure.length / 2 + unlooked + lookedMatches };
}

/** Whether a copy holds floating or all-day times near the window: a zone is needed to place them. */
export async function floatingNear(
  db: Db,
  query: Pick<CopyQuery, 'calendarId' | 'copyKey' | 'window' | 'longestMs' | 'offsets'>,
): Promise<boolean> {
  // The range alone: where a zone would place them is what is unknown.
  const { range } = inWindow(db, partOf({ ...query }), 'local');
  const rows = await readOffLoop(
    db,
    reused(
      db,
      q<{
        found: number;
      }>`select 1 as found from ${localRows(db, 'local')} where ${q.join(range, q` and `)} limit 1`,
    ),
  );
  return rows.length > 0;
}

/** The rows a read chose, whole, by their ids: the list one parameter (one statement's text for any page). */
export async function copiedRows(db: Db, rowIds: readonly number[]): Promise<Map<number, CopiedRow>> {
  const held = new Map<number, CopiedRow>();
  if (rowIds.length === 0) return held;
  const rows = await readUnpackedOffLoop(
    db,
    reused(
      db,
      q<{
        id: number | string;
        event_id: string;
        occurrence_id: string;
        data: Uint8Array;
      }>`select id, event_id, occurrence_id, data ${byIds(db, rowIds)}`,
    ),
    'data',
  );
  for (const r of rows) held.set(Number(r.id), copiedRowOf(r.event_id, r.occurrence_id, r.data));
  return held;
}

/** Rows by id, one lookup by key each. */
function byIds(db: Db, ids: readonly number[]): Statement<unknown> {
  return q`from copy_occurrences where id ${inList(db, ids, 'bigint')}`;
}
