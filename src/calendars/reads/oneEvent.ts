/**
 * One event by its ids (get_event), read fresh from the provider — what a write's `seen` is taken
 * from — and shown as the lists show it: the calendar's effective level, private events masked
 * without their details, rights narrowed to the token's scopes. An id of another calendar, a
 * made-up one, an occurrence that is not the event's, and an event the provider no longer has
 * all get the same `not_found`: the answer never tells which.
 */
import type { Event } from '../../domain/event.ts';
import { toEvent } from '../../domain/occurrences.ts';
import { AppError } from '../../errors.ts';
import { narrowRights } from '../../policy/eventRights.ts';
import type { Principal } from '../../policy/principal.ts';
import { providerFor } from '../../providers/registry.ts';
import type { CalendarDeps } from '../calendarDeps.ts';
import { withConnection } from '../connections/connections.ts';
import type { OccurrenceRef } from '../eventIds.ts';
import { permittedCalendars } from '../permittedCalendars.ts';
import { calendarView } from './calendarEvents.ts';

export interface EventAddress {
  calendarId: string;
  eventId: string;
  occurrenceId?: string;
}

const notFound = () =>
  new AppError(
    'not_found',
    'This calendar has no such event (or no longer has it): use the eventId and occurrenceId the read tools return for this calendarId.',
  );

/** The provider event (and occurrence) the ids name, if both were minted for this calendar and agree. */
function opened(deps: CalendarDeps, address: EventAddress): OccurrenceRef | undefined {
  const providerEventId = deps.ids.readEventId(address.calendarId, address.eventId);
  if (providerEventId === undefined) return undefined;
  if (address.occurrenceId === undefined) return { providerEventId };
  const occurrence = deps.ids.readOccurrenceId(address.calendarId, address.occurrenceId);
  return occurrence?.providerEventId === providerEventId ? occurrence : undefined;
}

export async function readOneEvent(
  deps: CalendarDeps,
  principal: Principal,
  address: EventAddress,
): Promise<Event> {
  const [permitted] = await permittedCalendars(deps.db, principal, [address.calendarId]);
  const { calendar, account, level } = permitted!;
  const ref = opened(deps, address);
  if (ref === undefined) throw notFound();
  const provider = providerFor(deps.providers, account.provider);
  // One fresh read; without an occurrence a series answers with its first occurrence.
  const occurrence = await withConnection(deps, account, (access) =>
    provider.getEvent(access, calendar, ref.providerEventId, ref.recurrenceId),
  );
  if (occurrence === undefined) throw notFound();
  const view = calendarView(calendar, { detailLevel: level, privateDetails: principal.privateDetails });
  return narrowRights(toEvent(occurrence, view, deps.ids), principal.scopes);
}
