/**
 * Which calendars have a synced copy: those a live grant reaches (not revoked, its person still a
 * member), each at the highest level granted; a copy no grant reaches any more is deleted.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import { type DetailLevel, detailLevels } from '../domain/detailLevels.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

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
