/**
 * Which event a write names: the eventId opens only for the calendar it was minted for, so it is
 * decrypted once and its MAC checked against the grant's calendars in turn. An id that opens for none of them — unknown, forged, or
 * from a calendar this grant does not reach — gets `calendar_not_permitted`, the same answer for all.
 */
import { AppError, invalidField } from '../errors.ts';
import type { Principal } from '../policy/principal.ts';
import type { CalendarDeps } from './calendarDeps.ts';
import type { EventIdCodec } from './eventIds.ts';
import { type PermittedCalendar, permittedCalendars } from './permittedCalendars.ts';

export interface EventRef {
  permitted: PermittedCalendar;
  providerEventId: string;
  /** The occurrence the client named, when it named one. */
  occurrence?: { recurrenceId?: string };
}

function calendarOf(ids: EventIdCodec, principal: Principal, eventId: string) {
  const found = ids.eventCalendar(
    principal.calendars.map((calendar) => calendar.calendarId),
    eventId,
  );
  if (found !== undefined) return found;
  throw new AppError(
    'calendar_not_permitted',
    'This eventId is not an event of the calendars shared with this assistant; use the ids the read tools return.',
    { details: { field: 'eventId' } },
  );
}

export async function resolveEvent(
  deps: CalendarDeps,
  principal: Principal,
  eventId: string,
  occurrenceId: string | undefined,
): Promise<EventRef> {
  const { calendarId, providerEventId } = calendarOf(deps.ids, principal, eventId);
  const [permitted] = await permittedCalendars(deps.db, principal, [calendarId]);
  if (occurrenceId === undefined) return { permitted: permitted!, providerEventId };
  const occurrence = deps.ids.readOccurrenceId(calendarId, occurrenceId);
  if (occurrence === undefined || occurrence.providerEventId !== providerEventId) {
    throw invalidField(
      'occurrenceId',
      'occurrenceId does not belong to this event: pass the eventId and occurrenceId of one event, as the read tools return them.',
    );
  }
  const { recurrenceId } = occurrence;
  return {
    permitted: permitted!,
    providerEventId,
    occurrence: recurrenceId === undefined ? {} : { recurrenceId },
  };
}
