/**
 * iCalendar DATE / DATE-TIME values as Temporal values. A TZID names an IANA zone when it can
 * (`resolveTzid`); otherwise the file's own VTIMEZONE computes the instant; never floating.
 */
import ICAL from 'ical.js';
import { AppError } from '../../errors.ts';
import { type Budget, unlimitedBudget } from '../budget.ts';
import { resolveTzid } from '../time/zones.ts';
import { customZoneOffsets, type OffsetAt } from './customZone.ts';
import type { Component } from './parse.ts';

type Property = InstanceType<typeof ICAL.Property>;
export type IcalValue = InstanceType<typeof ICAL.Time>;

/** Where a wall-clock time lives: an IANA zone, or a zone only the file's VTIMEZONE defines. */
export type Zone = { kind: 'iana'; id: string } | { kind: 'vtimezone'; tzid: string; offsetAt: OffsetAt };

/** A value as written: a date, or a wall-clock time in a zone (no zone = floating). */
export type IcalTime =
  | { kind: 'date'; date: Temporal.PlainDate }
  | { kind: 'dateTime'; local: Temporal.PlainDateTime; zone?: Zone };

/** A placed occurrence start: all-day, floating, or zoned (VTIMEZONE-only zones as Etc/UTC). */
export type Point =
  | { kind: 'date'; date: Temporal.PlainDate }
  | { kind: 'floating'; local: Temporal.PlainDateTime }
  | { kind: 'zoned'; zdt: Temporal.ZonedDateTime };

export type ZoneLookup = (tzid: string) => Zone;

export const utcZone: Zone = { kind: 'iana', id: 'Etc/UTC' };

/**
 * TZID → zone, preferring IANA data over the file's VTIMEZONE (which is then never evaluated);
 * a VTIMEZONE is read on first use, within the budget; throws for unknown or unusable zones.
 */
export function zoneLookup(vtimezones: Component[], budget: Budget = unlimitedBudget()): ZoneLookup {
  const defined = new Map<string, Component>();
  for (const component of vtimezones) {
    const tzid = component.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string' && tzid !== '' && !defined.has(tzid)) defined.set(tzid, component);
  }
  const read = new Map<string, Zone | AppError>();
  return (tzid) => {
    const iana = resolveTzid(tzid);
    if (iana !== undefined) return { kind: 'iana', id: iana };
    const component = defined.get(tzid);
    if (component === undefined) throw new AppError('invalid_request', `unknown time zone "${tzid}"`);
    if (!read.has(tzid)) {
      try {
        read.set(tzid, { kind: 'vtimezone', tzid, offsetAt: customZoneOffsets(component, tzid, budget) });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        read.set(tzid, error);
      }
    }
    const zone = read.get(tzid)!;
    if (zone instanceof AppError) throw zone;
    return zone;
  };
}

const dateForm = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTimeForm = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z?)$/;

/** One raw jCal value ("2024-06-11", "2024-06-11T03:00:00Z") of a property with an optional TZID. */
export function parseTimeValue(raw: unknown, tzid: string | undefined, zones: ZoneLookup): IcalTime {
  const text = typeof raw === 'string' ? raw : '';
  const date = dateForm.exec(text);
  if (date !== null) {
    return { kind: 'date', date: plain(() => Temporal.PlainDate.from(fields(date), { overflow: 'reject' })) };
  }
  const dateTime = dateTimeForm.exec(text);
  if (dateTime === null) throw new AppError('invalid_request', `malformed date or time "${text}"`);
  const [hour, minute, second] = [4, 5, 6].map((index) => Number(dateTime[index]));
  const local = plain(() =>
    Temporal.PlainDateTime.from(
      // A leap second (:60) is read as :59.
      { ...fields(dateTime), hour, minute, second: Math.min(second ?? 0, 59) },
      { overflow: 'reject' },
    ),
  );
  if (dateTime[7] === 'Z') return { kind: 'dateTime', local, zone: utcZone };
  return tzid === undefined ? { kind: 'dateTime', local } : { kind: 'dateTime', local, zone: zones(tzid) };
}

function fields(match: RegExpExecArray): { year: number; month: number; day: number } {
  return { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
}

function plain<T>(make: () => T): T {
  try {
    return make();
  } catch {
    throw new AppError('invalid_request', 'malformed date or time (no such day or hour)');
  }
}

/** The TZID parameter of a property, if any. */
export function tzidOf(property: Property): string | undefined {
  const tzid = property.getFirstParameter('tzid');
  return typeof tzid === 'string' && tzid !== '' ? tzid : undefined;
}

/** Every value of a DATE / DATE-TIME property (EXDATE and RDATE take comma lists). */
export function readTimes(property: Property, zones: ZoneLookup): IcalTime[] {
  const tzid = tzidOf(property);
  return rawValues(property).map((raw) => parseTimeValue(raw, tzid, zones));
}

/** The first value of a DATE / DATE-TIME property. */
export function readTime(property: Property, zones: ZoneLookup): IcalTime {
  const [time] = readTimes(property, zones);
  if (time === undefined)
    throw new AppError('invalid_request', `${property.name.toUpperCase()} has no value`);
  return time;
}

/** jCal values as stored (strings, or [start, end] pairs for PERIOD), without ical.js decoration. */
export function rawValues(property: Property): unknown[] {
  return (property.toJSON() as unknown[]).slice(3);
}

/** The instant a wall-clock time stands for; gaps and overlaps resolve as RFC 5545 says. */
export function instantOf(local: Temporal.PlainDateTime, zone: Zone): Temporal.Instant {
  if (zone.kind === 'iana')
    return local.toZonedDateTime(zone.id, { disambiguation: 'compatible' }).toInstant();
  const offsetSeconds = zone.offsetAt(local);
  return Temporal.Instant.from(`${local.toString()}Z`).subtract({ seconds: offsetSeconds });
}

/** The zone occurrences in `zone` are reported in: VTIMEZONE-only zones report in Etc/UTC. */
export function reportedZoneId(zone: Zone): string {
  return zone.kind === 'iana' ? zone.id : 'Etc/UTC';
}

type ZonedPoint = Extract<Point, { kind: 'zoned' }>;

/** A wall-clock time in a zone as a placed point. */
export function zonedPoint(local: Temporal.PlainDateTime, zone: Zone): ZonedPoint {
  if (zone.kind === 'iana') {
    return { kind: 'zoned', zdt: local.toZonedDateTime(zone.id, { disambiguation: 'compatible' }) };
  }
  return { kind: 'zoned', zdt: instantOf(local, zone).toZonedDateTimeISO(reportedZoneId(zone)) };
}

/** A value placed on its own terms. */
export function pointOf(time: IcalTime): Point {
  if (time.kind === 'date') return time;
  return time.zone === undefined
    ? { kind: 'floating', local: time.local }
    : zonedPoint(time.local, time.zone);
}

/** The local date a value names; UTC values are read in the calendar's zone when it has one. */
export function localDateOf(time: IcalTime, defaultZone: string | undefined): Temporal.PlainDate {
  if (time.kind === 'date') return time.date;
  if (isUtc(time.zone) && defaultZone !== undefined) {
    return instantOf(time.local, utcZone).toZonedDateTimeISO(defaultZone).toPlainDate();
  }
  return time.local.toPlainDate();
}

export function isUtc(zone: Zone | undefined): boolean {
  return zone?.kind === 'iana' && zone.id === 'Etc/UTC';
}

/** Identity of an occurrence start: the instant for zoned points, else the local value. */
export function keyOf(point: Point): string {
  if (point.kind === 'zoned') return point.zdt.toInstant().toString();
  return point.kind === 'floating' ? point.local.toString({ smallestUnit: 'second' }) : point.date.toString();
}

/** Milliseconds for ordering and window checks (floating and dates read as if UTC). */
export function orderOf(point: Point): number {
  if (point.kind === 'zoned') return point.zdt.epochMilliseconds;
  const local = point.kind === 'floating' ? point.local : point.date.toPlainDateTime();
  return local.toZonedDateTime('UTC').epochMilliseconds;
}

/** The wall-clock reading of a point (dates at midnight). */
export function wallOf(point: Point): Temporal.PlainDateTime {
  if (point.kind === 'zoned') return point.zdt.toPlainDateTime();
  return point.kind === 'floating' ? point.local : point.date.toPlainDateTime();
}

/** A date, or a wall-clock time (in UTC when `utc`, else floating until a TZID is added). */
export function icalValue(local: Temporal.PlainDateTime | Temporal.PlainDate, utc = false): IcalValue {
  if (local instanceof Temporal.PlainDate) {
    return ICAL.Time.fromData({ year: local.year, month: local.month, day: local.day, isDate: true });
  }
  const data = {
    year: local.year,
    month: local.month,
    day: local.day,
    hour: local.hour,
    minute: local.minute,
    second: local.second,
  };
  return utc ? ICAL.Time.fromData(data, ICAL.Timezone.utcTimezone) : ICAL.Time.fromData(data);
}
