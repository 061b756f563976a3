/**
 * Whether a fresh read shows a change as made — the question a write that timed out leaves
 * open. Pure.
 */

import type { EventFields, GuestChanges, RsvpResponse } from './eventChanges.ts';
import type { EventTiming } from './eventTiming.ts';
import { placeOccurrence } from './occurrences.ts';
import type { ProviderOccurrence } from './providerFacts.ts';

// Line ends are compared as one: a CalDAV object holds every CR, LF or CRLF as one line break.
const lines = (text: string | null | undefined) => (text ?? '').replace(/\r\n?/g, '\n').trim();
const sameText = (a: string | undefined, b: string | null | undefined) => lines(a) === lines(b);

function sameTiming(occurrence: ProviderOccurrence, timing: EventTiming): boolean {
  if (timing.allDay) {
    if (!occurrence.showWithoutTime || occurrence.start !== `${timing.startDate}T00:00:00`) return false;
    const end = Temporal.PlainDate.from(timing.startDate).add(Temporal.Duration.from(occurrence.duration));
    return end.toString() === timing.endDate;
  }
  if (occurrence.showWithoutTime || occurrence.timeZone === undefined) return false;
  const span = placeOccurrence(occurrence, undefined);
  const at = (local: string) =>
    Temporal.PlainDateTime.from(local).toZonedDateTime(timing.timeZone).toInstant();
  return span.start.equals(at(timing.start)) && span.end.equals(at(timing.end));
}

/** Added guests listed, removed ones gone (addresses without case). */
function showsGuests(occurrence: ProviderOccurrence, guests: GuestChanges): boolean {
  const listed = new Set((occurrence.attendees ?? []).map((attendee) => attendee.email.toLowerCase()));
  return (
    guests.add.every((guest) => listed.has(guest.email.toLowerCase())) &&
    guests.remove.every((email) => !listed.has(email.toLowerCase()))
  );
}

/** Whether the event as read shows every requested change (text compared without outer space). */
export function showsChanges(occurrence: ProviderOccurrence, changes: EventFields): boolean {
  if (changes.title !== undefined && !sameText(occurrence.title, changes.title)) return false;
  if (changes.description !== undefined && !sameText(occurrence.description, changes.description))
    return false;
  if (changes.location !== undefined && !sameText(occurrence.locations?.[0]?.name, changes.location))
    return false;
  if (changes.freeBusyStatus !== undefined && occurrence.freeBusyStatus !== changes.freeBusyStatus)
    return false;
  if (changes.privacy !== undefined && (occurrence.privacy ?? 'public') !== changes.privacy) return false;
  if (changes.alerts !== undefined && (occurrence.alerts?.length ?? 0) !== changes.alerts.length)
    return false;
  if (changes.guests !== undefined && !showsGuests(occurrence, changes.guests)) return false;
  return changes.timing === undefined || sameTiming(occurrence, changes.timing);
}

const responseStatusOf: Record<RsvpResponse, ProviderOccurrence['responseStatus']> = {
  accepted: 'accepted',
  declined: 'declined',
  tentative: 'tentative',
};

export const showsResponse = (occurrence: ProviderOccurrence, response: RsvpResponse): boolean =>
  occurrence.responseStatus === responseStatusOf[response];
