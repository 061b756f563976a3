/**
 * The judgements a write needs about the event as the provider reports it: may the assistant
 * respond to it (and if not, why), and does a fresh read show a change as made — the question
 * a write that timed out leaves open. Pure.
 */
import type { EventFields, EventTiming, ProviderOccurrence, RsvpResponse } from '../providers/port.ts';
import type { EditBlockedReason } from './event.ts';
import { placeOccurrence } from './occurrences.ts';

/** Why the user may not answer this invitation (in a writable calendar); undefined when they may. */
export function respondBlockedReason(context: {
  masked: boolean;
  occurrence: ProviderOccurrence;
}): { code: EditBlockedReason; message: string } | undefined {
  const { facts, status } = context.occurrence;
  if (context.masked) {
    return {
      code: 'access_denied',
      message: 'The assistant sees only that this time is busy, so it cannot answer for this event.',
    };
  }
  if (!facts.userIsAttendee || facts.organizer !== 'other') {
    return {
      code: 'access_denied',
      message:
        'The user is not an invitee of this event (only invitations from someone else can be answered).',
    };
  }
  if (status === 'cancelled') return { code: 'access_denied', message: 'This event was cancelled.' };
  if (facts.version === undefined) {
    return {
      code: 'version_unavailable',
      message: 'The calendar gives no version of this event to answer safely.',
    };
  }
  return undefined;
}

const sameText = (a: string | undefined, b: string | null | undefined) =>
  (a ?? '').trim() === (b ?? '').trim();

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
  return changes.timing === undefined || sameTiming(occurrence, changes.timing);
}

const responseStatusOf: Record<RsvpResponse, ProviderOccurrence['responseStatus']> = {
  accepted: 'accepted',
  declined: 'declined',
  tentative: 'tentative',
};

export const showsResponse = (occurrence: ProviderOccurrence, response: RsvpResponse): boolean =>
  occurrence.responseStatus === responseStatusOf[response];
