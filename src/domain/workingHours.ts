/**
 * A person's working hours: one period of local times on chosen weekdays, in their own zone.
 * The period lies within one local day (start before end; a night shift across midnight cannot
 * be said and is refused), so 09:00 stays 09:00 in their zone across a daylight-saving change,
 * whatever zone the meeting is sought in. Times only: nothing else of a person is here. Pure.
 */
import { AppError, invalidField } from '../errors.ts';
import { type Weekday, weekdays } from './eventRecurrence.ts';
import { minutesOf } from './meetingTimes.ts';
import type { Span } from './occurrences.ts';
import { isIanaZone } from './time/zones.ts';

export interface WorkingHours {
  /** Weekdays in week order, none twice. */
  days: readonly Weekday[];
  /** HH:MM; `end` may be 24:00 (the end of the day). */
  start: string;
  end: string;
  /** IANA zone the times are local to. */
  timeZone: string;
}

export interface WorkingHoursFields {
  days: readonly string[];
  start: string;
  end: string;
  timeZone: string;
}

/** The working hours the fields describe; the first wrong field is refused by name. */
export function parseWorkingHours(fields: WorkingHoursFields): WorkingHours {
  const unknownDay = fields.days.find((day) => !(weekdays as readonly string[]).includes(day));
  if (unknownDay !== undefined) throw invalidField('days', 'days must be weekdays, Monday to Sunday.');
  const days = weekdays.filter((day) => fields.days.includes(day));
  if (days.length === 0) throw invalidField('days', 'Choose at least one working day.');
  const start = minutesOf('start', fields.start);
  const end = minutesOf('end', fields.end);
  if (end <= start) throw invalidField('end', 'end must be after start on the same day (HH:MM).');
  if (!isIanaZone(fields.timeZone)) {
    throw new AppError('invalid_time_zone', 'timeZone must be an IANA time zone such as Europe/Berlin.', {
      details: { field: 'timeZone' },
    });
  }
  return { days, start: fields.start, end: fields.end, timeZone: fields.timeZone };
}

/**
 * Whether the slot starts and ends within the working period of one local day of the person.
 * A local time the zone skips moves forward (as meetingTimes places its periods).
 */
export function withinHours(hours: WorkingHours, slot: Span): boolean {
  const start = minutesOf('start', hours.start);
  const end = minutesOf('end', hours.end);
  const at = (date: Temporal.PlainDate, minutes: number) =>
    date.toPlainDateTime().add({ minutes }).toZonedDateTime(hours.timeZone).epochNanoseconds;
  const day = slot.start.toZonedDateTimeISO(hours.timeZone).toPlainDate();
  return (
    hours.days.includes(weekdays[day.dayOfWeek - 1]!) &&
    at(day, start) <= slot.start.epochNanoseconds &&
    slot.end.epochNanoseconds <= at(day, end)
  );
}
