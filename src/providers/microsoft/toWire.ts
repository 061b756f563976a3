/**
 * Event fields of a write → Graph event properties. Times are local in their zone, named the
 * way Outlook names zones (Windows names) wherever one stands for exactly that IANA zone, so
 * that reading back through `originalStartTimeZone` gives the zone that was written.
 */

import type { EventFields } from '../../domain/eventChanges.ts';
import type { EventRecurrence } from '../../domain/eventRecurrence.ts';
import type { EventTiming } from '../../domain/eventTiming.ts';
import { windowsZones } from '../../domain/time/windowsZones.ts';

/** IANA zone → the first Windows name CLDR maps to it. */
const windowsNames = new Map<string, string>();
for (const [windows, iana] of Object.entries(windowsZones)) {
  if (!windowsNames.has(iana)) windowsNames.set(iana, windows);
}

/** The name Graph gets for an IANA zone: its Windows name, else the IANA name (Graph accepts both). */
export const graphZoneName = (zone: string): string => windowsNames.get(zone) ?? zone;

/**
 * Graph properties for `fields`; absent members are left out, `null` clears (Graph keeps
 * whatever a PATCH does not name). All-day events are placed at midnight in `allDayZone`.
 */
export function graphProperties(fields: EventFields, allDayZone: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  if (fields.title !== undefined) properties.subject = fields.title;
  if (fields.description !== undefined)
    properties.body = { contentType: 'text', content: fields.description ?? '' };
  // Setting `location` replaces the whole `locations` collection; an empty name removes it.
  if (fields.location !== undefined) properties.location = { displayName: fields.location ?? '' };
  if (fields.timing !== undefined) Object.assign(properties, graphTiming(fields.timing, allDayZone));
  if (fields.freeBusyStatus !== undefined) properties.showAs = fields.freeBusyStatus;
  if (fields.privacy !== undefined)
    properties.sensitivity = fields.privacy === 'private' ? 'private' : 'normal';
  // One reminder per event (checked before writing: domain/writeAlerts.ts).
  if (fields.alerts !== undefined) {
    const [alert] = fields.alerts;
    Object.assign(
      properties,
      alert === undefined
        ? { isReminderOn: false }
        : { isReminderOn: true, reminderMinutesBeforeStart: alert.minutesBefore },
    );
  }
  return properties;
}

function graphTiming(timing: EventTiming, allDayZone: string): Record<string, unknown> {
  if (timing.allDay) {
    // Graph wants all-day events from midnight to midnight, both in one zone.
    const timeZone = graphZoneName(allDayZone);
    return {
      isAllDay: true,
      start: { dateTime: `${timing.startDate}T00:00:00`, timeZone },
      end: { dateTime: `${timing.endDate}T00:00:00`, timeZone },
    };
  }
  const timeZone = graphZoneName(timing.timeZone);
  return {
    isAllDay: false,
    start: { dateTime: timing.start, timeZone },
    end: { dateTime: timing.end, timeZone },
  };
}

/** A series' patternedRecurrence: the same rule as its RRULE, counted in the event's own zone. */
export function graphRecurrence(
  recurrence: EventRecurrence,
  timing: EventTiming,
  allDayZone: string,
): Record<string, unknown> {
  return {
    pattern: { ...graphPattern(recurrence), interval: recurrence.interval },
    range: {
      startDate: timing.allDay ? timing.startDate : timing.start.slice(0, 10),
      recurrenceTimeZone: graphZoneName(timing.allDay ? allDayZone : timing.timeZone),
      ...(recurrence.count !== undefined
        ? { type: 'numbered', numberOfOccurrences: recurrence.count }
        : recurrence.until !== undefined
          ? { type: 'endDate', endDate: recurrence.until }
          : { type: 'noEnd' }),
    },
  };
}

/**
 * The pattern's type and what it needs: weeks counted from Monday as in the RRULE; months by
 * day or by weekday and its index (`first` … `last`); years on a month and day.
 */
function graphPattern(recurrence: EventRecurrence): Record<string, unknown> {
  const { frequency, daysOfWeek, position, dayOfMonth, month } = recurrence;
  switch (frequency) {
    case 'daily':
      return { type: 'daily' };
    case 'weekly':
      return { type: 'weekly', daysOfWeek, firstDayOfWeek: 'monday' };
    case 'monthly':
      return position === undefined
        ? { type: 'absoluteMonthly', dayOfMonth }
        : { type: 'relativeMonthly', daysOfWeek, index: position };
    case 'yearly':
      return { type: 'absoluteYearly', month, dayOfMonth };
  }
}
