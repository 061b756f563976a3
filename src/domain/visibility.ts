/**
 * What the assistant may see of an event: the calendar's effective detail level, lowered to
 * busy for private and secret events unless the grant includes their details.
 */
import { atLeast, type DetailLevel, detailLevels } from './detailLevels.ts';
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
export const everyLevelFields = [
  'eventId',
  'calendarId',
  'occurrenceId',
  'start',
  'timeZone',
  'duration',
  'showWithoutTime',
  'status',
  'freeBusyStatus',
  'canEdit',
  'canRespond',
  'editBlockedReason',
] as const satisfies ReadonlyArray<keyof Event>;

/**
 * The one table of what each level shows (DESIGN.md, detail levels): every other field of an
 * Event, with the least level that shows it. Masking, the synced copies and the consent page's
 * words all follow it; at `busy` the title is a placeholder.
 */
export const contentFields = {
  title: 'titles',
  locations: 'titles',
  workingLocation: 'titles',
  responseStatus: 'titles',
  description: 'full',
  virtualLocations: 'full',
  links: 'full',
  categories: 'full',
  keywords: 'full',
  color: 'full',
  privacy: 'full',
  alerts: 'full',
} as const satisfies Record<Exclude<keyof Event, (typeof everyLevelFields)[number]>, DetailLevel>;

export type ContentField = keyof typeof contentFields;

/** The organizer and guests (get_event_guests) are shown from this level on. */
export const guestsLevel: DetailLevel = 'full';

/** Whether `level` shows a content field. */
export const shows = (level: DetailLevel, field: ContentField): boolean =>
  atLeast(level, contentFields[field]);

const contentFieldNames = Object.keys(contentFields) as ContentField[];

/** Per level, once: the fields it shows, in the order of an Event; the content fields a copy drops (privacy stays: reads mask by it). */
const shownFields = {} as Record<DetailLevel, ReadonlyArray<keyof Event>>;
const droppedFromCopy = {} as Record<DetailLevel, readonly ContentField[]>;
for (const level of detailLevels) {
  shownFields[level] = [...everyLevelFields, ...contentFieldNames.filter((f) => shows(level, f))];
  droppedFromCopy[level] = contentFieldNames.filter((f) => f !== 'privacy' && !shows(level, f));
}

/** The title of an event shown at busy level (its only text, so the only text a search finds there). */
export const busyTitle = (freeBusyStatus: Event['freeBusyStatus']): string =>
  freeBusyStatus === 'free' ? 'Free' : 'Busy';

/** Reduces a full event to what `level` shows. The busy placeholder is the title there. */
export function mask(event: Event, level: DetailLevel): Event {
  if (level === 'full') return event;
  const shown: Record<string, unknown> = {};
  for (const field of shownFields[level]) if (event[field] !== undefined) shown[field] = event[field];
  if (level === 'busy') shown.title = busyTitle(event.freeBusyStatus);
  return shown as unknown as Event;
}

/** The organizer and guests of an occurrence, shown only at full detail (after privacy); undefined below. */
export function visibleGuests(
  occurrence: ProviderOccurrence,
  level: DetailLevel,
  privateDetails: boolean,
): Pick<ProviderOccurrence, 'organizer' | 'attendees'> | undefined {
  if (!atLeast(visibleLevel(level, occurrence.privacy, privateDetails), guestsLevel)) return undefined;
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
  const reduced: Record<string, unknown> = { ...kept };
  for (const field of droppedFromCopy[level]) delete reduced[field];
  return reduced as unknown as ProviderOccurrence;
}

function withoutGuests(occurrence: ProviderOccurrence): ProviderOccurrence {
  if (occurrence.organizer === undefined && occurrence.attendees === undefined) return occurrence;
  const { organizer: _organizer, attendees: _attendees, ...kept } = occurrence;
  return kept;
}
