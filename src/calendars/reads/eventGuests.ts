/**
 * The organizer and guests of one event (get_event_guests), read fresh from the provider: shown
 * at full detail only — a calendar seen at titles or busy, or a private event without its
 * details, answers `access_denied` as the write tools do (before any provider call when the
 * calendar's level already says so). Guests are never kept in the copies and never searched.
 */
import type { Attendee, Participant } from '../../domain/providerFacts.ts';
import { visibleGuests } from '../../domain/visibility.ts';
import { AppError } from '../../errors.ts';
import type { Principal } from '../../policy/principal.ts';
import { providerFor } from '../../providers/registry.ts';
import type { CalendarDeps } from '../calendarDeps.ts';
import { withConnection } from '../connections/connections.ts';
import { resolveEvent } from '../eventRefs.ts';

/** Most guests one answer lists; a larger meeting says how many more it has. */
export const maxGuestsShown = 1000;

export interface EventGuests {
  organizer?: Participant;
  attendees: Attendee[];
  /** Guests beyond the first 1000, not listed. */
  omitted?: number;
}

const notShown = () =>
  new AppError(
    'access_denied',
    'The assistant sees this event at less than full detail, so its organizer and guests are not shown.',
  );

export async function readEventGuests(
  deps: CalendarDeps,
  principal: Principal,
  input: { eventId: string; occurrenceId?: string },
): Promise<EventGuests> {
  const ref = await resolveEvent(deps, principal, input.eventId, input.occurrenceId);
  const { calendar, account, level } = ref.permitted;
  if (level !== 'full') throw notShown();
  const provider = providerFor(deps.providers, account.provider);
  const occurrence = await withConnection(deps, account, (access) =>
    provider.getEvent(access, calendar, ref.providerEventId, ref.occurrence?.recurrenceId),
  );
  if (occurrence === undefined) throw new AppError('not_found', 'This event no longer exists.');
  const guests = visibleGuests(occurrence, level, principal.privateDetails);
  if (guests === undefined) throw notShown();
  const attendees = guests.attendees ?? [];
  return {
    ...(guests.organizer === undefined ? {} : { organizer: guests.organizer }),
    attendees: attendees.slice(0, maxGuestsShown),
    ...(attendees.length > maxGuestsShown ? { omitted: attendees.length - maxGuestsShown } : {}),
  };
}
