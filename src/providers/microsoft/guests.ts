/**
 * Guests at Graph: the attendee collection a write sends (a PATCH replaces it whole, so a change
 * starts from the collection Graph holds now; Graph keeps the answers of those it still names),
 * and what Graph does with them: an organizer's new event, change or deletion always reaches
 * its attendees — Graph offers no way to keep it from them.
 */
import type { EventFields, GuestChanges } from '../../domain/eventChanges.ts';
import type { GuestScheduling } from '../../domain/guests.ts';
import type { GraphAttendee, GraphLocation } from './wire.ts';

export function graphAttendees(current: readonly GraphAttendee[], changes: GuestChanges): GraphAttendee[] {
  const removed = new Set(changes.remove.map((email) => email.toLowerCase()));
  return [
    ...current
      .filter(({ emailAddress }) => emailAddress?.address && !removed.has(emailAddress.address.toLowerCase()))
      .map(({ type, emailAddress }) => ({ type: type ?? 'required', emailAddress })),
    ...changes.add.map(
      (guest): GraphAttendee => ({
        type: guest.room ? 'resource' : guest.optional ? 'optional' : 'required',
        emailAddress: { address: guest.email, ...(guest.name === undefined ? {} : { name: guest.name }) },
      }),
    ),
  ];
}

/**
 * The location a booked room gives a write that sets none of its own: the room mailbox is then
 * both a resource attendee and the place, as Outlook books a room.
 */
export function withRoomLocation(fields: EventFields): { location?: GraphLocation } {
  const room = fields.guests?.add.find((guest) => guest.room);
  if (room === undefined || fields.location !== undefined) return {};
  return {
    location: {
      displayName: room.name ?? room.email,
      locationEmailAddress: room.email,
      locationType: 'conferenceRoom',
    },
  };
}

export const graphScheduling = (mailbox: string | undefined): GuestScheduling => ({
  delivers: true,
  quiet: { update: false, delete: false },
  selfAddresses: mailbox === undefined ? [] : [mailbox],
});
