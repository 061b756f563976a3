/**
 * Who syncs a calendar's copy, and when: leases (one sync per calendar across instances, a dead
 * instance's passed on when it expires, or at once when the instance has fallen silent), the
 * instances' heartbeats, and the due time.
 */
import type { ExpressionBuilder, Kysely } from 'kysely';
import { AppError } from '../errors.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** How often a running instance says it is alive; one silent for `silentMs` is taken for gone. */
export const heartbeatMs = 2_000;
export const silentMs = 10_000;

/** This instance is alive at `now`; instances silent for a day are forgotten. */
export async function heartbeat(db: Db, owner: string, now: number): Promise<void> {
  await db
    .insertInto('sync_instances')
    .values({ owner, seen_at: now })
    .onConflict((c) => c.column('owner').doUpdateSet({ seen_at: now }))
    .execute();
  await db
    .deleteFrom('sync_instances')
    .where('seen_at', '<', now - 86_400_000)
    .execute();
}

/** An instance stopping: its leases are back to running out on their own (it holds none by then). */
export async function forgetInstance(db: Db, owner: string): Promise<void> {
  await db.deleteFrom('sync_instances').where('owner', '=', owner).execute();
}

/** A lease nobody holds: none, run out, or held by an instance silent for `silentMs` (crashed, killed). */
function leaseFree(eb: ExpressionBuilder<Database, 'calendar_copies'>, now: number) {
  return eb.or([
    eb('lease_until', 'is', null),
    eb('lease_until', '<', now),
    eb.exists(
      eb
        .selectFrom('sync_instances')
        .select('sync_instances.owner')
        .whereRef('sync_instances.owner', '=', 'calendar_copies.lease_owner')
        .where('sync_instances.seen_at', '<', now - silentMs),
    ),
  ]);
}

/** What a sync starts from, as the lease taken found the copy: its position and horizon's end. */
export interface LeasedCopy {
  state: string | null;
  horizonEnd: number | null;
}

/**
 * Takes the lease of one calendar's copy for a sync asked for now (a read, a write, a person):
 * when no live lease holds it (a crashed instance's lease expires, or its heartbeat stops) or
 * this instance's own does.
 * A round's calendar, leased by `leaseDue` and waiting for its turn, is `keptBy` its owner
 * instead: only while the lease is still its own — if it passed to another instance meanwhile,
 * that one syncs it, even when it has already finished and let go. One UPDATE each, returning
 * what the sync starts from (undefined: not taken): the engines' row locking makes it exclusive.
 */
export async function takeLease(
  db: Db,
  calendarId: string,
  owner: string,
  now: number,
  leaseMs: number,
  keptBy = false,
): Promise<LeasedCopy | undefined> {
  const row = await db
    .updateTable('calendar_copies')
    .set({ lease_owner: owner, lease_until: now + leaseMs, attempted_at: now })
    .where('calendar_id', '=', calendarId)
    .where((eb) =>
      keptBy ? eb('lease_owner', '=', owner) : eb.or([leaseFree(eb, now), eb('lease_owner', '=', owner)]),
    )
    .returning(['sync_state', 'horizon_end'])
    .executeTakeFirst();
  return (
    row && { state: row.sync_state, horizonEnd: row.horizon_end === null ? null : Number(row.horizon_end) }
  );
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
      .where((eb) => leaseFree(eb, now))
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

/** Makes a copy due now (Sync now, a push notification). */
export async function markDue(db: Db, calendarId: string, now: number): Promise<void> {
  await db
    .updateTable('calendar_copies')
    .set({ next_sync_at: now })
    .where('calendar_id', '=', calendarId)
    .execute();
}
