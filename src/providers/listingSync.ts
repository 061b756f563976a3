/**
 * Sync for an adapter without an incremental mechanism of its own: one listing of the horizon,
 * grouped into items (one per provider event), each versioned by a hash of what it holds and
 * compared with the copy's versions, so only what changed is written.
 */
import { createHash } from 'node:crypto';
import type { ProviderOccurrence, SkippedItem } from '../domain/providerFacts.ts';
import type { CalendarProvider, CalendarSync, SyncBatch, SyncedItem } from './port.ts';

const batchSize = 500;

/** Occurrences grouped by provider event, each group versioned by the hash of its content. */
export function itemsOf(occurrences: readonly ProviderOccurrence[]): SyncedItem[] {
  const groups = new Map<string, ProviderOccurrence[]>();
  for (const occurrence of occurrences) {
    const group = groups.get(occurrence.providerEventId);
    if (group === undefined) groups.set(occurrence.providerEventId, [occurrence]);
    else group.push(occurrence);
  }
  return [...groups].map(([key, group]) => ({
    key,
    version: createHash('sha256').update(JSON.stringify(group)).digest('base64url'),
    occurrences: group,
  }));
}

/**
 * The batches that turn a copy holding `known` into `items`: the new and changed items, the
 * keys no longer there; the position on the last batch. A full sync upserts everything.
 */
export function* diffBatches(
  items: readonly SyncedItem[],
  skipped: readonly SkippedItem[],
  known: ReadonlyMap<string, string>,
  options: { full: boolean; nextState: string },
): Generator<SyncBatch> {
  const upserts = options.full ? items : items.filter((item) => known.get(item.key) !== item.version);
  const present = new Set(items.map((item) => item.key));
  const removals = options.full ? [] : [...known.keys()].filter((key) => !present.has(key));
  for (let i = 0; i + batchSize < upserts.length; i += batchSize)
    yield { full: options.full, upserts: upserts.slice(i, i + batchSize), removals: [], skipped: [] };
  const rest = upserts.length === 0 ? 0 : Math.floor((upserts.length - 1) / batchSize) * batchSize;
  yield {
    full: options.full,
    upserts: upserts.slice(rest),
    removals,
    skipped: [...skipped],
    nextState: options.nextState,
  };
}

export function listingSync<K extends CalendarProvider['kind']>(
  provider: CalendarProvider<K>,
): CalendarSync<K> {
  return {
    async *syncCalendar(account, calendar, request) {
      const { occurrences, skipped } = await provider.listEvents(account, calendar, request.horizon);
      const full = request.state === undefined;
      const known = full ? new Map<string, string>() : await request.knownVersions();
      yield* diffBatches(itemsOf(occurrences), skipped, known, { full, nextState: 'listed' });
    },
  };
}
