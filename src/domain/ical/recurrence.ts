/**
 * The recurrence set of a master VEVENT: DTSTART, RRULE (iterated by ical.js in the start's
 * wall-clock time), RDATE, minus EXDATE. Work is bounded: generation stops past the window and
 * after a fixed number of iteration steps per rule, and every step and RDATE/EXDATE value is
 * spent from the work's budget, so neither one rule nor many can hang a request.
 */
import ICAL from 'ical.js';
import { AppError } from '../../errors.ts';
import { type Budget, spend } from '../budget.ts';
import { spanBetween, spanFromDuration } from './durations.ts';
import type { Component } from './parse.ts';
import { ruleStarts } from './ruleIterator.ts';
import {
  type IcalTime,
  instantOf,
  isUtc,
  keyOf,
  localDateOf,
  orderOf,
  type Point,
  parseTimeValue,
  rawValues,
  readTimes,
  reportedZoneId,
  tzidOf,
  utcZone,
  type ZoneLookup,
  zonedPoint,
} from './times.ts';

export interface SeriesInstance {
  point: Point;
  /** The instance's identity (its RECURRENCE-ID): instant for zoned series, else local value. */
  key: string;
  order: number;
  /** An RDATE PERIOD's own span. */
  span?: Temporal.Duration;
}

export interface SeriesLimits {
  /** Rule instances before this order (ms) cannot reach the window and are not kept. */
  keepFrom: number;
  /** Generation stops at the first instance whose order (ms) reaches this. */
  stopOrder: number;
  /** Iteration steps allowed before the series is given up. */
  maxIterations: number;
  budget: Budget;
}

/**
 * Places any value (EXDATE, RDATE, RECURRENCE-ID) on the series' clock: zoned series compare
 * instants, floating ones wall-clock times, all-day ones dates.
 */
export function placeInSeries(time: IcalTime, start: IcalTime, defaultZone: string | undefined): Point {
  if (start.kind === 'date') return { kind: 'date', date: localDateOf(time, defaultZone) };
  const local = time.kind === 'date' ? time.date.toPlainDateTime(start.local.toPlainTime()) : time.local;
  if (start.zone === undefined) return { kind: 'floating', local };
  if (time.kind === 'dateTime' && time.zone !== undefined) {
    const instant = instantOf(time.local, time.zone);
    return { kind: 'zoned', zdt: instant.toZonedDateTimeISO(reportedZoneId(start.zone)) };
  }
  return zonedPoint(local, start.zone);
}

export function seriesInstances(
  master: Component,
  start: IcalTime,
  zones: ZoneLookup,
  defaultZone: string | undefined,
  limits: SeriesLimits,
): SeriesInstance[] {
  const instances = new Map<string, SeriesInstance>();
  const add = (point: Point, span?: Temporal.Duration) => {
    const key = keyOf(point);
    if (!instances.has(key)) instances.set(key, { point, key, order: orderOf(point), ...(span && { span }) });
  };
  add(placeInSeries(start, start, defaultZone));
  for (const rrule of master.getAllProperties('rrule')) {
    for (const point of ruleInstances(rrule, start, zones, defaultZone, limits)) add(point);
  }
  for (const rdate of master.getAllProperties('rdate')) {
    for (const { time, span } of rdateValues(rdate, zones, defaultZone)) {
      spend(limits.budget, 'ruleSteps');
      add(placeInSeries(time, start, defaultZone), span);
    }
  }
  const excludedKeys = new Set<string>();
  const excludedDates = new Set<string>();
  for (const exdate of master.getAllProperties('exdate')) {
    for (const time of readTimes(exdate, zones)) {
      spend(limits.budget, 'ruleSteps');
      // A DATE exclusion knocks out every instance on that local date.
      if (time.kind === 'date' && start.kind === 'dateTime') excludedDates.add(time.date.toString());
      else excludedKeys.add(keyOf(placeInSeries(time, start, defaultZone)));
    }
  }
  return [...instances.values()]
    .filter(({ key, point }) => !excludedKeys.has(key) && !excludedDates.has(localDate(point).toString()))
    .sort((a, b) => a.order - b.order);
}

function localDate(point: Point): Temporal.PlainDate {
  if (point.kind === 'zoned') return point.zdt.toPlainDate();
  return point.kind === 'floating' ? point.local.toPlainDate() : point.date;
}

type Property = InstanceType<typeof ICAL.Property>;

/** Any zone is within 26 hours of UTC: wall-clock times this far out need no zone arithmetic. */
const wallMargin = Temporal.Duration.from({ hours: 26 });
const wallAt = (ms: number) =>
  Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO('UTC').toPlainDateTime();

function ruleInstances(
  property: Property,
  start: IcalTime,
  zones: ZoneLookup,
  defaultZone: string | undefined,
  limits: SeriesLimits,
): Point[] {
  const recur = property.getFirstValue();
  if (!(recur instanceof ICAL.Recur)) throw new AppError('invalid_request', 'malformed RRULE');
  const rawUntil = (rawValues(property)[0] as { until?: unknown } | undefined)?.until;
  const until = rawUntil === undefined ? undefined : parseTimeValue(rawUntil, undefined, zones);
  const isPastUntil = untilCheck(until, start, defaultZone);
  const skipBefore = wallAt(limits.keepFrom).subtract(wallMargin);
  const stopAt = wallAt(limits.stopOrder).add(wallMargin);
  const first = start.kind === 'date' ? start.date.toPlainDateTime() : start.local;

  const points: Point[] = [];
  for (const local of ruleStarts(recur, first, start.kind === 'date', limits.maxIterations, limits.budget)) {
    if (isPastUntil(local) || Temporal.PlainDateTime.compare(local, stopAt) >= 0) break;
    if (Temporal.PlainDateTime.compare(local, skipBefore) < 0) continue;
    const point = placeInSeries({ kind: 'dateTime', local }, start, defaultZone);
    const order = orderOf(point);
    if (order >= limits.stopOrder) break;
    if (order >= limits.keepFrom) points.push(point);
  }
  return points;
}

/** UNTIL is inclusive; a UTC UNTIL is an instant for zoned series and a date for all-day ones. */
function untilCheck(
  until: IcalTime | undefined,
  start: IcalTime,
  defaultZone: string | undefined,
): (local: Temporal.PlainDateTime) => boolean {
  if (until === undefined) return () => false;
  if (start.kind === 'date' || until.kind === 'date') {
    const lastDate = localDateOf(until, defaultZone);
    return (local) => Temporal.PlainDate.compare(local.toPlainDate(), lastDate) > 0;
  }
  const zone = start.zone;
  if (isUtc(until.zone) && zone !== undefined) {
    const last = instantOf(until.local, utcZone);
    const surelyBefore = until.local.subtract(wallMargin);
    const surelyAfter = until.local.add(wallMargin);
    return (local) => {
      if (Temporal.PlainDateTime.compare(local, surelyBefore) < 0) return false;
      if (Temporal.PlainDateTime.compare(local, surelyAfter) > 0) return true;
      return Temporal.Instant.compare(instantOf(local, zone), last) > 0;
    };
  }
  return (local) => Temporal.PlainDateTime.compare(local, until.local) > 0;
}

interface Rdate {
  time: IcalTime;
  span?: Temporal.Duration;
}

/** RDATE values: dates, date-times, or PERIODs (start/end or start/duration). */
function rdateValues(property: Property, zones: ZoneLookup, defaultZone: string | undefined): Rdate[] {
  const tzid = tzidOf(property);
  return rawValues(property).map((raw) => {
    if (!Array.isArray(raw)) return { time: parseTimeValue(raw, tzid, zones) };
    const [from, to] = raw as unknown[];
    const time = parseTimeValue(from, tzid, zones);
    if (typeof to === 'string' && /^[+-]?P/.test(to)) {
      return { time, span: spanFromDuration(ICAL.Duration.fromString(to), time.kind === 'date') };
    }
    return { time, span: spanBetween(time, parseTimeValue(to, tzid, zones), defaultZone) };
  });
}
