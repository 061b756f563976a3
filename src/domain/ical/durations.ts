/**
 * How long an occurrence lasts, as a Temporal duration that is nominal in the start's zone
 * (JSCalendar): DTEND wins over DURATION; without either, RFC 5545's defaults apply.
 */
import ICAL from 'ical.js';
import type { Component } from './parse.ts';
import { type IcalTime, localDateOf, readTime, type ZoneLookup, zonedPoint } from './times.ts';

type IcalDuration = InstanceType<typeof ICAL.Duration>;

const zero = new Temporal.Duration();
const oneDay = Temporal.Duration.from({ days: 1 });

/** The span of a VEVENT that starts at `start`; undefined when it has neither DTEND nor DURATION. */
export function declaredSpan(
  component: Component,
  start: IcalTime,
  zones: ZoneLookup,
  defaultZone: string | undefined,
): Temporal.Duration | undefined {
  const dtend = component.getFirstProperty('dtend');
  if (dtend !== null) return spanBetween(start, readTime(dtend, zones), defaultZone);
  const duration = component.getFirstPropertyValue('duration');
  if (duration instanceof ICAL.Duration) return spanFromDuration(duration, start.kind === 'date');
  return undefined;
}

/** RFC 5545 defaults: an all-day event lasts its day, a timed one is an instant. */
export function defaultSpan(start: IcalTime): Temporal.Duration {
  return start.kind === 'date' ? oneDay : zero;
}

/** From a start to an end value, in the start's zone; an end before the start counts as zero. */
export function spanBetween(
  start: IcalTime,
  end: IcalTime,
  defaultZone: string | undefined,
): Temporal.Duration {
  if (start.kind === 'date') {
    // A DATE start with a DATE-TIME end (seen in the wild) lasts until the end's day is over.
    let endDate = localDateOf(end, defaultZone);
    if (end.kind === 'dateTime' && !end.local.toPlainTime().equals(new Temporal.PlainTime())) {
      endDate = endDate.add({ days: 1 });
    }
    return Temporal.Duration.from({ days: Math.max(1, start.date.until(endDate).days) });
  }
  const endLocal = end.kind === 'date' ? end.date.toPlainDateTime() : end.local;
  if (start.zone === undefined) return nonNegative(start.local.until(endLocal, { largestUnit: 'days' }));
  // An end in another zone (or floating, or a date) is measured in the start's zone.
  const from = zonedPoint(start.local, start.zone).zdt;
  const endZone = end.kind === 'dateTime' && end.zone !== undefined ? end.zone : start.zone;
  const to = zonedPoint(endLocal, endZone).zdt.withTimeZone(from.timeZoneId);
  return nonNegative(from.until(to, { largestUnit: 'days' }));
}

/** A DURATION value; all-day starts take whole days. */
export function spanFromDuration(duration: IcalDuration, allDay: boolean): Temporal.Duration {
  const { weeks, days, hours, minutes, seconds } = duration;
  const span = duration.isNegative ? zero : Temporal.Duration.from({ weeks, days, hours, minutes, seconds });
  return allDay ? wholeDays(span) : span;
}

/** A span for an all-day start: whole days, at least one, partial days rounded up. */
export function wholeDays(span: Temporal.Duration): Temporal.Duration {
  const timeSeconds = span.hours * 3600 + span.minutes * 60 + span.seconds;
  const days = span.weeks * 7 + span.days + Math.ceil(timeSeconds / 86400);
  return Temporal.Duration.from({ days: Math.max(1, days) });
}

function nonNegative(duration: Temporal.Duration): Temporal.Duration {
  return duration.sign < 0 ? zero : duration;
}
