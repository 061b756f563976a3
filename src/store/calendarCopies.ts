/**
 * The synced copies of calendars: which calendars have one (those a live grant reaches, at the
 * highest level granted), their sync leases, the batches a sync applies, and the window reads.
 * Each batch is one transaction that also proves its sync still holds the lease, so a copy is
 * never written by two syncs at once and the position advances only with the batch it ends.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import { type DetailLevel, detailLevels } from '../domain/detailLevels.ts';
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import { foldText } from '../domain/search.ts';
import { forCopy } from '../domain/visibility.ts';
import { AppError } from '../errors.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface CopyStatus {
  calendarId: string;
  level: DetailLevel;
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
  items: number;
  skipped: number;
  version: number;
  longestMs: number;
  createdAt: number;
}

const levelRank = sql<number>`case agc.detail_level when 'full' then 3 when 'titles' then 2 else 1 end`;

/** Calendars a live grant reaches (not revoked, its person still a member), each with the highest level granted. */
function reachedCalendars(db: Db | Transaction<Database>) {
  return db
    .selectFrom('access_grant_calendars as agc')
    .innerJoin('access_grants as g', 'g.id', 'agc.grant_id')
    .innerJoin('memberships as m', (join) =>
      join.onRef('m.user_id', '=', 'g.user_id').onRef('m.workspace_id', '=', 'g.workspace_id'),
    )
    .where('g.revoked_at', 'is', null)
    .select(['agc.calendar_id as calendarId', sql<number>`max(${levelRank})`.as('rank')])
    .groupBy('agc.calendar_id');
}

const levelOfRank = (rank: number): DetailLevel => detailLevels[Math.max(0, Math.min(2, rank - 1))]!;

/**
 * Makes the set of copies follow the grants: a copy for every reached calendar (due at once),
 * its level raised or lowered to the highest granted (a full resync then), and the copies of
 * calendars no live grant reaches deleted with everything in them.
 */
export async function reconcileCopies(db: Db, now: number): Promise<{ added: number; dropped: number }> {
  return db.transaction().execute(async (trx) => {
    const reached = await reachedCalendars(trx).execute();
    const existing = new Map(
      (await trx.selectFrom('calendar_copies').select(['calendar_id', 'level']).execute()).map((r) => [
        r.calendar_id,
        r.level,
      ]),
    );
    let added = 0;
    for (const { calendarId, rank } of reached) {
      const level = levelOfRank(Number(rank));
      const held = existing.get(calendarId);
      if (held === undefined) {
        await trx
          .insertInto('calendar_copies')
          .values({
            calendar_id: calendarId,
            level,
            sync_state: null,
            generation: 0,
            horizon_start: null,
            horizon_end: null,
            synced_at: null,
            attempted_at: null,
            next_sync_at: now,
            failures: 0,
            failure_reason: null,
            lease_owner: null,
            lease_until: null,
            items: 0,
            skipped: 0,
            version: 0,
            longest_ms: 0,
            created_at: now,
          })
          .onConflict((c) => c.column('calendar_id').doNothing())
          .execute();
        added += 1;
      } else if (held !== level) {
        await trx
          .updateTable('calendar_copies')
          // Stripped to the old level, the copy cannot answer until a full sync at the new one.
          .set({ level, sync_state: null, synced_at: null, next_sync_at: now })
          .where('calendar_id', '=', calendarId)
          .execute();
      }
    }
    const dropped = await dropUnreachedCopies(trx);
    return { added, dropped };
  });
}

/** Deletes the copies no live grant reaches any more (revoked, the person left the workspace). */
export async function dropUnreachedCopies(db: Db | Transaction<Database>): Promise<number> {
  const result = await db
    .deleteFrom('calendar_copies')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('access_grant_calendars as agc')
            .innerJoin('access_grants as g', 'g.id', 'agc.grant_id')
            .innerJoin('memberships as m', (join) =>
              join.onRef('m.user_id', '=', 'g.user_id').onRef('m.workspace_id', '=', 'g.workspace_id'),
            )
            .whereRef('agc.calendar_id', '=', 'calendar_copies.calendar_id')
            .where('g.revoked_at', 'is', null)
            .select(sql`1`.as('one')),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
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
        hasState: r.sync_state !== null,
        horizonStart: numberOrNull(r.horizon_start),
        horizonEnd: numberOrNull(r.horizon_end),
        syncedAt: numberOrNull(r.synced_at),
        attemptedAt: numberOrNull(r.attempted_at),
        nextSyncAt: Number(r.next_sync_at),
        leaseUntil: numberOrNull(r.lease_until),
        failures: r.failures,
        failureReason: r.failure_reason,
        items: r.items,
        skipped: r.skipped,
        version: Number(r.version),
        longestMs: Number(r.longest_ms),
        createdAt: Number(r.created_at),
      },
    ]),
  );
}

const numberOrNull = (value: number | null) => (value === null ? null : Number(value));

/** The items each copy holds right now: a first sync's progress (`items` is counted when a sync completes). */
export async function itemsHeld(db: Db, calendarIds: readonly string[]): Promise<Map<string, number>> {
  if (calendarIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('copy_items')
    .select(['calendar_id', sql<number>`count(*)`.as('items')])
    .where('calendar_id', 'in', calendarIds)
    .groupBy('calendar_id')
    .execute();
  return new Map(rows.map((r) => [r.calendar_id, Number(r.items)]));
}

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

/**
 * Takes the lease of one calendar's copy for a sync asked for now (a read, a write, a person):
 * when no live lease holds it (a crashed instance's lease expires) or this instance's own does.
 * A round's calendar, leased by `leaseDue` and waiting for its turn, is `keptBy` its owner
 * instead: only while the lease is still its own — if it passed to another instance meanwhile,
 * that one syncs it, even when it has already finished and let go. One UPDATE each: the
 * engines' row locking makes it exclusive.
 */
export async function takeLease(
  db: Db,
  calendarId: string,
  owner: string,
  now: number,
  leaseMs: number,
  keptBy = false,
): Promise<boolean> {
  const result = await db
    .updateTable('calendar_copies')
    .set({ lease_owner: owner, lease_until: now + leaseMs, attempted_at: now })
    .where('calendar_id', '=', calendarId)
    .where((eb) =>
      keptBy
        ? eb('lease_owner', '=', owner)
        : eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', owner)]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Leases up to `limit` copies that are due. On PostgreSQL, `FOR UPDATE SKIP LOCKED` lets
 * instances pick at the same time without waiting on each other's rows; SQLite has one writer.
 */
export async function leaseDue(
  db: Db,
  engine: 'sqlite' | 'postgres',
  owner: string,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    let query = trx
      .selectFrom('calendar_copies')
      .select('calendar_id')
      .where('next_sync_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('next_sync_at')
      .limit(limit);
    if (engine === 'postgres') query = query.forUpdate().skipLocked();
    const ids = (await query.execute()).map((r) => r.calendar_id);
    if (ids.length > 0)
      await trx
        .updateTable('calendar_copies')
        .set({ lease_owner: owner, lease_until: now + leaseMs, attempted_at: now })
        .where('calendar_id', 'in', ids)
        .execute();
    return ids;
  });
}

export class LeaseLost extends AppError {
  constructor() {
    super('provider_unavailable', 'Another instance took over this calendar’s sync.', {
      details: { reason: 'lease_lost' },
    });
  }
}

export interface AppliedBatch {
  calendarId: string;
  owner: string;
  now: number;
  leaseMs: number;
  full: boolean;
  upserts: { key: string; version: string; occurrences: ProviderOccurrence[] }[];
  removals: string[];
  skipped: { key: string; reason: string }[];
  /** The generation this sync's first full batch started; undefined before it. */
  runGeneration?: number;
  /** On the last batch: the position, the horizon synced, and when the next sync is due. */
  end?: { state: string; horizon: { start: number; end: number }; nextSyncAt: number };
}

/**
 * Applies one batch in one transaction: the lease is renewed (or the batch refused with
 * LeaseLost), items are replaced with their occurrences, removals deleted; the last batch saves
 * the position, and a full sync's last batch removes what it did not see. Resolves with the
 * generation the batch wrote (a full sync's first batch starts a new one).
 */
export async function applyBatch(db: Db, batch: AppliedBatch): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const renewed = await trx
      .updateTable('calendar_copies')
      .set({ lease_until: batch.now + batch.leaseMs })
      .where('calendar_id', '=', batch.calendarId)
      .where('lease_owner', '=', batch.owner)
      .returning(['level', 'generation'])
      .executeTakeFirst();
    if (renewed === undefined) throw new LeaseLost();
    const level = renewed.level as DetailLevel;
    let generation = batch.runGeneration ?? renewed.generation;
    if (batch.full && batch.runGeneration === undefined) {
      generation = renewed.generation + 1;
      await trx
        .updateTable('calendar_copies')
        .set({ generation })
        .where('calendar_id', '=', batch.calendarId)
        .execute();
    }
    const keys = [...batch.upserts.map((u) => u.key), ...batch.skipped.map((s) => s.key), ...batch.removals];
    for (let i = 0; i < keys.length; i += 500) {
      await trx
        .deleteFrom('copy_items')
        .where('calendar_id', '=', batch.calendarId)
        .where('item_key', 'in', keys.slice(i, i + 500))
        .execute();
    }
    const items = [
      ...batch.upserts.map((u) => ({ key: u.key, version: u.version, skipped: null })),
      ...batch.skipped.map((s) => ({ key: s.key, version: '', skipped: s.reason })),
    ];
    for (let i = 0; i < items.length; i += 200) {
      await trx
        .insertInto('copy_items')
        .values(
          items.slice(i, i + 200).map((item) => ({
            calendar_id: batch.calendarId,
            item_key: item.key,
            version: item.version,
            generation,
            skipped_reason: item.skipped,
          })),
        )
        .execute();
    }
    const rows = batch.upserts.flatMap((u) =>
      u.occurrences.map((o) => occurrenceRow(batch.calendarId, u.key, o, level)),
    );
    let longest = 0;
    for (const row of rows) longest = Math.max(longest, row.end_ms - row.start_ms);
    for (let i = 0; i < rows.length; i += 100) {
      await trx
        .insertInto('copy_occurrences')
        .values(rows.slice(i, i + 100))
        .execute();
    }
    const set: Record<string, unknown> = {
      version: sql`version + 1`,
      longest_ms: sql`case when longest_ms < ${longest} then ${longest} else longest_ms end`,
    };
    if (batch.end !== undefined) {
      if (batch.full) {
        await trx
          .deleteFrom('copy_items')
          .where('calendar_id', '=', batch.calendarId)
          .where('generation', '<', generation)
          .execute();
        const span = await trx
          .selectFrom('copy_occurrences')
          .select(sql<number>`coalesce(max(end_ms - start_ms), 0)`.as('longest'))
          .where('calendar_id', '=', batch.calendarId)
          .executeTakeFirstOrThrow();
        set.longest_ms = Number(span.longest);
        set.horizon_start = batch.end.horizon.start;
        set.horizon_end = batch.end.horizon.end;
      }
      const counts = await trx
        .selectFrom('copy_items')
        .select([sql<number>`count(*)`.as('items'), sql<number>`count(skipped_reason)`.as('skipped')])
        .where('calendar_id', '=', batch.calendarId)
        .executeTakeFirstOrThrow();
      Object.assign(set, {
        sync_state: batch.end.state,
        synced_at: batch.now,
        next_sync_at: batch.end.nextSyncAt,
        failures: 0,
        failure_reason: null,
        items: Number(counts.items),
        skipped: Number(counts.skipped),
        lease_owner: null,
        lease_until: null,
      });
    }
    await trx.updateTable('calendar_copies').set(set).where('calendar_id', '=', batch.calendarId).execute();
    return generation;
  });
}

export async function failuresSoFar(db: Db, calendarId: string): Promise<number> {
  const row = await db
    .selectFrom('calendar_copies')
    .select('failures')
    .where('calendar_id', '=', calendarId)
    .executeTakeFirst();
  return row?.failures ?? 0;
}

/** A failed sync: the copy stays as it was, the failure is counted and the lease released. */
export async function recordSyncFailure(
  db: Db,
  calendarId: string,
  owner: string,
  failure: { reason: string; nextSyncAt: number; forgetState: boolean },
): Promise<void> {
  await db
    .updateTable('calendar_copies')
    .set({
      failures: sql`failures + 1`,
      failure_reason: failure.reason,
      next_sync_at: failure.nextSyncAt,
      lease_owner: null,
      lease_until: null,
      ...(failure.forgetState ? { sync_state: null } : {}),
    })
    .where('calendar_id', '=', calendarId)
    .where('lease_owner', '=', owner)
    .execute();
}

/** Makes a copy due now (Sync now, a push notification). */
export async function markDue(db: Db, calendarId: string, now: number): Promise<void> {
  await db
    .updateTable('calendar_copies')
    .set({ next_sync_at: now })
    .where('calendar_id', '=', calendarId)
    .execute();
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
  return rows.map((r) => JSON.parse(r.data) as ProviderOccurrence);
}

/** A row of copy_occurrences: floating and all-day times read as UTC (within a day of their place). */
function occurrenceRow(
  calendarId: string,
  itemKey: string,
  occurrence: ProviderOccurrence,
  level: DetailLevel,
) {
  const kept = forCopy(occurrence, level);
  const start = Temporal.PlainDateTime.from(kept.start).toZonedDateTime(kept.timeZone ?? 'UTC', {
    disambiguation: 'compatible',
  });
  const end = start.add(Temporal.Duration.from(kept.duration));
  return {
    calendar_id: calendarId,
    item_key: itemKey,
    start_ms: start.epochMilliseconds,
    end_ms: end.epochMilliseconds,
    data: JSON.stringify(kept),
    title_text: foldText(kept.title ?? ''),
    body_text: foldText(
      [kept.description ?? '', ...(kept.categories ?? []), ...(kept.keywords ?? [])].join('\n'),
    ),
  };
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
