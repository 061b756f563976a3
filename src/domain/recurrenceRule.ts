/**
 * A series' rule as an iCalendar RRULE value, as CalDAV objects and Google's recurrence lines
 * hold it. Pure.
 */
import { type EventRecurrence, positions, type Weekday } from './eventRecurrence.ts';
import type { EventTiming } from './eventTiming.ts';

const basicDate = (date: Temporal.PlainDate) => date.toString().replaceAll('-', '');
const dayCode = (day: Weekday) => day.slice(0, 2).toUpperCase();

/** The rule's BY parts: the weekdays, the day of the month, the month. */
function byParts(recurrence: EventRecurrence): string[] {
  const { frequency, daysOfWeek, position, dayOfMonth, month } = recurrence;
  if (frequency === 'weekly') return [`BYDAY=${daysOfWeek.map(dayCode).join(',')}`, 'WKST=MO'];
  if (position !== undefined) {
    const ordinal = position === 'last' ? -1 : positions.indexOf(position) + 1;
    return [`BYDAY=${ordinal}${dayCode(daysOfWeek[0]!)}`];
  }
  return [
    ...(month === undefined ? [] : [`BYMONTH=${month}`]),
    ...(dayOfMonth === undefined ? [] : [`BYMONTHDAY=${dayOfMonth}`]),
  ];
}

/**
 * The rule as an iCalendar RRULE value. UNTIL is inclusive; with a zoned start it must be UTC,
 * so it is the until date at the start's wall-clock time in the event's zone.
 */
export function rruleOf(recurrence: EventRecurrence, timing: EventTiming): string {
  const parts = [`FREQ=${recurrence.frequency.toUpperCase()}`];
  if (recurrence.interval !== 1) parts.push(`INTERVAL=${recurrence.interval}`);
  parts.push(...byParts(recurrence));
  if (recurrence.count !== undefined) parts.push(`COUNT=${recurrence.count}`);
  if (recurrence.until !== undefined) {
    const until = Temporal.PlainDate.from(recurrence.until);
    if (timing.allDay) parts.push(`UNTIL=${basicDate(until)}`);
    else {
      const at = until
        .toPlainDateTime(Temporal.PlainDateTime.from(timing.start).toPlainTime())
        .toZonedDateTime(timing.timeZone, { disambiguation: 'compatible' })
        .toInstant()
        .toString({ smallestUnit: 'second' });
      parts.push(`UNTIL=${at.replaceAll('-', '').replaceAll(':', '')}`);
    }
  }
  return parts.join(';');
}

/**
 * A rule whose series moves to another time of the same days (`from` → `to`, wall-clock in
 * `zone`): a UTC UNTIL is moved with it, so the series keeps exactly the days it had — its
 * last occurrence is neither lost (moved later than UNTIL) nor gained. Other rules as given.
 */
export function ruleMovedInDay(
  rule: string,
  zone: string,
  from: Temporal.PlainTime,
  to: Temporal.PlainTime,
): string {
  return rule.replace(
    /UNTIL=(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/i,
    (_all, year, month, day, hour, minute, second) => {
      const until = Temporal.Instant.from(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`)
        .toZonedDateTimeISO(zone)
        .toPlainDateTime();
      // The last day an occurrence started on by the old clock.
      const lastDay =
        Temporal.PlainTime.compare(until.toPlainTime(), from) >= 0
          ? until.toPlainDate()
          : until.toPlainDate().subtract({ days: 1 });
      const moved = lastDay
        .toPlainDateTime(to)
        .toZonedDateTime(zone, { disambiguation: 'later' })
        .toInstant()
        .toString({ smallestUnit: 'second' });
      return `UNTIL=${moved.replaceAll('-', '').replaceAll(':', '')}`;
    },
  );
}
