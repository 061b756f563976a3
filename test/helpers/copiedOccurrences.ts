/** A calendar's copy made to hold exactly the given occurrences, written as every sync writes them. */
import type { Kysely } from 'kysely';
import type { CopyForRead } from '../../src/calendars/copies.ts';
import type { EventIds } from '../../src/domain/occurrences.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { applyBatch } from '../../src/store/copyBatches.ts';
import type { Database } from '../../src/store/schema.ts';

/** Writes the copy of `calendarId` (it must exist: a grant reconciled) in one full batch; its longest occurrence, ms. */
export async function copyHolding(
  db: Kysely<Database>,
  ids: EventIds,
  calendarId: string,
  occurrences: readonly ProviderOccurrence[],
): Promise<number> {
  await db
    .updateTable('calendar_copies')
    .set({ lease_owner: 'test', lease_until: Number.MAX_SAFE_INTEGER })
    .where('calendar_id', '=', calendarId)
    .execute();
  const keys = [...new Set(occurrences.map((o) => o.providerEventId))];
  await applyBatch(db, {
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
  const copy = await db
    .selectFrom('calendar_copies')
    .select('longest_ms')
    .where('calendar_id', '=', calendarId)
    .executeTakeFirstOrThrow();
  return Number(copy.longest_ms);
}

/** Every copy's number, by calendar: what a read's queries name its rows by. */
export async function copyKeys(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db.selectFrom('calendar_copies').select(['calendar_id', 'copy_key']).execute();
  return new Map(rows.map((row) => [row.calendar_id, Number(row.copy_key)]));
}

/** A fresh, full copy of `calendarId` (numbered `copyKey`) as a read is given it (calendars/copies.ts#forRead). */
export const freshCopy = (calendarId: string, copyKey: number, longestMs = 0): CopyForRead => ({
  calendarId,
  copyKey,
  level: 'full',
  syncedAt: 0,
  stale: false,
  failureReason: null,
  privateDetails: false,
  skipped: 0,
  longestMs,
  horizonStart: 0,
  horizonEnd: 4e12,
  version: 1,
  createdAt: 0,
});
