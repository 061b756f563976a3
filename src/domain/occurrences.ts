/**
 * From provider occurrences to the Events a client sees: placed in time (floating and all-day
 * times need a zone), kept when they overlap the window, given opaque ids, edit rights, and
 * reduced to what the calendar's detail level and the event's privacy allow. Pure.
 */

import { AppError } from '../errors.ts';
import type { DetailLevel } from './detailLevels.ts';
import { editRights } from './editRights.ts';
import type { Event } from './event.ts';
import { showInstant } from './eventTiming.ts';
import type { CalendarAccess, ProviderOccurrence } from './providerFacts.ts';
import { mask, visibleLevel } from './visibility.ts';
import type { TimeWindow } from './window.ts';

export interface CalendarView {
  calendarId: string;
  access: CalendarAccess;
  /** Effective level: the lowest of provider right, consent and workspace policy. */
  detailLevel: DetailLevel;
  /** The grant includes details of private events. */
  privateDetails: boolean;
  /** Zone for floating and all-day times: the calendar's own, else the one the user confirmed. */
  placementZone?: string;
  /** The zone the reader asked for (the request's timeZone): times are shown with its offsets. */
  shownZone?: string;
}

export interface EventIds {
  eventId(calendarId: string, providerEventId: string): string;
  occurrenceId(calendarId: string, providerEventId: string, recurrenceId: string | undefined): string;
}

export interface Span {
  start: Temporal.Instant;
  end: Temporal.Instant;
}

/** An event with its instants as epoch nanoseconds: ordering and overlap compare these cheaply. */
export interface PlacedEvent {
  /** `startNs` in whole milliseconds (truncated): a number compares faster than a bigint, and orders alike. */
  startMs: number;
  startNs: bigint;
  endNs: bigint;
  event: Event;
}

/** The start in whole milliseconds, as PlacedEvent keeps it. */
export const startMsOf = (startNs: bigint): number => Number(startNs / 1_000_000n);

interface ParsedDuration {
  duration: Temporal.Duration;
  /** Elapsed length when the duration has no calendar units (days and up), else undefined. */
  exactNs: bigint | undefined;
}

const durations = new Map<string, ParsedDuration>();
/** Durations repeat (PT1H, P1D): parsed once each. */
function parseDuration(text: string): ParsedDuration {
  let parsed = durations.get(text);
  if (parsed === undefined) {
    const duration = Temporal.Duration.from(text);
    const calendarUnits = duration.years || duration.months || duration.weeks || duration.days;
    parsed = {
      duration,
      exactNs: calendarUnits ? undefined : BigInt(duration.total('nanoseconds')),
    };
    if (durations.size < 10_000) durations.set(text, parsed);
  }
  return parsed;
}

/**
 * The occurrence's instants (epoch ns); nominal durations are added in its zone, so P1D spans a
 * DST day. `startMs`: its start already placed (a copy's row of an instant holds it).
 */
function placeNs(
  occurrence: ProviderOccurrence,
  placementZone: string | undefined,
  startMs?: number,
): { startNs: bigint; endNs: bigint } {
  const zone = occurrence.timeZone ?? placementZone;
  if (zone === undefined) {
    throw new AppError(
      'time_zone_required',
      'This calendar has floating or all-day times and no known time zone.',
    );
  }
  const start =
    startMs === undefined
      ? Temporal.PlainDateTime.from(occurrence.start).toZonedDateTime(zone, { disambiguation: 'compatible' })
      : undefined;
  const startNs = start?.epochNanoseconds ?? BigInt(startMs!) * 1_000_000n;
  const { duration, exactNs } = parseDuration(occurrence.duration);
  // Hours and smaller are elapsed time whatever the zone does; only days and up need the zone.
  if (exactNs !== undefined) return { startNs, endNs: startNs + exactNs };
  const zoned = start ?? Temporal.Instant.fromEpochNanoseconds(startNs).toZonedDateTimeISO(zone);
  return { startNs, endNs: zoned.add(duration).epochNanoseconds };
}

export function placeOccurrence(occurrence: ProviderOccurrence, placementZone: string | undefined): Span {
  const { startNs, endNs } = placeNs(occurrence, placementZone);
  return {
    start: Temporal.Instant.fromEpochNanoseconds(startNs),
    end: Temporal.Instant.fromEpochNanoseconds(endNs),
  };
}

/** Overlap of [start, end) with [windowStart, windowEnd), in epoch nanoseconds; a zero-length occurrence counts when it starts inside. */
export function overlapsNs(start: bigint, end: bigint, windowStart: bigint, windowEnd: bigint): boolean {
  if (start === end) return windowStart <= start && start < windowEnd;
  return start < windowEnd && windowStart < end;
}

export const overlaps = (span: Span, window: TimeWindow): boolean =>
  overlapsNs(
    span.start.epochNanoseconds,
    span.end.epochNanoseconds,
    window.start.epochNanoseconds,
    window.end.epochNanoseconds,
  );

/** Strings by code unit, as ids are ordered everywhere (never by a locale). */
export const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What the one order reads of an event (an event not yet made from its copied row has no more). */
export interface Ordered {
  startMs: number;
  startNs: bigint;
  event: Pick<Event, 'calendarId' | 'occurrenceId'>;
}

/** Start instant, then calendar, then occurrence: the one order of every event list. */
export const compareEvents = (a: Ordered, b: Ordered): number =>
  a.startMs !== b.startMs
    ? a.startMs - b.startMs
    : a.startNs < b.startNs
      ? -1
      : a.startNs > b.startNs
        ? 1
        : compareStrings(a.event.calendarId, b.event.calendarId) ||
          compareStrings(a.event.occurrenceId, b.event.occurrenceId);

/**
 * Lists each in the order of `compareEvents`, merged into one in that order (pairwise, n·log k
 * comparisons); a single non-empty list is returned as it is.
 */
export function mergeOrdered<T extends Ordered>(lists: readonly T[][]): T[] {
  let round = lists.filter((list) => list.length > 0);
  if (round.length === 0) return [];
  while (round.length > 1) {
    const next: T[][] = [];
    for (let i = 0; i < round.length; i += 2) {
      const [a, b] = [round[i]!, round[i + 1]];
      if (b === undefined) {
        next.push(a);
        continue;
      }
      const merged = new Array<T>(a.length + b.length);
      let [x, y, k] = [0, 0, 0];
      while (x < a.length && y < b.length) merged[k++] = compareEvents(a[x]!, b[y]!) <= 0 ? a[x++]! : b[y++]!;
      while (x < a.length) merged[k++] = a[x++]!;
      while (y < b.length) merged[k++] = b[y++]!;
      next.push(merged);
    }
    round = next;
  }
  return round[0]!;
}

/** The first `count` events of lists each in the order of `compareEvents`, in that order (count × k comparisons). */
export function firstOrdered<T extends Ordered>(lists: readonly T[][], count: number): T[] {
  const heads = lists.map(() => 0);
  const first: T[] = [];
  while (first.length < count) {
    let best = -1;
    let bestEvent: T | undefined;
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i]!;
      const head = heads[i]!;
      if (head === list.length) continue;
      const candidate = list[head]!;
      if (bestEvent === undefined || compareEvents(candidate, bestEvent) < 0) {
        best = i;
        bestEvent = candidate;
      }
    }
    if (bestEvent === undefined) break;
    first.push(bestEvent);
    heads[best]! += 1;
  }
  return first;
}

/** Sets an optional member only when it has a value (empty lists are left out, too). */
function put<K extends keyof Event>(event: Event, key: K, value: Event[K] | undefined): void {
  if (value !== undefined && !(Array.isArray(value) && value.length === 0)) event[key] = value;
}

/**
 * An Event's start as shown: an all-day event's date; else its instant with the offsets of the
 * zone the reader asked for, else of the event's own zone (a floating time: the zone placing it).
 * A floating time no zone places (only a write's answer meets one) stays the local time it is.
 */
function shownStart(occurrence: ProviderOccurrence, view: CalendarView, startNs: bigint | undefined): string {
  if (occurrence.showWithoutTime) return occurrence.start.slice(0, 10);
  const zone = view.shownZone ?? occurrence.timeZone ?? view.placementZone;
  if (zone === undefined) return occurrence.start;
  const ns = startNs ?? placeNs(occurrence, view.placementZone).startNs;
  return showInstant(Temporal.Instant.fromEpochNanoseconds(ns), zone);
}

// Built member by member in the specification's order: one object per event, no spreads,
// since a read may place tens of thousands of occurrences.
function fullEvent(
  occurrence: ProviderOccurrence,
  view: CalendarView,
  sealed: SealedIds,
  masked: boolean,
  start: string,
): Event {
  const o = occurrence;
  const rights = editRights({ access: view.access, masked, status: o.status, facts: o.facts });
  const event = {
    eventId: sealed.eventId,
    calendarId: view.calendarId,
    occurrenceId: sealed.occurrenceId,
    title: o.title ?? '',
  } as Event;
  put(event, 'description', o.description);
  put(event, 'locations', o.locations);
  put(event, 'virtualLocations', o.virtualLocations);
  put(event, 'links', o.links);
  put(event, 'categories', o.categories);
  put(event, 'keywords', o.keywords);
  put(event, 'color', o.color);
  event.start = start;
  put(event, 'timeZone', o.timeZone);
  event.duration = o.duration;
  event.showWithoutTime = o.showWithoutTime;
  event.status = o.status;
  event.freeBusyStatus = o.freeBusyStatus;
  event.canRespond = rights.canRespond;
  event.canEdit = rights.canEdit;
  put(event, 'editBlockedReason', rights.editBlockedReason);
  put(event, 'responseStatus', o.responseStatus);
  put(event, 'privacy', o.privacy);
  put(event, 'alerts', o.alerts);
  put(event, 'workingLocation', o.workingLocation);
  return event;
}

/** An occurrence's sealed ids for one calendar (computed when it is copied, or as it is read live). */
export interface SealedIds {
  eventId: string;
  occurrenceId: string;
}

/**
 * `ids` for the occurrences of one item, in a row: the occurrences of a series share one event
 * id, sealed once (the last one is kept, nothing more).
 */
export function itemIds(ids: EventIds): EventIds {
  let last: { calendarId: string; providerEventId: string; eventId: string } | undefined;
  return {
    eventId(calendarId, providerEventId) {
      if (last?.calendarId !== calendarId || last.providerEventId !== providerEventId)
        last = { calendarId, providerEventId, eventId: ids.eventId(calendarId, providerEventId) };
      return last.eventId;
    },
    occurrenceId: (calendarId, providerEventId, recurrenceId) =>
      ids.occurrenceId(calendarId, providerEventId, recurrenceId),
  };
}

export const sealedIds = (calendarId: string, occurrence: ProviderOccurrence, ids: EventIds): SealedIds => ({
  eventId: ids.eventId(calendarId, occurrence.providerEventId),
  occurrenceId: ids.occurrenceId(calendarId, occurrence.providerEventId, occurrence.recurrenceId),
});

/**
 * One occurrence placed and made into the Event the client may see, its ids already sealed.
 * `startMs`: its start as already placed (a copy's row of an instant holds it), so its local
 * time is not placed again.
 */
export function placedEvent(
  occurrence: ProviderOccurrence,
  view: CalendarView,
  sealed: SealedIds,
  startMs?: number,
): PlacedEvent {
  const { startNs, endNs } = placeNs(occurrence, view.placementZone, startMs);
  return {
    startMs: startMsOf(startNs),
    startNs,
    endNs,
    event: visibleEvent(occurrence, view, sealed, startNs),
  };
}

/** Occurrences of one calendar → the Events in the window, in the order of `compareEvents`. */
export function toEvents(
  occurrences: readonly ProviderOccurrence[],
  view: CalendarView,
  ids: EventIds,
  window: TimeWindow,
): PlacedEvent[] {
  const windowStart = window.start.epochNanoseconds;
  const windowEnd = window.end.epochNanoseconds;
  const placed: PlacedEvent[] = [];
  for (const occurrence of occurrences) {
    const { startNs, endNs } = placeNs(occurrence, view.placementZone);
    if (!overlapsNs(startNs, endNs, windowStart, windowEnd)) continue;
    const event = visibleEvent(occurrence, view, sealedIds(view.calendarId, occurrence, ids), startNs);
    placed.push({ startMs: startMsOf(startNs), startNs, endNs, event });
  }
  return placed.sort(compareEvents);
}

/** One occurrence as the client may see it (a write's answer: the event as it now is). */
export const toEvent = (occurrence: ProviderOccurrence, view: CalendarView, ids: EventIds): Event =>
  visibleEvent(occurrence, view, sealedIds(view.calendarId, occurrence, ids), undefined);

function visibleEvent(
  occurrence: ProviderOccurrence,
  view: CalendarView,
  sealed: SealedIds,
  startNs: bigint | undefined,
): Event {
  const level = visibleLevel(view.detailLevel, occurrence.privacy, view.privateDetails);
  const start = shownStart(occurrence, view, startNs);
  return mask(fullEvent(occurrence, view, sealed, level === 'busy', start), level);
}
