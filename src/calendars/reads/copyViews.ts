/**
 * A calendar's copy as one kind of reader sees it, kept in memory: every occurrence of the
 * horizon placed, masked, given ids and rights once, in the one order — so a read of a window
 * is a binary search and a slice, not thousands of placements. A view is used only while the
 * copy's version (bumped by every applied batch, on any instance) is the one it was built from;
 * the views together hold a bounded number of events, the least recently used dropped first.
 */
import type { DetailLevel } from '../../domain/detailLevels.ts';
import {
  compareEvents,
  type EventIds,
  overlapsNs,
  type PlacedEvent,
  toEvents,
} from '../../domain/occurrences.ts';
import { holdsWords, searchableText } from '../../domain/search.ts';
import {
  mayHold,
  type TrigramSignatures,
  trigramMask,
  trigramSignatures,
} from '../../domain/trigramSignatures.ts';
import { narrowRights } from '../../policy/eventRights.ts';
import type { Scope } from '../../policy/workspacePolicy.ts';
import { occurrencesNear } from '../../store/calendarCopies.ts';
import type { CalendarRecord } from '../../store/connectedAccounts.ts';
import type { AccountDeps } from '../accounts/connectedAccounts.ts';
import type { CopyForRead } from '../copies.ts';
import { calendarView, type ReadOptions } from './calendarEvents.ts';

interface View {
  version: number;
  /** In the order of compareEvents. */
  events: PlacedEvent[];
  /** The longest event, in ns: how far before a window an overlapping one may start. */
  longestNs: bigint;
  /** The events' folded searchable texts and their trigram signatures, made at the first search of the view. */
  search?: { texts: string[]; signatures: TrigramSignatures };
}

export interface CopyViews {
  /** The events of the calendar's copy in the window, rights narrowed to `scopes`, in order. */
  read(
    deps: AccountDeps & { ids: EventIds },
    calendar: CalendarRecord,
    copy: CopyForRead,
    options: ReadOptions & { scopes: readonly Scope[]; words?: readonly string[] },
  ): Promise<PlacedEvent[]>;
}

const wholeCopy = (copy: CopyForRead) => ({
  start: Temporal.Instant.fromEpochMilliseconds(copy.horizonStart),
  end: Temporal.Instant.fromEpochMilliseconds(copy.horizonEnd),
});

/** First index whose start is at or after `ns`. */
function firstFrom(events: readonly PlacedEvent[], ns: bigint): number {
  let [lo, hi] = [0, events.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid]!.startNs < ns) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The events from `lo` up to `hi` that overlap the window and whose texts hold every word. A
 * function of its own so that the engine optimizes this loop: inside the read, it allocated
 * about a hundred bytes per text tested.
 */
function matching(
  events: readonly PlacedEvent[],
  search: NonNullable<View['search']>,
  range: { lo: number; hi: number; inside: number; start: bigint; end: bigint },
  words: readonly string[],
): PlacedEvent[] {
  const { texts, signatures } = search;
  const mask = trigramMask(words);
  const found: PlacedEvent[] = [];
  for (let i = range.lo; i < range.hi; i++) {
    if (!mayHold(signatures, i, mask) || !holdsWords(texts[i]!, words)) continue;
    const placed = events[i]!;
    if (i >= range.inside || overlapsNs(placed.startNs, placed.endNs, range.start, range.end))
      found.push(placed);
  }
  return found;
}

export function createCopyViews(maxEvents = 50_000): CopyViews {
  const views = new Map<string, View>();
  let held = 0;

  function remember(key: string, view: View): void {
    const old = views.get(key);
    if (old !== undefined) held -= old.events.length;
    views.delete(key);
    views.set(key, view);
    held += view.events.length;
    for (const [oldest, dropped] of views) {
      if (held <= maxEvents || oldest === key) break;
      views.delete(oldest);
      held -= dropped.events.length;
    }
  }

  return {
    async read(deps, calendar, copy, options) {
      const view = calendarView(calendar, options);
      const level: DetailLevel = view.detailLevel;
      const canWrite = options.scopes.includes('calendar:write');
      const canRsvp = options.scopes.includes('calendar:rsvp');
      // Everything the events' content, placement and rights depend on, besides the copy itself.
      const key = [
        calendar.id,
        view.access,
        level,
        view.privateDetails,
        view.placementZone ?? '',
        canWrite,
        canRsvp,
      ].join('\u0000');
      let cached = views.get(key);
      if (cached === undefined || cached.version !== copy.version) {
        const horizon = wholeCopy(copy);
        const occurrences = await occurrencesNear(
          deps.db,
          calendar.id,
          { startMs: copy.horizonStart, endMs: copy.horizonEnd },
          copy.longestMs,
        );
        const events = toEvents(occurrences, view, deps.ids, horizon);
        let longestNs = 0n;
        for (const placed of events) {
          placed.event = narrowRights(placed.event, options.scopes);
          if (placed.endNs - placed.startNs > longestNs) longestNs = placed.endNs - placed.startNs;
        }
        cached = { version: copy.version, events: events.sort(compareEvents), longestNs };
        remember(key, cached);
      } else {
        remember(key, cached); // most recently used
      }
      const start = options.window.start.epochNanoseconds;
      const end = options.window.end.epochNanoseconds;
      const { events } = cached;
      const lo = firstFrom(events, start - cached.longestNs);
      // From `inside` on, events start in the window, so they overlap it; only those before need the test.
      const inside = firstFrom(events, start);
      const hi = firstFrom(events, end);
      const words = options.words;
      if (words === undefined || words.length === 0) {
        const found = events.slice(lo, hi);
        // Those before `inside` started before the window: kept when they reach into it.
        return found.filter(
          (placed, k) => lo + k >= inside || overlapsNs(placed.startNs, placed.endNs, start, end),
        );
      }
      if (cached.search === undefined) {
        const texts = events.map((placed) => searchableText(placed.event));
        cached.search = { texts, signatures: trigramSignatures(texts) };
      }
      return matching(events, cached.search, { lo, hi, inside, start, end }, words);
    },
  };
}
