/**
 * What a Google series holds apart from its rule — changed and cancelled instances, EXDATE and
 * RDATE lines of its master —, asked by the writer before a series moves (`seriesExceptions`).
 */
import type { SeriesException } from '../../domain/eventChanges.ts';
import { canonicalZone, recurrenceIdOf } from './mapping.ts';
import type { GoogleEvent } from './wire.ts';

/** The recurrence ids of an EXDATE or RDATE line of a master (`EXDATE;TZID=…:20261103T090000,…`). */
function datesOfLine(line: string, masterZone: string): string[] {
  const colon = line.indexOf(':');
  const tzid = /;TZID=([^;:]+)/i.exec(line.slice(0, colon))?.[1];
  return line
    .slice(colon + 1)
    .split(',')
    .flatMap((value) => {
      const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(value.trim());
      const [, year, month, day, hour, minute, second, utc] = match ?? [];
      const date = `${year}-${month}-${day}`;
      if (match !== null && hour === undefined) return [date];
      try {
        const zone = utc === 'Z' ? 'Etc/UTC' : canonicalZone(tzid ?? masterZone);
        const local = Temporal.PlainDateTime.from(`${date}T${hour}:${minute}:${second}`);
        return [local.toZonedDateTime(zone).toInstant().toString()];
      } catch {
        // Still a date the series holds apart: named as written.
        return [value.trim()];
      }
    });
}

/** What a series holds apart from its rule: exceptions, cancelled instances, EXDATE and RDATE lines. */
export function seriesExceptionsOf(master: GoogleEvent, items: readonly GoogleEvent[]): SeriesException[] {
  const found: SeriesException[] = [];
  for (const item of items) {
    if (item.recurringEventId !== master.id) continue;
    const recurrenceId = recurrenceIdOf(item.originalStartTime);
    if (recurrenceId === undefined) continue;
    found.push({ recurrenceId, kind: item.status === 'cancelled' ? 'cancelled' : 'changed' });
  }
  const zone = canonicalZone(master.start?.timeZone ?? 'UTC');
  for (const line of master.recurrence ?? []) {
    const name = line.slice(0, Math.max(0, line.search(/[;:]/))).toUpperCase();
    if (name !== 'EXDATE' && name !== 'RDATE') continue;
    for (const recurrenceId of datesOfLine(line, zone)) {
      found.push({ recurrenceId, kind: name === 'EXDATE' ? 'cancelled' : 'added' });
    }
  }
  return found;
}
