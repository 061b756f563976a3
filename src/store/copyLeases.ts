/**
 * Who syncs a calendar's copy, and when: leases (one sync per calendar across instances, a dead
 * instance's passed on when it expires) and the due time.
 */
import type { Kysely } from 'kysely';
import { AppError } from '../errors.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

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

/** Makes a copy due now (Sync now, a push notification). */
export async function markDue(db: Db, calendarId: string, now: number): Promise<void> {
  await db
    .updateTable('calendar_copies')
    .set({ next_sync_at: now })
    .where('calendar_id', '=', calendarId)
    .execute();
}
