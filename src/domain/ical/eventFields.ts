/**
 * Writing the fields of one VEVENT (EventFields → properties) and the date-time values they
 * need: a zoned time as `TZID=<IANA>` with a VTIMEZONE in the object, UTC as `…Z`, whole days
 * as VALUE=DATE. Pure.
 */
import ICAL from 'ical.js';
import type { EventFields } from '../eventChanges.ts';
import type { EventTiming } from '../eventTiming.ts';
import { resolveTzid } from '../time/zones.ts';
import { setAlarms } from './alerts.ts';
import type { Component } from './parse.ts';
import { type IcalValue, icalValue } from './times.ts';
import { zoneDefinition } from './zoneDefinition.ts';

type Property = InstanceType<typeof ICAL.Property>;

/** An instant as a UTC DATE-TIME value, to the second (DTSTAMP, LAST-MODIFIED, CREATED). */
export const utcStamp = (now: Temporal.Instant): IcalValue =>
  icalValue(now.toZonedDateTimeISO('UTC').toPlainDateTime().round('second'), true);

/** A date or date-time property; `tzid` is written only for a wall-clock time that is not UTC. */
export function timeProperty(name: string, value: IcalValue, tzid: string | undefined): Property {
  const property = new ICAL.Property(name);
  property.setValue(value);
  if (tzid !== undefined && !value.isDate && value.zone !== ICAL.Timezone.utcTimezone) {
    property.setParameter('tzid', tzid);
  }
  return property;
}

/** Whether a zone is UTC under any spelling: such times are written in the `Z` form. */
export const isUtcZone = (zone: string): boolean => resolveTzid(zone) === 'Etc/UTC';

/** Adds a VTIMEZONE for `zone` unless the object defines that TZID already. */
function ensureZone(calendar: Component, zone: string, around: Temporal.PlainDate): void {
  const known = calendar
    .getAllSubcomponents('vtimezone')
    .some((definition) => definition.getFirstPropertyValue('tzid') === zone);
  if (!known) calendar.addSubcomponent(zoneDefinition(zone, around));
}

function setTiming(calendar: Component, event: Component, timing: EventTiming): void {
  for (const name of ['dtstart', 'dtend', 'duration']) event.removeAllProperties(name);
  if (timing.allDay) {
    event.addProperty(
      timeProperty('dtstart', icalValue(Temporal.PlainDate.from(timing.startDate)), undefined),
    );
    event.addProperty(timeProperty('dtend', icalValue(Temporal.PlainDate.from(timing.endDate)), undefined));
    return;
  }
  const utc = isUtcZone(timing.timeZone);
  const start = Temporal.PlainDateTime.from(timing.start);
  const end = Temporal.PlainDateTime.from(timing.end);
  if (!utc) ensureZone(calendar, timing.timeZone, start.toPlainDate());
  event.addProperty(timeProperty('dtstart', icalValue(start, utc), timing.timeZone));
  event.addProperty(timeProperty('dtend', icalValue(end, utc), timing.timeZone));
}

/** Replaces a text property; `null` (or empty text) removes it, `undefined` leaves it. */
export function setText(event: Component, name: string, value: string | null | undefined): void {
  if (value === undefined) return;
  event.removeAllProperties(name);
  if (value !== null && value !== '') event.addPropertyWithValue(name, value);
}

/** Writes the given fields into `event`; a timing may add a VTIMEZONE to `calendar`. */
export function applyFields(calendar: Component, event: Component, fields: EventFields): void {
  setText(event, 'summary', fields.title);
  setText(event, 'description', fields.description);
  setText(event, 'location', fields.location);
  if (fields.privacy !== undefined) setText(event, 'class', fields.privacy.toUpperCase());
  if (fields.freeBusyStatus !== undefined) {
    setText(event, 'transp', fields.freeBusyStatus === 'free' ? 'TRANSPARENT' : 'OPAQUE');
  }
  if (fields.timing !== undefined) setTiming(calendar, event, fields.timing);
  if (fields.alerts !== undefined) setAlarms(event, fields.alerts);
}

/** Marks a component as changed now; organizer-side changes also raise SEQUENCE (RFC 5545 §3.8.7.4). */
export function touch(event: Component, now: Temporal.Instant, organizerChange: boolean): void {
  event.updatePropertyWithValue('dtstamp', utcStamp(now));
  event.updatePropertyWithValue('last-modified', utcStamp(now));
  if (organizerChange) {
    const sequence = Number(event.getFirstPropertyValue('sequence') ?? 0);
    event.updatePropertyWithValue('sequence', Number.isFinite(sequence) ? sequence + 1 : 1);
  }
}
