/**
 * The Event as the specification defines it (list_events shape), with JSCalendar semantics
 * except `start`: the instant in RFC 3339 with an offset (all-day: the date), `timeZone` the
 * zone the event is kept in (absent = floating), `duration` ISO 8601.
 * Closed objects: nothing outside these fields ever reaches a client.
 */

export const eventStatuses = ['confirmed', 'tentative', 'cancelled'] as const;
export type EventStatus = (typeof eventStatuses)[number];
export const freeBusyStatuses = ['free', 'busy'] as const;
export type FreeBusyStatus = (typeof freeBusyStatuses)[number];
export const responseStatuses = ['needs-action', 'accepted', 'declined', 'tentative'] as const;
export type ResponseStatus = (typeof responseStatuses)[number];
export const privacies = ['public', 'private', 'secret'] as const;
export type Privacy = (typeof privacies)[number];
export const alertActions = ['display', 'email'] as const;
export type AlertAction = (typeof alertActions)[number];
export const workingLocationTypes = ['home', 'office', 'custom'] as const;
export type WorkingLocationType = (typeof workingLocationTypes)[number];

export const editBlockedReasons = [
  'calendar_read_only',
  'access_denied',
  'recurring_event',
  'not_organizer',
  'guests_or_scheduling',
  'conference',
  'managed_copy',
  'version_unavailable',
  'unknown',
] as const;
export type EditBlockedReason = (typeof editBlockedReasons)[number];

export interface Location {
  name: string;
  description?: string;
  coordinates?: string;
}

export interface VirtualLocation {
  name?: string;
  uri: string;
}

export interface Link {
  href: string;
  title?: string;
  rel?: string;
}

export interface Alert {
  /** Signed ISO 8601 duration relative to the start, e.g. `-PT15M`. */
  offset: string;
  action?: AlertAction;
}

export interface WorkingLocation {
  type: WorkingLocationType;
  label?: string;
}

export interface Event {
  eventId: string;
  calendarId: string;
  occurrenceId: string;
  title: string;
  description?: string;
  locations?: Location[];
  virtualLocations?: VirtualLocation[];
  links?: Link[];
  categories?: string[];
  keywords?: string[];
  color?: string;
  /** `2026-03-10T09:00:00+01:00` (offsets of the zone asked for, else of the event's), all-day `2026-03-10`: `showInstant`. */
  start: string;
  timeZone?: string;
  duration: string;
  showWithoutTime: boolean;
  status: EventStatus;
  freeBusyStatus: FreeBusyStatus;
  canRespond: boolean;
  canEdit: boolean;
  editBlockedReason?: EditBlockedReason;
  responseStatus?: ResponseStatus;
  privacy?: Privacy;
  alerts?: Alert[];
  workingLocation?: WorkingLocation;
}
