/**
 * Whether the assistant may edit or respond to an event, from provider facts alone. Token
 * scopes and workspace policy narrow this further in the surfaces. First matching reason wins.
 */

import type { EditBlockedReason, EventStatus } from './event.ts';
import type { CalendarAccess, EditFacts } from './providerFacts.ts';

export interface EditContext {
  access: CalendarAccess;
  /** The assistant sees the event only as busy/free (detail level or privacy masking). */
  masked: boolean;
  status: EventStatus;
  facts: EditFacts;
}

export interface EditRights {
  canEdit: boolean;
  canRespond: boolean;
  editBlockedReason?: EditBlockedReason;
}

function blockedReason({ access, masked, facts }: EditContext): EditBlockedReason | undefined {
  if (access === 'reader' || access === 'freeBusy') return 'calendar_read_only';
  // An edit the assistant cannot see the content of could not be checked by anyone.
  if (masked) return 'access_denied';
  if (facts.managedCopy) return 'managed_copy';
  if (facts.organizer === 'other') return 'not_organizer';
  // Guests of an event the user organises are theirs to tell (update_event's notifyAttendees);
  // with no organizer, or one the calendar does not name, a change could reach anyone.
  if (facts.attendees && facts.organizer !== 'self') return 'guests_or_scheduling';
  if (facts.conference) return 'conference';
  if (facts.version === undefined) return 'version_unavailable';
  if (facts.organizer === 'unknown') return 'unknown';
  return undefined;
}

export interface Refusal {
  code: EditBlockedReason;
  message: string;
}

/** Why the user may not answer this invitation; undefined when they may. The one rule for canRespond. */
export function respondBlockedReason({ access, masked, status, facts }: EditContext): Refusal | undefined {
  if (access !== 'owner' && access !== 'writer') {
    return {
      code: 'calendar_read_only',
      message: 'This calendar is read-only, so its invitations cannot be answered here.',
    };
  }
  if (masked) {
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

export function editRights(context: EditContext): EditRights {
  const reason = blockedReason(context);
  const canRespond = respondBlockedReason(context) === undefined;
  return reason === undefined
    ? { canEdit: true, canRespond }
    : { canEdit: false, canRespond, editBlockedReason: reason };
}
