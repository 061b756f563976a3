/**
 * The one read service behind the MCP read tools and `GET /v1/events`: the requested calendars
 * checked against the grant, the events of each read in parallel at the calendar's effective
 * detail level, edit and respond rights narrowed to the token's scopes, merged in one order.
 * A calendar that cannot be read is reported in `excluded`, never silently left out.
 */

import type { BusySpan } from '../../domain/availability.ts';
import { type DetailLevel, lowerDetail } from '../../domain/detailLevels.ts';
import { showInstant } from '../../domain/eventTiming.ts';
import {
  compareEvents,
  firstOrdered,
  mergeOrdered,
  type Ordered,
  type PlacedEvent,
} from '../../domain/occurrences.ts';
import type { ReadRequest } from '../../domain/readRequest.ts';
import { matchesWords } from '../../domain/search.ts';
import { AppError, type ErrorReason, isAppError } from '../../errors.ts';
import { narrowRights } from '../../policy/eventRights.ts';
import type { Principal } from '../../policy/principal.ts';
import type { CalendarDeps } from '../calendarDeps.ts';
import { permittedCalendars } from '../permittedCalendars.ts';
import { calendarView, needsTimeZone, readCalendarEvents } from './calendarEvents.ts';
import {
  type CopyCandidate,
  type CopyPart,
  completeChosen,
  readCopies,
  readCopiesBusy,
} from './copyEvents.ts';

/** Why a calendar is missing from a read, each in words for the MCP text (a closed list: OpenAPI enumerates it). */
export const exclusionMeanings = {
  provider_unavailable: 'the calendar service did not answer as expected; try again later',
  reconnect_required: 'the account must be reconnected by the user',
  time_zone_required: "the user's time zone is needed",
  incomplete: 'some of its events could not be read',
  too_large: 'the calendar is larger than this service reads',
  not_calendar_data: 'its address does not serve calendar data',
  cut_off: "the calendar's answer broke off before its end",
  too_many_redirects: 'its address redirects too many times',
  timeout: 'the calendar did not answer in time',
  gone: 'the calendar no longer exists at its address',
} as const;
export type ExclusionReason = keyof typeof exclusionMeanings;
export const exclusionReasons = Object.keys(exclusionMeanings) as ExclusionReason[];

/** A requested calendar whose events are missing (or, for `incomplete`, partly missing). */
export interface CalendarExclusion {
  calendarId: string;
  reason: ExclusionReason;
}

export interface EventsRead {
  /** Ordered by start instant, then calendar id, then occurrence id. */
  events: PlacedEvent[];
  excluded: CalendarExclusion[];
  /** How many events a search found (more than `events` holds when it asked for the first few); other reads count those returned. */
  total: number;
  /** The effective detail level of each requested calendar. */
  levels: Map<string, DetailLevel>;
  /** Calendars answered from a copy older than the freshness allows (its sync failed just now). */
  stale: StaleCopy[];
  /** With the `busy` filter: the copies' busy time (their events are not made; live calendars' are in `events`). */
  busy: BusySpan[];
}

export interface StaleCopy {
  calendarId: string;
  /** When the copy was last synced, as an ISO instant. */
  syncedAt: string;
  /** Why it is not fresher: its last sync's failure, or `timeout` while a sync is still under way. */
  reason: ExclusionReason;
}

/** A copy's recorded failure as an exclusion reason; none recorded → its sync did not end in time. */
function staleReason(failureReason: string | null): ExclusionReason {
  if (failureReason === null) return 'timeout';
  return Object.hasOwn(exclusionMeanings, failureReason)
    ? (failureReason as ExclusionReason)
    : 'provider_unavailable';
}

/** Reasons the adapters give (`details.reason`) that are passed on as they are. */
const providerReasons = new Set<ErrorReason>([
  'too_large',
  'not_calendar_data',
  'cut_off',
  'too_many_redirects',
  'timeout',
]);

/** The exclusion a provider's failure means; undefined for a failure that is not the provider's answer. */
export function exclusionReason(error: unknown): ExclusionReason | undefined {
  if (!isAppError(error)) return undefined;
  const reason = error.details?.reason;
  if (reason !== undefined && providerReasons.has(reason)) return reason as ExclusionReason;
  switch (error.code) {
    case 'reconnect_required':
    case 'time_zone_required':
    case 'provider_unavailable':
      return error.code;
    case 'not_found':
      return 'gone';
    default:
      return undefined;
  }
}

/** Rejects with a `timeout` once `ms` have passed; the calendars read by then are answered. */
function requestDeadline(ms: number): { passed: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const passed = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new AppError('provider_unavailable', 'The calendar did not answer in time for this read.', {
            details: { reason: 'timeout' },
          }),
        ),
      ms,
    );
  });
  passed.catch(() => {}); // a read that finished in time never looks at it
  return { passed, clear: () => clearTimeout(timer) };
}

export interface ReadFilter {
  /** Only events whose visible text holds every (folded) word: applied per calendar, before the merge. */
  words?: readonly string[];
  /** Only the first this many events are wanted (`total` still counts them all). */
  first?: number;
  /** Only events after this place in the one order (a page cursor's). */
  after?: Ordered;
  /** Aborted when the client has gone: the read stops before its next calendar. */
  signal?: AbortSignal;
  /** Only busy time is wanted (availability): a copy answers with times alone, in `busy`. */
  busy?: { tentativeIsBusy: boolean };
}

/** One calendar's part of a read: its events in the one order (a copy's not yet made), and how many it found. */
interface CalendarPart {
  events: (PlacedEvent | CopyCandidate)[];
  total: number;
}

const noEvents: CalendarPart = { events: [], total: 0 };

/** Lets the loop serve others (and hear of a closed request) between slices of a long list. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Index of the first event of an ordered list that comes after `place`. */
function firstAfter(list: readonly PlacedEvent[], place: Ordered): number {
  let [lo, hi] = [0, list.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEvents(list[mid]!, place) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export async function readEvents(
  deps: CalendarDeps,
  principal: Principal,
  request: ReadRequest,
  filter: ReadFilter = {},
): Promise<EventsRead> {
  // The copies of the granted calendars are looked up beside the check of the calendars: one
  // round trip fewer on PostgreSQL. A refused read never looks at them.
  const granted = new Set(principal.calendars.map((c) => c.calendarId));
  const copiesRead = deps.copies?.forRead(
    [...new Set(request.calendarIds)].filter((id) => granted.has(id)),
    request.window,
  );
  copiesRead?.catch(() => {});
  const chosen = await permittedCalendars(deps.db, principal, request.calendarIds);
  // Decided for every calendar before any provider call: no zone is ever guessed.
  const zoneless = chosen.filter((t) => needsTimeZone(t.account, t.calendar, request.timeZone));
  if (zoneless.length > 0) {
    throw new AppError(
      'time_zone_required',
      `${zoneless.map((t) => `"${t.calendar.name}"`).join(', ')} ${zoneless.length === 1 ? 'has' : 'have'} no known time zone: give the user's IANA time zone.`,
      { details: { calendarIds: zoneless.map((t) => t.calendar.id) } },
    );
  }
  const excluded: CalendarExclusion[] = [];
  const stale: StaleCopy[] = [];
  const deadline = requestDeadline(deps.readDeadlineMs);
  const copies = copiesRead === undefined ? new Map() : await copiesRead;
  const fail = (calendarId: string, error: unknown): CalendarPart => {
    const reason = exclusionReason(error);
    if (reason === undefined) deps.onUnexpectedError?.(error);
    else deps.onCalendarExcluded?.({ calendarId, reason, code: (error as AppError).code });
    excluded.push({ calendarId, reason: reason ?? 'provider_unavailable' });
    return noEvents;
  };
  const { words, after, signal } = filter;
  const options = (level: DetailLevel) => ({
    window: request.window,
    detailLevel: level,
    privateDetails: principal.privateDetails,
    ...(request.timeZone === undefined ? {} : { timeZone: request.timeZone }),
  });
  // A copy holding less than this grant may see cannot answer it (a resync is on its way): live.
  const fromCopy = chosen.filter(({ calendar, level }) => {
    const copy = copies.get(calendar.id);
    return (
      copy !== undefined &&
      lowerDetail(copy.level, level) === level &&
      (copy.privateDetails || !principal.privateDetails)
    );
  });
  const live = chosen.filter((t) => !fromCopy.includes(t));
  // Live calendars are read in parallel, each waited for no longer than the read's deadline.
  const liveParts = live.map(async ({ calendar, account, level }): Promise<CalendarPart> => {
    try {
      const reading = readCalendarEvents(deps, account, calendar, options(level));
      const read = await Promise.race([reading, deadline.passed]);
      if (read.skipped.length > 0) excluded.push({ calendarId: calendar.id, reason: 'incomplete' });
      const matching =
        words === undefined ? read.events : read.events.filter((placed) => matchesWords(placed.event, words));
      const kept = after === undefined ? matching : matching.slice(firstAfter(matching, after));
      for (const placed of kept) placed.event = narrowRights(placed.event, principal.scopes);
      return { events: kept, total: kept.length };
    } catch (error) {
      return fail(calendar.id, error);
    }
  });
  const fromCopies: CopyPart[] = fromCopy.map(({ calendar, level }) => {
    const copy = copies.get(calendar.id)!;
    if (copy.stale)
      stale.push({
        calendarId: calendar.id,
        syncedAt: showInstant(Temporal.Instant.fromEpochMilliseconds(copy.syncedAt), undefined),
        reason: staleReason(copy.failureReason),
      });
    if (copy.skipped > 0) excluded.push({ calendarId: calendar.id, reason: 'incomplete' });
    return { view: calendarView(calendar, options(level)), copy };
  });
  const busy: BusySpan[] = [];
  // Live calendars first (each within the deadline), then the local part in one slot: the
  // copies read, the page chosen and made. A slot is never held while a provider is waited for;
  // a client gone while its read waits for one leaves the line, and stops it between steps.
  const liveRead = await Promise.all(liveParts);
  deadline.clear();
  const { parts, events } = await deps.readSlots.run(async () => {
    const copyParts: CalendarPart[] = [];
    if (filter.busy !== undefined && fromCopies.length > 0) {
      // Every copy's busy time in one query, times only.
      try {
        const read = await readCopiesBusy(deps, fromCopies, request.window, filter.busy.tentativeIsBusy);
        for (const { calendarId, error } of read.refused) fail(calendarId, error);
        busy.push(...read.busy);
      } catch (error) {
        for (const { view } of fromCopies) fail(view.calendarId, error);
      }
    } else if (filter.busy === undefined && fromCopies.length > 0) {
      // Every copy's places in one query: the page is chosen and counted by the database.
      try {
        const { candidates, total, refused } = await readCopies(deps, fromCopies, request.window, {
          scopes: principal.scopes,
          ...(words === undefined ? {} : { words }),
          ...(filter.first === undefined ? {} : { first: filter.first }),
          ...(after === undefined ? {} : { after }),
        });
        for (const { calendarId, error } of refused) fail(calendarId, error);
        copyParts.push({ events: candidates, total });
      } catch (error) {
        for (const { view } of fromCopies) fail(view.calendarId, error);
      }
    }
    const parts = [...copyParts, ...liveRead];
    signal?.throwIfAborted();
    // Each calendar's events come in the one order; merging them keeps it. Only those returned are made.
    const lists = parts.map((part) => part.events);
    const chosenEvents = filter.first === undefined ? mergeOrdered(lists) : firstOrdered(lists, filter.first);
    // Made a slice at a time, the loop free between slices: a long list never holds it for long.
    const events = await completeChosen(deps, chosenEvents, async () => {
      await yieldToLoop();
      signal?.throwIfAborted();
    });
    return { parts, events };
  }, signal);
  const total = parts.reduce((sum, part) => sum + part.total, 0);
  excluded.sort(
    (a, b) => request.calendarIds.indexOf(a.calendarId) - request.calendarIds.indexOf(b.calendarId),
  );
  stale.sort((a, b) => request.calendarIds.indexOf(a.calendarId) - request.calendarIds.indexOf(b.calendarId));
  return {
    events,
    total,
    excluded,
    levels: new Map(chosen.map((t) => [t.calendar.id, t.level])),
    stale,
    busy,
  };
}
