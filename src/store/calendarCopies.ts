/**
 * The synced copies of calendars: each copy's state, what a sync starts from, the versions it
 * holds, and the occurrences near a window (reads' queries of the rows: store/copyReads.ts).
 */
import { type Kysely, sql } from 'kysely';
import type { DetailLevel } from '../domain/detailLevels.ts';
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import { unpackOccurrence } from './packedOccurrence.ts';
import { inList, q, reused } from './reusedStatements.ts';
import { type CalendarCopiesTable, type Database, type Flag, flag } from './schema.ts';

type Db = Kysely<Database>;

/** A copy's number, by its calendar: what its items, the rows' link to them and its word lists are keyed by. */
export const copyKeyOf = (db: Db, calendarId: string) =>
  db.selectFrom('calendar_copies').select('copy_key').where('calendar_id', '=', calendarId);

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
  /** Its number: what its rows are found by. */
  copyKey: number;
}

/** A copy's row as `copiesOf` reads it: whether it has a position, not the position itself. */
type CopyRow = Omit<CalendarCopiesTable, 'sync_state' | 'generation' | 'lease_owner' | 'staged_items'> & {
  has_state: Flag;
  staged_items: number;
};

/**
 * The copies of these calendars, as every read asks for them: one statement text for any number
 * of calendars, prepared once per connection on PostgreSQL (store/reusedStatements.ts).
 */
export async function copiesOf(db: Db, calendarIds: readonly string[]): Promise<Map<string, CopyStatus>> {
  if (calendarIds.length === 0) return new Map();
  const { rows } = await db.executeQuery(
    reused(
      db,
      q<CopyRow>`select calendar_id, level, private_details, sync_state is not null as has_state,
        horizon_start, horizon_end, synced_at, attempted_at, next_sync_at, lease_until, failures,
        failure_reason, items, staged_items, skipped, version, longest_ms, created_at, copy_key
        from calendar_copies where calendar_id ${inList(db, calendarIds, 'text')}`,
    ),
  );
  return new Map(
    rows.map((r) => [
      r.calendar_id,
      {
        calendarId: r.calendar_id,
        level: r.level as DetailLevel,
        privateDetails: flag(r.private_details),
        hasState: flag(r.has_state),
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
        copyKey: Number(r.copy_key),
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
    .where('copy_key', '=', copyKeyOf(db, calendarId))
    .where('start_ms', '>=', window.startMs - day - longestMs)
    .where('start_ms', '<', window.endMs + day)
    .execute();
  return rows.map((r) => unpackOccurrence(r.data));
}

/** The version of every item the copy holds (skipped ones have none). */
export async function itemVersions(db: Db, calendarId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('copy_items')
    .select(['item_key', 'version'])
    .where('copy_key', '=', copyKeyOf(db, calendarId))
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
