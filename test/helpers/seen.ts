/** What a client read of an event, in the form update_event and delete_event take it as `seen`. */
import type { SeenValues } from '../../src/domain/seenValues.ts';

interface ReadEvent {
  title: string;
  description?: string;
  locations?: NonNullable<SeenValues['locations']>;
  start: string;
  timeZone?: string;
  duration: string;
  freeBusyStatus: NonNullable<SeenValues['freeBusyStatus']>;
  privacy?: NonNullable<SeenValues['privacy']>;
  alerts?: NonNullable<SeenValues['alerts']>;
}

/** Every value the write tools compare, as the event (an Event as a tool returned it) shows it, null where it has none. */
export function seenOf(read: object): SeenValues {
  const event = read as ReadEvent;
  return {
    title: event.title,
    description: event.description ?? null,
    locations: event.locations ?? null,
    start: event.start,
    timeZone: event.timeZone ?? null,
    duration: event.duration,
    freeBusyStatus: event.freeBusyStatus,
    privacy: event.privacy ?? null,
    alerts: event.alerts ?? null,
  };
}
