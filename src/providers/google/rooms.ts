/**
 * The rooms a Google account sees: the resource calendars in its calendar list (their ids end in
 * `@resource.calendar.google.com`, and are the rooms' addresses). Workspace names them
 * "Building-Floor-Room (capacity) [feature, feature]" by default; capacity and features are read
 * from that, else the room has none.
 */
import type { Room } from '../../domain/rooms.ts';
import type { GoogleCalendarListEntry } from './wire.ts';

const resourceSuffix = '@resource.calendar.google.com';
const generatedName = /^(.*?)\s*(?:\((\d{1,5})\))?\s*(?:\[([^\]]*)\])?$/;

export function googleRooms(entries: readonly GoogleCalendarListEntry[]): Room[] {
  return entries
    .filter((entry) => entry.deleted !== true && entry.id.toLowerCase().endsWith(resourceSuffix))
    .map((entry) => {
      const text = (entry.summaryOverride ?? entry.summary ?? '').trim();
      const [, name = '', capacity, features] = generatedName.exec(text) ?? [];
      return {
        email: entry.id,
        name: name || text || entry.id,
        ...(capacity === undefined || Number(capacity) === 0 ? {} : { capacity: Number(capacity) }),
        features: (features ?? '')
          .split(',')
          .map((f) => f.trim())
          .filter((f) => f !== ''),
      };
    });
}
