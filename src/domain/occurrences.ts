/**
 * From provider occurrences to the Events a client sees: placed in time (floating and all-day
 * times need a zone), kept when they overlap the window, given opaque ids, edit rights, and
 * reduced to what the calendar's detail level and the event's privacy allow. Pure.
 */
import type { CalendarAccess, ProviderOccurrence, TimeWindow } from '../calendars/provider.ts';
import { AppError } from '../errors.ts';
import type { DetailLevel } from '../policy/workspacePolicy.ts';
import { editRights } from './editRights.ts';
import type { Event } from './event.ts';
import { mask, visibleLevel } from './visibility.ts';

export interface CalendarView {
  calendarId: string;
  access: CalendarAccess;
  /** Effective level: the lowest of provider right, consent and workspace policy. */
  detailLevel: DetailLevel;
  /** The grant includes details of private events. */
  privateDetails: boolean;
  /** Zone for floating and all-day times: the calendar's own, else the one the user confirmed. */
  placementZone?: string;
}

export interface EventIds {
  eventId(calendarId: string, providerEventId: string): string;
  occurrenceId(calendarId: string, providerEventId: string, recurrenceId: string | undefined): string;
}

export interface Span {
  start: Temporal.Instant;
  end: Temporal.Instant;
}

export interface PlacedEvent extends Span {
  event: Event;
}

/** The occurrence's instants; nominal durations are added in its zone, so P1D spans a DST day. */
export function placeOccurrence(occurrence: ProviderOccurrence, placementZone: string | undefined): Span {
  const zone = occurrence.timeZone ?? placementZone;
  if (zone === undefined) {
    throw new AppError(
      'time_zone_required',
      'This calendar has floating or all-day times and no known time zone.',
    );
  }
  const start = Temporal.PlainDateTime.from(occurrence.start).toZonedDateTime(zone, {
    disambiguation: 'compatible',
  });
  return {
    start: start.toInstant(),
    end: start.add(Temporal.Duration.from(occurrence.duration)).toInstant(),
  };
}

/** Overlap with [start, end); a zero-length occurrence counts when it starts inside. */
export function overlaps(span: Span, window: TimeWindow): boolean {
  if (Temporal.Instant.compare(span.start, span.end) === 0) {
    return (
      Temporal.Instant.compare(window.start, span.start) <= 0 &&
      Temporal.Instant.compare(span.start, window.end) < 0
    );
  }
  return (
    Temporal.Instant.compare(span.start, window.end) < 0 &&
    Temporal.Instant.compare(window.start, span.end) < 0
  );
}

function fullEvent(
  occurrence: ProviderOccurrence,
  view: CalendarView,
  ids: EventIds,
  masked: boolean,
): Event {
  const o = occurrence;
  const rights = editRights({ access: view.access, masked, status: o.status, facts: o.facts });
  const optional = <K extends keyof Event>(key: K, value: Event[K] | undefined) =>
    value === undefined || (Array.isArray(value) && value.length === 0) ? {} : { [key]: value };
  return {
    eventId: ids.eventId(view.calendarId, o.providerEventId),
    calendarId: view.calendarId,
    occurrenceId: ids.occurrenceId(view.calendarId, o.providerEventId, o.recurrenceId),
    title: o.title ?? '',
    ...optional('description', o.description),
    ...optional('locations', o.locations),
    ...optional('virtualLocations', o.virtualLocations),
    ...optional('links', o.links),
    ...optional('categories', o.categories),
    ...optional('keywords', o.keywords),
    ...optional('color', o.color),
    start: o.start,
    ...optional('timeZone', o.timeZone),
    duration: o.duration,
    showWithoutTime: o.showWithoutTime,
    status: o.status,
    freeBusyStatus: o.freeBusyStatus,
    canRespond: rights.canRespond,
    canEdit: rights.canEdit,
    ...optional('editBlockedReason', rights.editBlockedReason),
    ...optional('responseStatus', o.responseStatus),
    ...optional('privacy', o.privacy),
    ...optional('alerts', o.alerts),
    ...optional('workingLocation', o.workingLocation),
  };
}

/** Occurrences of one calendar → the Events in the window, ordered by start instant. */
export function toEvents(
  occurrences: readonly ProviderOccurrence[],
  view: CalendarView,
  ids: EventIds,
  window: TimeWindow,
): PlacedEvent[] {
  const placed: PlacedEvent[] = [];
  for (const occurrence of occurrences) {
    const span = placeOccurrence(occurrence, view.placementZone);
    if (!overlaps(span, window)) continue;
    const level = visibleLevel(view.detailLevel, occurrence.privacy, view.privateDetails);
    const event = mask(fullEvent(occurrence, view, ids, level === 'busy'), level);
    placed.push({ ...span, event });
  }
  return placed.sort(
    (a, b) =>
      Temporal.Instant.compare(a.start, b.start) ||
      compareStrings(a.event.occurrenceId, b.event.occurrenceId),
  );
}

const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
