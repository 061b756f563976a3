/**
 * Guests at Google: the attendee list a write sends (events.patch replaces the whole array, so
 * a change starts from the list Google holds now, answers and comments kept), and the organizer
 * a new event gets: the calendar itself.
 */
import type { GuestChanges } from '../../domain/eventChanges.ts';
import type { GuestScheduling } from '../../domain/guests.ts';
import type { ProviderCalendar } from '../../domain/providerFacts.ts';
import { isEmailAddress } from '../../lib/email.ts';
import type { GoogleAttendee } from './wire.ts';

/** `current` without the removed addresses, with the added guests (an e-mail each, as Google requires). */
export function googleAttendees(current: readonly GoogleAttendee[], changes: GuestChanges): GoogleAttendee[] {
  const removed = new Set(changes.remove.map((email) => email.toLowerCase()));
  return [
    ...current.filter((attendee) => !removed.has(attendee.email?.toLowerCase() ?? '')),
    ...changes.add.map(
      (guest): GoogleAttendee => ({
        email: guest.email,
        ...(guest.name === undefined ? {} : { displayName: guest.name }),
        ...(guest.optional ? { optional: true } : {}),
        // A room is booked as a resource: Google's room calendar answers for it.
        ...(guest.room ? { resource: true } : {}),
      }),
    ),
  ];
}

/** Google sends invitations, updates and cancellations, each of which `sendUpdates=none` withholds. */
export const googleScheduling = (calendar: ProviderCalendar): GuestScheduling => ({
  delivers: true,
  quiet: { update: true, delete: true },
  // A calendar's id is its address, and the organizer of what is created in it.
  selfAddresses: isEmailAddress(calendar.providerCalendarId) ? [calendar.providerCalendarId] : [],
});
