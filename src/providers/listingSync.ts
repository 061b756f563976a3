/**
 * Sync by comparison, for a provider with no change log of its own: the horizon's occurrences
 * grouped into items (one per provider event), each versioned by a hash of what it holds, and
 * compared with the copy's versions, so only what changed is written. ICS feeds sync this way
 * (after a conditional GET), and so does any adapter without a `sync` (one listing each time).
 */
import type { ProviderOccurrence, SkippedItem } from '../domain/providerFacts.ts';
import type { TimeWindow } from '../domain/window.ts';
import { canonicalJson } from '../lib/canonicalJson.ts';
import { contentVersion } from './contentVersion.ts';
import { nearWindow } from './nearWindow.ts';
import type { CalendarProvider, CalendarSync, SyncBatch, SyncedItem } from './port.ts';

/** Upserts, removals and skipped entries in one batch. */
const batchSize = 500;

/** The items the copy keeps: occurrences near the horizon, grouped by provider event, versioned by their content. */
export function itemsOf(occurrences: readonly ProviderOccurrence[], horizon: TimeWindow): SyncedItem[] {
  const groups = new Map<string, ProviderOccurrence[]>();
  for (const occurrence of occurrences) {
    if (!nearWindow(occurrence, horizon)) continue;
    const group = groups.get(occurrence.providerEventId);
    if (group === undefined) groups.set(occurrence.providerEventId, [occurrence]);
    else group.push(occurrence);
  }
  return [...groups].map(([key, group]) => ({
    key,
    version: contentVersion(canonicalJson(group)),
    occurrences: group,
  }));
}

/**
 * The batches that turn a copy holding `known` into `items`: the new and changed items, then the
 * keys no longer there (only when the listing was `complete`: what was not read is not known to
 * be gone), then the skipped entries, at most `batchSize` entries a batch; the position goes on
 * the last. A full sync upserts everything (the caller drops the rest).
 */
export function* diffBatches(
  items: readonly SyncedItem[],
  skipped: readonly SkippedItem[],
  known: ReadonlyMap<string, string>,
  options: { full: boolean; complete: boolean; nextState: string },
): Generator<SyncBatch> {
  const { full, nextState } = options;
  const present = new Set(items.map((item) => item.key));
  const upserts = full ? [...items] : items.filter((item) => known.get(item.key) !== item.version);
  const removals = full || !options.complete ? [] : [...known.keys()].filter((key) => !present.has(key));
  // The three lists read as one sequence: upserts, then removals, then skipped entries.
  const total = upserts.length + removals.length + skipped.length;
  const part = <T>(list: readonly T[], at: number, from: number, to: number) =>
    list.slice(Math.max(0, from - at), Math.max(0, to - at));
  let from = 0;
  do {
    const to = Math.min(from + batchSize, total);
    const batch: SyncBatch = {
      full,
      upserts: part(upserts, 0, from, to),
      removals: part(removals, upserts.length, from, to),
      skipped: part(skipped, upserts.length + removals.length, from, to),
    };
    from = to;
    yield from === total ? { ...batch, nextState } : batch;
  } while (from < total);
}

export function listingSync<K extends CalendarProvider['kind']>(
  provider: CalendarProvider<K>,
): CalendarSync<K> {
  return {
    async *syncCalendar(account, calendar, request) {
      const { occurrences, skipped } = await provider.listEvents(account, calendar, request.horizon);
      const full = request.state === undefined;
      const known = full ? new Map<string, string>() : await request.knownVersions();
      yield* diffBatches(itemsOf(occurrences, request.horizon), skipped, known, {
        full,
        complete: true,
        nextState: 'listed',
      });
    },
  };
}
