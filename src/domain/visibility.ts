/**
 * What the assistant may see of an event: the calendar's effective detail level, lowered to
 * busy for private and secret events unless the grant includes their details.
 */
import type { DetailLevel } from './detailLevels.ts';
import type { Event, Privacy } from './event.ts';
import type { ProviderOccurrence } from './providerFacts.ts';

export function visibleLevel(
  level: DetailLevel,
  privacy: Privacy | undefined,
  privateDetails: boolean,
): DetailLevel {
  if ((privacy === 'private' || privacy === 'secret') && !privateDetails) return 'busy';
  return level;
}

/** Fields every level shows: identity, time and availability, and the edit/respond answer. */
type Always = Pick<
  Event,
  | 'eventId'
  | 'calendarId'
  | 'occurrenceId'
  | 'start'
  | 'timeZone'
  | 'duration'
  | 'showWithoutTime'
  | 'status'
  | 'freeBusyStatus'
  | 'canEdit'
  | 'canRespond'
  | 'editBlockedReason'
>;

/** The title of an event shown at busy level (its only text, so the only text a search finds there). */
export const busyTitle = (freeBusyStatus: Event['freeBusyStatus']): string =>
  freeBusyStatus === 'free' ? 'Free' : 'Busy';

/** Reduces a full event to what `level` shows. The busy placeholder is the title there. */
export function mask(event: Event, level: DetailLevel): Event {
  if (level === 'full') return event;
  const always: Always = {
    eventId: event.eventId,
    calendarId: event.calendarId,
    occurrenceId: event.occurrenceId,
    start: event.start,
    ...(event.timeZone === undefined ? {} : { timeZone: event.timeZone }),
    duration: event.duration,
    showWithoutTime: event.showWithoutTime,
    status: event.status,
    freeBusyStatus: event.freeBusyStatus,
    canEdit: event.canEdit,
    canRespond: event.canRespond,
    ...(event.editBlockedReason === undefined ? {} : { editBlockedReason: event.editBlockedReason }),
  };
  if (level === 'busy') return { ...always, title: busyTitle(event.freeBusyStatus) };
  return {
    ...always,
    title: event.title,
    ...(event.locations === undefined ? {} : { locations: event.locations }),
    ...(event.workingLocation === undefined ? {} : { workingLocation: event.workingLocation }),
    ...(event.responseStatus === undefined ? {} : { responseStatus: event.responseStatus }),
  };
}

/** The organizer and guests of an occurrence, shown only at full detail (after privacy); undefined below. */
export function visibleGuests(
  occurrence: ProviderOccurrence,
  level: DetailLevel,
  privateDetails: boolean,
): Pick<ProviderOccurrence, 'organizer' | 'attendees'> | undefined {
  if (visibleLevel(level, occurrence.privacy, privateDetails) !== 'full') return undefined;
  return {
    ...(occurrence.organizer === undefined ? {} : { organizer: occurrence.organizer }),
    attendees: occurrence.attendees ?? [],
  };
}

/**
 * An occurrence reduced to what `level` can ever show, for the synced copy: masking it again at
 * read time gives what masking the full occurrence gives. Edit facts, privacy and times stay
 * (every level needs them); text a level never shows is not kept — nor a private event's when
 * no grant has `privateDetails` —, nor are the organizer and guests at any level
 * (get_event_guests reads them fresh, one event at a time).
 */
export function forCopy(
  occurrence: ProviderOccurrence,
  copied: { level: DetailLevel; privateDetails: boolean },
): ProviderOccurrence {
  const kept = withoutGuests(occurrence);
  const level = visibleLevel(copied.level, occurrence.privacy, copied.privateDetails);
  if (level === 'full') return kept;
  const {
    title,
    locations,
    workingLocation,
    responseStatus,
    description: _description,
    virtualLocations: _virtualLocations,
    links: _links,
    categories: _categories,
    keywords: _keywords,
    color: _color,
    alerts: _alerts,
    ...always
  } = kept;
  if (level === 'busy') return always;
  return {
    ...always,
    ...(title === undefined ? {} : { title }),
    ...(locations === undefined ? {} : { locations }),
    ...(workingLocation === undefined ? {} : { workingLocation }),
    ...(responseStatus === undefined ? {} : { responseStatus }),
  };
}

function withoutGuests(occurrence: ProviderOccurrence): ProviderOccurrence {
  if (occurrence.organizer === undefined && occurrence.attendees === undefined) return occurrence;
  const { organizer: _organizer, attendees: _attendees, ...kept } = occurrence;
  return kept;
}
