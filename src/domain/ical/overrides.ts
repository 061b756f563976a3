/**
 * RECURRENCE-ID overrides: which instance each one replaces (matched on the series' clock, so a
 * UTC RECURRENCE-ID finds a zoned instance), and how RANGE=THISANDFUTURE moves later instances.
 */
import { declaredSpan, defaultSpan } from './durations.ts';
import type { Component } from './parse.ts';
import { placeInSeries } from './recurrence.ts';
import {
  type IcalTime,
  keyOf,
  orderOf,
  type Point,
  pointOf,
  readTime,
  wallOf,
  type ZoneLookup,
} from './times.ts';
import { latest } from './versions.ts';

export interface Override {
  component: Component;
  /** Where the override puts its occurrence (its DTSTART, else its RECURRENCE-ID). */
  start: IcalTime;
  span: Temporal.Duration;
  /** The instance it replaces, on the series' clock; its key is the occurrence's recurrence id. */
  original: Point;
  key: string;
  thisAndFuture: boolean;
}

/** Overrides by the key of the instance they replace; without a master, each on its own clock. */
export function readOverrides(
  components: Component[],
  series: { start: IcalTime; span: Temporal.Duration } | undefined,
  zones: ZoneLookup,
  defaultZone: string | undefined,
): Map<string, Override> {
  const versions = new Map<string, { component: Component; original: Point }[]>();
  for (const component of components) {
    const recurrenceId = readTime(component.getFirstProperty('recurrence-id')!, zones);
    const original =
      series === undefined ? pointOf(recurrenceId) : placeInSeries(recurrenceId, series.start, defaultZone);
    const key = keyOf(original);
    versions.set(key, [...(versions.get(key) ?? []), { component, original }]);
  }
  const overrides = new Map<string, Override>();
  for (const [key, candidates] of versions) {
    const component = latest(candidates.map((candidate) => candidate.component))!;
    const original = candidates.find((candidate) => candidate.component === component)!.original;
    const dtstart = component.getFirstProperty('dtstart');
    const start = readTime(dtstart ?? component.getFirstProperty('recurrence-id')!, zones);
    const range = component.getFirstProperty('recurrence-id')!.getFirstParameter('range');
    overrides.set(key, {
      component,
      start,
      // An override that leaves out its end keeps the series' length.
      span: declaredSpan(component, start, zones, defaultZone) ?? series?.span ?? defaultSpan(start),
      original,
      key,
      thisAndFuture: range?.toUpperCase() === 'THISANDFUTURE',
    });
  }
  return overrides;
}

export interface FutureShift {
  override: Override;
  /** Instances after this order (ms) follow the override. */
  from: number;
  /** The override's move in wall-clock time on the series' clock. */
  shift: Temporal.Duration;
  /** The same move in ms of order (negative when instances move earlier). */
  moveMs: number;
}

/** THISANDFUTURE overrides, earliest first. */
export function futureShifts(
  overrides: Iterable<Override>,
  seriesStart: IcalTime,
  defaultZone: string | undefined,
): FutureShift[] {
  const shifts: FutureShift[] = [];
  for (const override of overrides) {
    if (!override.thisAndFuture) continue;
    const movedTo = placeInSeries(override.start, seriesStart, defaultZone);
    const from = orderOf(override.original);
    shifts.push({
      override,
      from,
      shift: wallOf(override.original).until(wallOf(movedTo), { largestUnit: 'days' }),
      moveMs: orderOf(movedTo) - from,
    });
  }
  return shifts.sort((a, b) => a.from - b.from);
}

/** A later instance moved the way a THISANDFUTURE override moved its own. */
export function shifted(point: Point, shift: Temporal.Duration): Point {
  if (point.kind === 'date') return { kind: 'date', date: point.date.add({ days: shift.days }) };
  if (point.kind === 'floating') return { kind: 'floating', local: point.local.add(shift) };
  const local = point.zdt.toPlainDateTime().add(shift);
  return {
    kind: 'zoned',
    zdt: local.toZonedDateTime(point.zdt.timeZoneId, { disambiguation: 'compatible' }),
  };
}
