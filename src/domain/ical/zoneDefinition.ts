/**
 * A VTIMEZONE for an IANA zone, written from Temporal's own rules: every offset change from the
 * year before `around` to two years after `through` (a series' last date) as its own STANDARD or
 * DAYLIGHT part, so servers and clients that read the definition place times exactly as the zone
 * does. Pure.
 */
import ICAL from 'ical.js';
import type { Component } from './parse.ts';
import { icalValue } from './times.ts';

const offsetOf = (nanoseconds: number) => ICAL.UtcOffset.fromSeconds(Math.round(nanoseconds / 1e9));

function part(
  kind: 'standard' | 'daylight',
  local: Temporal.PlainDateTime,
  from: number,
  to: number,
): Component {
  const component = new ICAL.Component(kind);
  component.addPropertyWithValue('dtstart', icalValue(local));
  component.addPropertyWithValue('tzoffsetfrom', offsetOf(from));
  component.addPropertyWithValue('tzoffsetto', offsetOf(to));
  return component;
}

export function zoneDefinition(
  zone: string,
  around: Temporal.PlainDate,
  through: Temporal.PlainDate = around,
): Component {
  const definition = new ICAL.Component('vtimezone');
  definition.addPropertyWithValue('tzid', zone);
  const first = Temporal.PlainDate.from({ year: around.year - 1, month: 1, day: 1 }).toZonedDateTime(zone);
  const last = Temporal.PlainDate.from({ year: through.year + 2, month: 1, day: 1 }).toZonedDateTime(zone);
  // The offset in force at the start of the range, then each change within it.
  definition.addSubcomponent(
    part('standard', first.toPlainDateTime(), first.offsetNanoseconds, first.offsetNanoseconds),
  );
  let cursor = first;
  for (;;) {
    const next = cursor.getTimeZoneTransition('next');
    if (next === null || Temporal.ZonedDateTime.compare(next, last) >= 0) break;
    const before = next.subtract({ nanoseconds: 1 }).offsetNanoseconds;
    const after = next.offsetNanoseconds;
    // DTSTART of a part is the wall-clock time of the change on the old offset.
    const local = next
      .toInstant()
      .toZonedDateTimeISO(next.subtract({ nanoseconds: 1 }).offset)
      .toPlainDateTime();
    definition.addSubcomponent(part(after > before ? 'daylight' : 'standard', local, before, after));
    cursor = next;
  }
  return definition;
}
