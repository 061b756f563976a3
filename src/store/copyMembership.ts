/**
 * Which calendars have a synced copy: those a live grant reaches (not revoked, its person still a
 * member), each at the highest level granted and with private events' details only when some
 * such grant may see them, and those counting toward their person's availability in a workspace
 * that shows colleagues' free/busy (busy at least); a copy neither reaches any more is deleted.
 */

import { type Kysely, sql, type Transaction } from 'kysely';
import { type DetailLevel, detailLevels, lowerDetail } from '../domain/detailLevels.ts';
import { copyKeyOf } from './calendarCopies.ts';
import { dropWords } from './copyWords.ts';
import { checkpointAfterPurge } from './database.ts';
import { type Database, flag } from './schema.ts';

type Db = Kysely<Database>;

const levelRank = sql<number>`case agc.detail_level when 'full' then 3 when 'titles' then 2 else 1 end`;

/** Calendars a live grant reaches (not revoked, its person still a member): the highest level granted, and whether any grant has private details. */
function reachedCalendars(db: Db | Transaction<Database>) {
  return db
    .selectFrom('access_grant_calendars as agc')
    .innerJoin('access_grants as g', 'g.id', 'agc.grant_id')
    .innerJoin('memberships as m', (join) =>
      join.onRef('m.user_id', '=', 'g.user_id').onRef('m.workspace_id', '=', 'g.workspace_id'),
    )
    .where('g.revoked_at', 'is', null)
    .select([
      'agc.calendar_id as calendarId',
      sql<number>`max(${levelRank})`.as('rank'),
      sql<number>`max(case when g.private_details then 1 else 0 end)`.as('privateDetails'),
    ])
    .groupBy('agc.calendar_id');
}

/**
 * Calendars counting toward a member's availability where the workspace shares it (its policy's
 * default is on) and the member has a colleague there: alone in it, no one could ask.
 */
function countedCalendars(db: Db | Transaction<Database>) {
  return db
    .selectFrom('calendars as c')
    .innerJoin('connected_accounts as a', 'a.id', 'c.account_id')
    .innerJoin('memberships as m', (join) =>
      join.onRef('m.user_id', '=', 'a.user_id').onRef('m.workspace_id', '=', 'a.workspace_id'),
    )
    .leftJoin('workspace_policies as p', 'p.workspace_id', 'a.workspace_id')
    .where(sql<boolean>`c.counts_for_availability`)
    .where(sql<boolean>`(p.colleague_availability is null or p.colleague_availability)`)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('memberships as other')
          .whereRef('other.workspace_id', '=', 'a.workspace_id')
          .whereRef('other.user_id', '<>', 'a.user_id')
          .select(sql`1`.as('one')),
      ),
    )
    .select('c.id as calendarId');
}

const levelOfRank = (rank: number): DetailLevel => detailLevels[Math.max(0, Math.min(2, rank - 1))]!;

/**
 * Makes the set of copies follow the grants: a copy for every reached calendar (due at once),
 * its level and private details raised or lowered to what the grants give (a full resync then;
 * lowered, what it held is purged at once), and the copies of calendars no live grant reaches
 * deleted with everything in them. On SQLite the log is then emptied, so no purged text stays in it.
 */
export async function reconcileCopies(
  db: Db,
  now: number,
): Promise<{ added: number; dropped: number; purged: number }> {
  const outcome = await db.transaction().execute(async (trx) => {
    const granted = await reachedCalendars(trx).execute();
    const grantedIds = new Set(granted.map((r) => r.calendarId));
    // A counted calendar no grant reaches is copied busy-only: times are all availability needs.
    const counted = (await countedCalendars(trx).execute())
      .filter((r) => !grantedIds.has(r.calendarId))
      .map((r) => ({ calendarId: r.calendarId, rank: 1, privateDetails: 0 }));
    const reached = [...granted, ...counted];
    const existing = new Map(
      (
        await trx.selectFrom('calendar_copies').select(['calendar_id', 'level', 'private_details']).execute()
      ).map((r) => [
        r.calendar_id,
        { level: r.level as DetailLevel, privateDetails: flag(r.private_details) },
      ]),
    );
    let added = 0;
    let purged = 0;
    for (const reachedCalendar of reached) {
      const { calendarId } = reachedCalendar;
      const level = levelOfRank(Number(reachedCalendar.rank));
      const privateDetails = Number(reachedCalendar.privateDetails) === 1;
      const held = existing.get(calendarId);
      if (held === undefined) {
        await trx
          .insertInto('calendar_copies')
          .values({
            calendar_id: calendarId,
            level,
            private_details: privateDetails,
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
      } else if (held.level !== level || held.privateDetails !== privateDetails) {
        const lowered =
          lowerDetail(held.level, level) !== held.level || (held.privateDetails && !privateDetails);
        // Reduced to the old grants, the copy cannot answer until a full sync at the new ones.
        await trx
          .updateTable('calendar_copies')
          .set({
            level,
            private_details: privateDetails,
            sync_state: null,
            synced_at: null,
            next_sync_at: now,
            ...(lowered
              ? { items: 0, skipped: 0, staged_items: 0, longest_ms: 0, version: sql`version + 1` }
              : {}),
          })
          .where('calendar_id', '=', calendarId)
          .execute();
        if (lowered) {
          // Nothing more than the grants now show is kept, not even until that sync.
          await trx
            .deleteFrom('copy_occurrences')
            .where('copy_key', '=', copyKeyOf(trx, calendarId))
            .execute();
          await dropWords(trx, calendarId);
          await trx.deleteFrom('copy_items').where('copy_key', '=', copyKeyOf(trx, calendarId)).execute();
          // What a running sync staged holds the old level too (that sync stops: the copy changed).
          await trx
            .deleteFrom('copy_staged_items')
            .where('copy_key', '=', copyKeyOf(trx, calendarId))
            .execute();
          purged += 1;
        }
      }
    }
    const dropped = await dropUnreachedCopies(trx);
    return { added, dropped, purged };
  });
  if (outcome.dropped + outcome.purged > 0) await checkpointAfterPurge(db);
  return outcome;
}

/** Deletes the copies no live grant reaches any more (revoked, the person left the workspace) and no availability counts. */
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
    .where(({ not, exists }) =>
      not(exists(countedCalendars(db).where(sql<boolean>`c.id = calendar_copies.calendar_id`))),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
