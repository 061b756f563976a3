/**
 * The synced copies of calendars as their readers see them: each copy's state, what a sync starts
 * from, the versions it holds, and the occurrences near a window.
 */
import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { DetailLevel } from '../domain/detailLevels.ts';
import { compareStrings } from '../domain/occurrences.ts';
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import { foldText } from '../domain/search.ts';
import type { OffsetStep } from '../domain/time/localOffsets.ts';
import { busyTitle } from '../domain/visibility.ts';
import { unpackOccurrence } from './packedOccurrence.ts';
import { numberParameter, reused } from './reusedStatements.ts';
import { type Database, flag } from './schema.ts';
import { readOffLoop, readUnpackedOffLoop } from './sqliteReaders.ts';

type Db = Kysely<Database>;

export interface CopyStatus {
  calendarId: string;
  level: DetailLevel;
  /** It holds private events' details (else they are kept as busy). */
  privateDetails: boolean;
  hasState: boolean;
  horizonStart: number | null;
  horizonEnd: number | null;
  syncedAt: number | null;
  attemptedAt: number | null;
  nextSyncAt: number;
  /** Until when a sync holds the copy (a sync is running while it lies ahead). */
  leaseUntil: number | null;
  failures: number;
  failureReason: string | null;
  /** Items held (before the first complete sync: those staged so far, its progress), and how many could not be read. */
  items: number;
  skipped: number;
  version: number;
  longestMs: number;
  createdAt: number;
}

export async function copiesOf(db: Db, calendarIds: readonly string[]): Promise<Map<string, CopyStatus>> {
  if (calendarIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('calendar_copies')
    .selectAll()
    .where('calendar_id', 'in', calendarIds)
    .execute();
  return new Map(
    rows.map((r) => [
      r.calendar_id,
      {
        calendarId: r.calendar_id,
        level: r.level as DetailLevel,
        privateDetails: flag(r.private_details),
        hasState: r.sync_state !== null,
        horizonStart: numberOrNull(r.horizon_start),
        horizonEnd: numberOrNull(r.horizon_end),
        syncedAt: numberOrNull(r.synced_at),
        attemptedAt: numberOrNull(r.attempted_at),
        nextSyncAt: Number(r.next_sync_at),
        leaseUntil: numberOrNull(r.lease_until),
        failures: r.failures,
        failureReason: r.failure_reason,
        items: r.synced_at === null ? r.items + Number(r.staged_items) : r.items,
        skipped: r.skipped,
        version: Number(r.version),
        longestMs: Number(r.longest_ms),
        createdAt: Number(r.created_at),
      },
    ]),
  );
}

const numberOrNull = (value: number | null) => (value === null ? null : Number(value));

/** What a sync needs to start: the copy's level, position, generation and horizon. */
export async function copyForSync(
  db: Db,
  calendarId: string,
): Promise<{ level: DetailLevel; state: string | null; horizonEnd: number | null } | undefined> {
  const row = await db
    .selectFrom('calendar_copies')
    .select(['level', 'sync_state', 'horizon_end'])
    .where('calendar_id', '=', calendarId)
    .executeTakeFirst();
  return (
    row && {
      level: row.level as DetailLevel,
      state: row.sync_state,
      horizonEnd: numberOrNull(row.horizon_end),
    }
  );
}

/** The copied occurrences that may overlap [startMs, endMs): floating and all-day ones are placed later, so a day either side. */
export async function occurrencesNear(
  db: Db,
  calendarId: string,
  window: { startMs: number; endMs: number },
  longestMs: number,
): Promise<ProviderOccurrence[]> {
  const day = 86_400_000;
  const rows = await db
    .selectFrom('copy_occurrences')
    .select('data')
    .where('calendar_id', '=', calendarId)
    .where('start_ms', '>=', window.startMs - day - longestMs)
    .where('start_ms', '<', window.endMs + day)
    .execute();
  return rows.map((r) => unpackOccurrence(r.data));
}

/** One read of one copy: the window, how floating times are placed, and what of its rows is wanted. */
export interface CopyQuery {
  calendarId: string;
  /** The window's bounds, epoch ns (overlap as domain/occurrences.ts#overlapsNs has it). */
  window: { startNs: bigint; endNs: bigint };
  /** The copy's longest occurrence: how long before the window an overlapping one may start. */
  longestMs: number;
  /** The reading zone's offsets (domain/time/localOffsets.ts) for floating and all-day times; none: read as UTC. */
  offsets: readonly OffsetStep[];
  /** Only rows whose text, as this reader sees it, holds every folded word. */
  search?: { words: readonly string[]; level: DetailLevel; privateDetails: boolean };
  /** Only rows after this place: a later start, or the same start and (`tie`) a later occurrence id. */
  after?: { startMs: number; tie: 'none' | 'all' | { occurrenceId: string } };
  /** Only the first this many rows (a search's count still counts them all; other reads count those returned). */
  first?: number;
}

/** A copied occurrence's place in the one order, as a read's query gives it: its row and placed start (epoch ms). */
export interface CopyPlace {
  /** The row, for `copiedRows` once the read has chosen it. */
  rowId: number;
  startMs: number;
  /** Its times are local (placed by the query's offsets). */
  floating: boolean;
  occurrenceId: string;
}

/** What a read makes an event of: the sealed event id and the occurrence. */
export interface CopiedRow {
  eventId: string;
  occurrence: ProviderOccurrence;
}

/** Floating and all-day times lie within 14 hours of their local time read as UTC, in every zone. */
const zoneSlackMs = 14 * 3_600_000;

/** The instant of a local time column read as UTC, by the reading zone's offsets. */
function placed(column: RawBuilder<number>, offsets: readonly OffsetStep[]): RawBuilder<number> {
  const last = offsets.at(-1);
  if (last === undefined) return column;
  if (offsets.length === 1) return sql`(${column} - ${numberParameter(last.offsetMs)})`;
  const steps = offsets
    .slice(0, -1)
    .map(
      (step) =>
        sql`when ${column} < ${numberParameter(step.untilLocalMs)} then ${numberParameter(step.offsetMs)}`,
    );
  return sql`(${column} - case ${sql.join(steps, sql` `)} else ${numberParameter(last.offsetMs)} end)`;
}

/** Whether the row's text a reader sees holds `word`: the busy title, else the title (and at full the rest). */
function holdsWord(
  word: string,
  search: NonNullable<CopyQuery['search']>,
  find: (column: RawBuilder<string>, word: string) => RawBuilder<boolean>,
): RawBuilder<boolean> {
  const inFree = foldText(busyTitle('free')).includes(word);
  const inBusy = foldText(busyTitle('busy')).includes(word);
  const placeholder =
    inFree && inBusy
      ? sql<boolean>`1 = 1`
      : inFree
        ? sql<boolean>`is_free = 1`
        : inBusy
          ? sql<boolean>`is_free = 0`
          : sql<boolean>`1 = 0`;
  if (search.level === 'busy') return placeholder;
  const text =
    search.level === 'full'
      ? sql<boolean>`(${find(sql.ref('title_text'), word)} or ${find(sql.ref('body_text'), word)})`
      : find(sql.ref('title_text'), word);
  // Private and secret events show their text only to grants with private details (visibleLevel).
  if (search.privateDetails) return text;
  return sql<boolean>`((is_private = 1 and ${placeholder}) or (is_private = 0 and ${text}))`;
}

/** The rows of a copy that overlap the window, their instants placed by the reading zone's offsets. */
function inWindow(query: Pick<CopyQuery, 'calendarId' | 'window' | 'longestMs' | 'offsets'>) {
  const { offsets } = query;
  const startMs = sql<number>`start_ms`;
  const endMs = sql<number>`end_ms`;
  const start = sql<number>`(case when floating = 0 then start_ms else ${placed(startMs, offsets)} end)`;
  // Days end on their own local time; an elapsed duration ends that long after the placed start.
  const end = sql<number>`(case floating when 0 then end_ms when 1 then ${placed(startMs, offsets)} + (end_ms - start_ms) else ${placed(endMs, offsets)} end)`;
  // Whole milliseconds that decide the same as the nanosecond bounds.
  const windowStart = query.window.startNs;
  const fromMs = Number(windowStart / 1_000_000n);
  const fromCeilMs = fromMs + (windowStart % 1_000_000n > 0n ? 1 : 0);
  const untilCeilMs = Number((query.window.endNs + 999_999n) / 1_000_000n);
  // domain/occurrences.ts#overlapsNs: a zero-length occurrence counts when it starts inside.
  const overlap = (s: RawBuilder<number>, e: RawBuilder<number>) =>
    sql<boolean>`((${s} = ${e} and ${s} >= ${numberParameter(fromCeilMs)} and ${s} < ${numberParameter(untilCeilMs)}) or (${s} <> ${e} and ${s} < ${numberParameter(untilCeilMs)} and ${e} > ${numberParameter(fromMs)}))`;
  const conditions: RawBuilder<boolean>[] = [
    sql`calendar_id = ${query.calendarId}`,
    // The index's range: what may overlap wherever its floating times are placed.
    sql`start_ms >= ${numberParameter(fromMs - query.longestMs - zoneSlackMs)}`,
    sql`start_ms < ${numberParameter(untilCeilMs + zoneSlackMs)}`,
    sql`(case when floating = 0 then ${overlap(startMs, endMs)} else ${overlap(start, end)} end)`,
  ];
  return { start, end, conditions };
}

/**
 * The busy time of a copy in the window, times only (domain/availability.ts: busy, not
 * cancelled, tentative when it counts), placed as a read places them; the floating rows say
 * whether a zone was needed.
 */
export async function copyBusy(
  db: Db,
  query: Pick<CopyQuery, 'calendarId' | 'window' | 'longestMs' | 'offsets'> & { tentativeIsBusy: boolean },
): Promise<{ startMs: number; endMs: number; floating: boolean }[]> {
  const { start, end, conditions } = inWindow(query);
  conditions.push(sql`is_free = 0`, sql`status <> 'cancelled'`);
  if (!query.tentativeIsBusy) conditions.push(sql`status <> 'tentative'`);
  // Instants and floating times each a range of the read index.
  const busy = (kind: RawBuilder<boolean>) =>
    readOffLoop(
      db,
      reused(
        sql<{ s: number | string; e: number | string; floating: number }>`
        select ${start} as s, ${end} as e, floating from copy_occurrences
        where ${sql.join([...conditions, kind], sql` and `)}`,
      ).compile(db),
    );
  const rows = [...(await busy(sql`floating = 0`)), ...(await busy(sql`floating in (1, 2)`))];
  return rows.map((r) => ({ startMs: Number(r.s), endMs: Number(r.e), floating: r.floating !== 0 }));
}

/**
 * The copy's rows that overlap the window, placed in the reading zone, in the one order (start,
 * then occurrence id), matched, limited and counted by the database: one query on the index
 * that leads with the calendar and the start, whose cost is the window's rows.
 */
export async function copyRows(db: Db, query: CopyQuery): Promise<{ rows: CopyPlace[]; total: number }> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // SQLite's glob compares bytes as instr does, but without counting characters to a position:
  // a search of 20,000 descriptions in half the time. Its wildcards in a word stand for themselves.
  const find = (column: RawBuilder<string>, word: string) =>
    postgres
      ? sql<boolean>`strpos(${column}, ${word}) > 0`
      : sql<boolean>`${column} glob ${`*${word.replace(/[*?[]/g, '[$&]')}*`}`;
  const { start, conditions } = inWindow(query);
  for (const word of query.search?.words ?? []) conditions.push(holdsWord(word, query.search!, find));
  // Ids compare as JavaScript compares them: by code unit (they are ASCII), never by a locale.
  const byId = postgres ? sql`occurrence_id collate "C"` : sql`occurrence_id`;
  const { after } = query;
  if (after !== undefined) {
    const tie =
      after.tie === 'all'
        ? sql<boolean>`1 = 1`
        : after.tie === 'none'
          ? sql<boolean>`1 = 0`
          : sql<boolean>`${byId} > ${after.tie.occurrenceId}`;
    conditions.push(
      sql`(${start} > ${numberParameter(after.startMs)} or (${start} = ${numberParameter(after.startMs)} and ${tie}))`,
    );
  }
  const limit = query.first === undefined ? sql`` : sql`limit ${query.first}`;
  // Only the places (from the index alone), counted only for a search (a count over the sorted
  // rows costs more than the sort the limit keeps short): the read chooses its page among every
  // calendar's places, and reads only those rows whole.
  const places = (where: RawBuilder<boolean>[], placedStart: RawBuilder<number>, counted: boolean) =>
    readOffLoop(
      db,
      reused(
        sql<{
          id: number | string;
          placed_start: number | string;
          floating: number;
          occurrence_id: string;
          total?: number | string;
        }>`
        select id, ${placedStart} as placed_start, floating, occurrence_id ${counted ? sql`, count(*) over () as total` : sql``}
        from copy_occurrences where ${sql.join(where, sql` and `)}
        order by placed_start, ${byId} ${limit}`,
      ).compile(db),
    );
  const asPlace = (r: {
    id: number | string;
    placed_start: number | string;
    floating: number;
    occurrence_id: string;
  }) => ({
    rowId: Number(r.id),
    startMs: Number(r.placed_start),
    floating: r.floating !== 0,
    occurrenceId: r.occurrence_id,
  });
  if (query.search !== undefined) {
    const found = await places(conditions, start, true);
    return { rows: found.map(asPlace), total: Number(found[0]?.total ?? 0) };
  }
  // A page of the window: instants come in the read index's order, so the engine stops at the
  // page's end instead of sorting the window; floating times (placed, so out of that order) apart.
  const [instants, floating] = await Promise.all([
    places([...conditions, sql`floating = 0`], sql`start_ms`, false),
    places([...conditions, sql`floating in (1, 2)`], start, false),
  ]);
  const rows = [...instants, ...floating]
    .map(asPlace)
    .sort((a, b) => a.startMs - b.startMs || compareStrings(a.occurrenceId, b.occurrenceId))
    .slice(0, query.first);
  return { rows, total: rows.length };
}

/** The rows a read chose, whole, by their ids (in chunks the engines' parameter limits allow). */
export async function copiedRows(db: Db, rowIds: readonly number[]): Promise<Map<number, CopiedRow>> {
  const held = new Map<number, CopiedRow>();
  for (let i = 0; i < rowIds.length; i += 500) {
    const rows = await readUnpackedOffLoop(
      db,
      db
        .selectFrom('copy_occurrences')
        .select(['id', 'event_id', 'data'])
        .where('id', 'in', rowIds.slice(i, i + 500))
        .compile(),
      'data',
    );
    for (const r of rows) held.set(Number(r.id), { eventId: r.event_id, occurrence: r.data });
  }
  return held;
}

/** The version of every item the copy holds (skipped ones have none). */
export async function itemVersions(db: Db, calendarId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('copy_items')
    .select(['item_key', 'version'])
    .where('calendar_id', '=', calendarId)
    .where('skipped_reason', 'is', null)
    .execute();
  return new Map(rows.map((r) => [r.item_key, r.version]));
}

/** Counts across all copies, for the metrics: how many, how many failing, the oldest sync. */
export async function copiesSummary(
  db: Db,
): Promise<{ copies: number; failing: number; oldestSyncedAt: number | null }> {
  const row = await db
    .selectFrom('calendar_copies')
    .select([
      sql<number>`count(*)`.as('copies'),
      sql<number>`count(case when failures > 0 then 1 end)`.as('failing'),
      sql<number | null>`min(synced_at)`.as('oldest'),
    ])
    .executeTakeFirstOrThrow();
  return {
    copies: Number(row.copies),
    failing: Number(row.failing),
    oldestSyncedAt: row.oldest === null ? null : Number(row.oldest),
  };
}
