/**
 * The subset of Microsoft Graph v1.0 resources this adapter reads. Every member is optional
 * where Graph may omit it or send null; the mapping decides what a missing value means.
 */

export interface GraphPage<T> {
  value: T[];
  '@odata.nextLink'?: string;
  /** On the last page of a delta round: where the changes since are asked for. */
  '@odata.deltaLink'?: string;
}

/** An entry of a delta page: an event, or the id of one that left the view. */
export type GraphDeltaEntry = GraphEvent & { '@removed'?: { reason?: string } };

export interface GraphSubscription {
  id: string;
  expirationDateTime: string;
}

export interface GraphErrorBody {
  error?: { code?: string; message?: string };
}

export interface GraphUser {
  id: string;
  displayName?: string | null;
  mail?: string | null;
  userPrincipalName?: string | null;
}

export interface GraphEmailAddress {
  name?: string | null;
  address?: string | null;
}

export interface GraphCalendar {
  id: string;
  name?: string | null;
  hexColor?: string | null;
  isDefaultCalendar?: boolean | null;
  canEdit?: boolean | null;
  /** Only the calendar's creator may share it: false on calendars shared with the user. */
  canShare?: boolean | null;
  owner?: GraphEmailAddress | null;
}

/** A local date-time (`2026-06-10T09:30:00.0000000`) and the zone it is in (Windows or IANA name). */
export interface GraphDateTimeTimeZone {
  dateTime: string;
  timeZone: string;
}

export interface GraphLocation {
  displayName?: string | null;
  /** A room mailbox's address, with locationType conferenceRoom. */
  locationEmailAddress?: string | null;
  locationType?: string | null;
  coordinates?: { latitude?: number | null; longitude?: number | null } | null;
}

export interface GraphAttendee {
  type?: 'required' | 'optional' | 'resource';
  emailAddress?: GraphEmailAddress | null;
  status?: { response?: GraphResponse | null } | null;
}

export type GraphResponse =
  | 'none'
  | 'organizer'
  | 'tentativelyAccepted'
  | 'accepted'
  | 'declined'
  | 'notResponded';
export type GraphShowAs = 'free' | 'tentative' | 'busy' | 'oof' | 'workingElsewhere' | 'unknown';
export type GraphSensitivity = 'normal' | 'personal' | 'private' | 'confidential';
export type GraphEventType = 'singleInstance' | 'occurrence' | 'exception' | 'seriesMaster';

export interface GraphEvent {
  id: string;
  type?: GraphEventType | null;
  seriesMasterId?: string | null;
  /** The occurrence's start before any change, as an instant (`2026-05-04T07:00:00Z`). */
  originalStart?: string | null;
  originalStartTimeZone?: string | null;
  subject?: string | null;
  body?: { contentType?: 'text' | 'html' | null; content?: string | null } | null;
  start?: GraphDateTimeTimeZone | null;
  end?: GraphDateTimeTimeZone | null;
  isAllDay?: boolean | null;
  isCancelled?: boolean | null;
  isOrganizer?: boolean | null;
  showAs?: GraphShowAs | null;
  sensitivity?: GraphSensitivity | null;
  responseStatus?: { response?: GraphResponse | null } | null;
  isReminderOn?: boolean | null;
  reminderMinutesBeforeStart?: number | null;
  location?: GraphLocation | null;
  locations?: GraphLocation[] | null;
  onlineMeeting?: { joinUrl?: string | null } | null;
  onlineMeetingUrl?: string | null;
  onlineMeetingProvider?: string | null;
  webLink?: string | null;
  categories?: string[] | null;
  attendees?: GraphAttendee[] | null;
  organizer?: { emailAddress?: GraphEmailAddress | null } | null;
  changeKey?: string | null;
}
