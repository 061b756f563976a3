/**
 * What a sync writes to a copy: each batch in one transaction that also proves the sync still
 * holds the lease, so a copy is never written by two syncs at once and the position advances
 * only with the batch it ends; a failure is counted and the copy left as it was.
 */
import { type Kysely, sql } from 'kysely';
import type { DetailLevel } from '../domain/detailLevels.ts';
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import { foldText } from '../domain/search.ts';
import { forCopy } from '../domain/visibility.ts';
import { LeaseLost } from './copyLeases.ts';
import { type Database, flag } from './schema.ts';

type Db = Kysely<Database>;

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
      .returning(['level', 'private_details', 'generation'])
      .executeTakeFirst();
    if (renewed === undefined) throw new LeaseLost();
    const copied = { level: renewed.level as DetailLevel, privateDetails: flag(renewed.private_details) };
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
    // The counts move by what the batch replaced, so a sync of one change reads no other item.
    const replaced = { items: 0, skipped: 0 };
    for (let i = 0; i < keys.length; i += 500) {
      const gone = await trx
        .deleteFrom('copy_items')
        .where('calendar_id', '=', batch.calendarId)
        .where('item_key', 'in', keys.slice(i, i + 500))
        .returning('skipped_reason')
        .execute();
      replaced.items += gone.length;
      replaced.skipped += gone.filter((row) => row.skipped_reason !== null).length;
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
      u.occurrences.map((o) => occurrenceRow(batch.calendarId, u.key, o, copied)),
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
      items: sql`items + ${items.length - replaced.items}`,
      skipped: sql`skipped + ${batch.skipped.length - replaced.skipped}`,
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
        // A full sync has just removed what it did not see: counted anew, as it read every item anyway.
        const counts = await trx
          .selectFrom('copy_items')
          .select([sql<number>`count(*)`.as('items'), sql<number>`count(skipped_reason)`.as('skipped')])
          .where('calendar_id', '=', batch.calendarId)
          .executeTakeFirstOrThrow();
        set.items = Number(counts.items);
        set.skipped = Number(counts.skipped);
      }
      Object.assign(set, {
        sync_state: batch.end.state,
        synced_at: batch.now,
        next_sync_at: batch.end.nextSyncAt,
        failures: 0,
        failure_reason: null,
        lease_owner: null,
        lease_until: null,
      });
    }
    await trx.updateTable('calendar_copies').set(set).where('calendar_id', '=', batch.calendarId).execute();
    return generation;
  });
}

/** A row of copy_occurrences: floating and all-day times read as UTC (within a day of their place). */
function occurrenceRow(
  calendarId: string,
  itemKey: string,
  occurrence: ProviderOccurrence,
  copied: { level: DetailLevel; privateDetails: boolean },
) {
  const kept = forCopy(occurrence, copied);
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
