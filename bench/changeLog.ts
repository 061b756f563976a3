/**
 * The benchmark's provider with a change log of its own, as Google's sync tokens give one: a sync
 * from a position reads only the events replaced since (the in-memory provider replaces an
 * occurrence object on every write), so the refresh after a write costs what the write changed,
 * as it does with the real adapters — not a listing of the calendar hashed whole.
 */
import { randomUUID } from 'node:crypto';
import type { ProviderOccurrence } from '../src/domain/providerFacts.ts';
import { diffBatches, itemsOf } from '../src/providers/listingSync.ts';
import type { CalendarProvider } from '../src/providers/port.ts';
import type { MemoryCalendar } from '../test/helpers/memoryCalendars.ts';

type Snapshot = Map<string, readonly ProviderOccurrence[]>;

const byEvent = (occurrences: readonly ProviderOccurrence[]): Snapshot => {
  const held = new Map<string, ProviderOccurrence[]>();
  for (const o of occurrences) {
    const list = held.get(o.providerEventId);
    if (list === undefined) held.set(o.providerEventId, [o]);
    else list.push(o);
  }
  return held;
};

const sameObjects = (a: readonly ProviderOccurrence[], b: readonly ProviderOccurrence[] | undefined) =>
  b !== undefined && a.length === b.length && a.every((o, i) => o === b[i]);

/** The events changed from `before` to `now`, with their occurrences now (none: removed). */
function changedSince(before: Snapshot, now: readonly ProviderOccurrence[]): Snapshot {
  const held = byEvent(now);
  const changed: Snapshot = new Map([...held].filter(([key, list]) => !sameObjects(list, before.get(key))));
  for (const key of before.keys()) if (!held.has(key)) changed.set(key, []);
  return changed;
}

/**
 * The same, from the list as it was: the memory provider replaces, appends and removes objects,
 * so an event whose objects all hold their places is unchanged, and every other one has an object
 * out of place on one side or the other. Cheap, as a provider's change log is: the calendar is
 * compared by reference, not grouped anew on every sync.
 */
function changedFrom(before: readonly ProviderOccurrence[], now: readonly ProviderOccurrence[]): Snapshot {
  const keys = new Set<string>();
  for (let i = 0; i < Math.max(before.length, now.length); i++) {
    if (before[i] === now[i]) continue;
    if (before[i] !== undefined) keys.add(before[i]!.providerEventId);
    if (now[i] !== undefined) keys.add(now[i]!.providerEventId);
  }
  const changed = new Map<string, ProviderOccurrence[]>([...keys].map((key) => [key, []]));
  if (keys.size > 0) for (const o of now) changed.get(o.providerEventId)?.push(o);
  return changed;
}

export function withChangeLog<K extends 'caldav' | 'google'>(
  provider: CalendarProvider<K>,
  calendars: ReadonlyMap<string, MemoryCalendar>,
): CalendarProvider<K> {
  // The last position given for each calendar is what it held then: a copy syncs from its last.
  // An older one, or one given by another process (the bench's memory row reads the same database
  // from a process of its own), is at least as old as the seed these calendars start as: what
  // changed is what changed since then (the copy finds the rest unchanged). Only the last is kept:
  // a snapshot per write would be what the bench measures.
  const positions = new Map<string, { state: string; occurrences: readonly ProviderOccurrence[] }>();
  const initial = new Map([...calendars].map(([id, calendar]) => [id, byEvent(calendar.occurrences)]));
  const issuer = randomUUID();
  let issued = 0;
  return {
    ...provider,
    sync: {
      async *syncCalendar(_account, calendar, request) {
        const found = calendars.get(calendar.providerCalendarId);
        if (found === undefined) throw new Error(`no memory calendar ${calendar.providerCalendarId}`);
        const nextState = `${issuer}-${++issued}`;
        const last = positions.get(calendar.providerCalendarId);
        // A copy of the list: the provider appends to it in place.
        positions.set(calendar.providerCalendarId, { state: nextState, occurrences: [...found.occurrences] });
        if (request.state === undefined) {
          yield* diffBatches(itemsOf(found.occurrences, request.horizon), found.skipped ?? [], new Map(), {
            full: true,
            complete: true,
            nextState,
          });
          return;
        }
        const changed =
          last?.state === request.state
            ? changedFrom(last.occurrences, found.occurrences)
            : changedSince(initial.get(calendar.providerCalendarId)!, found.occurrences);
        const upserts = itemsOf([...changed.values()].flat(), request.horizon);
        const kept = new Set(upserts.map((item) => item.key));
        // Removed, or changed to lie wholly outside the horizon: the copy no longer holds it.
        const removals = [...changed.keys()].filter((key) => !kept.has(key));
        yield { full: false, upserts, removals, skipped: [], nextState };
      },
    },
  };
}
