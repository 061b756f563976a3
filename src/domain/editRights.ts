/**
 * Whether the assistant may edit or respond to an event, from provider facts alone. Token
 * scopes and workspace policy narrow this further in the surfaces. First matching reason wins.
 */
import type { CalendarAccess, EditFacts } from '../providers/port.ts';
import type { EditBlockedReason, EventStatus } from './event.ts';

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
  // Changing an event with guests sends them updates: a person should decide that.
  if (facts.attendees) return 'guests_or_scheduling';
  if (facts.conference) return 'conference';
  if (facts.version === undefined) return 'version_unavailable';
  if (facts.organizer === 'unknown') return 'unknown';
  return undefined;
}

export function editRights(context: EditContext): EditRights {
  const reason = blockedReason(context);
  const writable = context.access === 'owner' || context.access === 'writer';
  const canRespond =
    writable &&
    !context.masked &&
    context.facts.userIsAttendee &&
    context.facts.organizer === 'other' &&
    context.status !== 'cancelled';
  return reason === undefined
    ? { canEdit: true, canRespond }
    : { canEdit: false, canRespond, editBlockedReason: reason };
}
