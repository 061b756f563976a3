/**
 * The subset of Calendar API v3 resources the adapter reads and writes (and the fake serves), as
 * documented at developers.google.com/calendar/api/v3/reference. Every field is optional on
 * the wire unless Google always sends it.
 */

export type GoogleAccessRole = 'none' | 'freeBusyReader' | 'reader' | 'writer' | 'owner';

export interface GoogleReminder {
  method: 'email' | 'popup' | string;
  minutes: number;
}

export interface GoogleCalendarListEntry {
  kind?: 'calendar#calendarListEntry';
  etag?: string;
  id: string;
  summary?: string;
  summaryOverride?: string;
  description?: string;
  timeZone?: string;
  colorId?: string;
  backgroundColor?: string;
  foregroundColor?: string;
  accessRole: GoogleAccessRole;
  primary?: boolean;
  hidden?: boolean;
  selected?: boolean;
  deleted?: boolean;
  defaultReminders?: GoogleReminder[];
}

export interface GoogleCalendarList {
  kind: 'calendar#calendarList';
  etag?: string;
  nextPageToken?: string;
  nextSyncToken?: string;
  items?: GoogleCalendarListEntry[];
}

/** Exactly one of `date` (all-day) or `dateTime` (RFC 3339, offset required unless timeZone). */
export interface GoogleEventDateTime {
  date?: string;
  dateTime?: string;
  timeZone?: string;
}

export interface GooglePerson {
  id?: string;
  email?: string;
  displayName?: string;
  self?: boolean;
}

export interface GoogleAttendee extends GooglePerson {
  organizer?: boolean;
  resource?: boolean;
  optional?: boolean;
  responseStatus?: 'needsAction' | 'declined' | 'tentative' | 'accepted';
  /** The attendee's note with their answer. */
  comment?: string;
}

export interface GoogleEntryPoint {
  entryPointType: 'video' | 'phone' | 'sip' | 'more' | string;
  uri: string;
  label?: string;
}

export interface GoogleConferenceData {
  conferenceId?: string;
  conferenceSolution?: { name?: string; key?: { type?: string } };
  entryPoints?: GoogleEntryPoint[];
}

export interface GoogleWorkingLocation {
  type?: 'homeOffice' | 'officeLocation' | 'customLocation';
  homeOffice?: unknown;
  officeLocation?: { label?: string; buildingId?: string; floorId?: string; deskId?: string };
  customLocation?: { label?: string };
}

export interface GoogleAttachment {
  fileUrl: string;
  title?: string;
  mimeType?: string;
  fileId?: string;
}

export interface GoogleEvent {
  kind?: 'calendar#event';
  etag?: string;
  id?: string;
  status?: 'confirmed' | 'tentative' | 'cancelled';
  htmlLink?: string;
  created?: string;
  updated?: string;
  summary?: string;
  description?: string;
  location?: string;
  colorId?: string;
  creator?: GooglePerson;
  organizer?: GooglePerson;
  start?: GoogleEventDateTime;
  end?: GoogleEventDateTime;
  endTimeUnspecified?: boolean;
  /** RRULE/EXDATE/RDATE lines; on series masters only. */
  recurrence?: string[];
  recurringEventId?: string;
  originalStartTime?: GoogleEventDateTime;
  transparency?: 'opaque' | 'transparent';
  visibility?: 'default' | 'public' | 'private' | 'confidential';
  iCalUID?: string;
  sequence?: number;
  attendees?: GoogleAttendee[];
  attendeesOmitted?: boolean;
  hangoutLink?: string;
  conferenceData?: GoogleConferenceData;
  privateCopy?: boolean;
  locked?: boolean;
  reminders?: { useDefault?: boolean; overrides?: GoogleReminder[] };
  attachments?: GoogleAttachment[];
  /** Other applications' data; never mapped. */
  extendedProperties?: { private?: Record<string, string>; shared?: Record<string, string> };
  eventType?: 'default' | 'outOfOffice' | 'focusTime' | 'workingLocation' | 'birthday' | 'fromGmail' | string;
  workingLocationProperties?: GoogleWorkingLocation;
}

export interface GoogleEventList {
  kind: 'calendar#events';
  etag?: string;
  summary?: string;
  updated?: string;
  timeZone?: string;
  accessRole?: GoogleAccessRole;
  defaultReminders?: GoogleReminder[];
  nextPageToken?: string;
  nextSyncToken?: string;
  items?: GoogleEvent[];
}

/** Google's JSON error body. */
export interface GoogleErrorBody {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    errors?: Array<{ domain?: string; reason?: string; message?: string }>;
  };
}

/** A push channel as events.watch answers it; int64 members travel as strings. */
export interface GoogleChannel {
  kind?: 'api#channel';
  id?: string;
  resourceId?: string;
  resourceUri?: string;
  token?: string;
  /** Epoch milliseconds. */
  expiration?: string;
}

/** freeBusy.query's answer: per calendar id asked, its busy spans, or `errors` (notFound…). */
export interface GoogleFreeBusy {
  calendars?: Record<string, { busy?: Array<{ start?: string; end?: string }>; errors?: unknown[] }>;
}
