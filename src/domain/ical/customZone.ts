/**
 * A VTIMEZONE no IANA name stands for, read here within bounds rather than by ical.js (whose
 * Timezone expands every rule from its DTSTART with no limit: a zone repeating FREQ=SECONDLY
 * takes all memory). Changes are generated lazily up to the year asked, through the same bounded
 * rule iterator as events, each one spent from the budget; rules repeating more often than
 * monthly are refused, so events in such a zone are reported as skipped.
 */
import ICAL from 'ical.js';
import { AppError } from '../../errors.ts';
import { type Budget, BudgetExceeded, spend } from '../budget.ts';
import type { Component } from './parse.ts';
import { ruleStarts } from './ruleIterator.ts';

type Recur = InstanceType<typeof ICAL.Recur>;

/** Seconds east of UTC at a wall-clock time of the zone. */
export type OffsetAt = (local: Temporal.PlainDateTime) => number;

interface Change {
  /** Wall-clock time of the change on the old offset. */
  onset: Temporal.PlainDateTime;
  from: number;
  to: number;
}

interface Part {
  from: number;
  to: number;
  /** Onsets not generated yet, in order; `next` ends when the part has no more. */
  onsets: Iterator<Temporal.PlainDateTime>;
  pending: Temporal.PlainDateTime | undefined;
}

const maxParts = 1_000;
/** Steps one zone rule may take: a yearly rule from 1600 on is far below it. */
const maxRuleSteps = 50_000;
const allowedFrequencies = new Set(['YEARLY', 'MONTHLY']);

const unusable = (tzid: string, why: string) =>
  new AppError('invalid_request', `time zone "${tzid}" cannot be used: ${why}`);

const wallOf = (value: unknown): Temporal.PlainDateTime | undefined => {
  if (!(value instanceof ICAL.Time)) return undefined;
  return new Temporal.PlainDateTime(
    value.year,
    value.month,
    value.day,
    value.hour,
    value.minute,
    value.second,
  );
};

const offsetOf = (component: Component, name: string): number => {
  const value = component.getFirstPropertyValue(name);
  if (!(value instanceof ICAL.UtcOffset)) throw new Error(`${name.toUpperCase()} is missing`);
  return value.toSeconds();
};

export function customZoneOffsets(zone: Component, tzid: string, budget: Budget): OffsetAt {
  const components = zone.getAllSubcomponents().filter((c) => c.name === 'standard' || c.name === 'daylight');
  if (components.length === 0) throw unusable(tzid, 'it has no STANDARD or DAYLIGHT part');
  if (components.length > maxParts) throw unusable(tzid, `it has more than ${maxParts} parts`);
  const parts = components.map((component) => partOf(component, tzid, budget));
  const changes: Change[] = [];
  let coveredThrough = Number.NEGATIVE_INFINITY;
  // A zone that failed once (a rule past its steps, the budget spent) stays failed.
  let failure: unknown;

  // Every change whose onset falls in or before `year`, in onset order.
  const cover = (year: number) => {
    if (year <= coveredThrough) return;
    for (const part of parts) {
      while (part.pending !== undefined && part.pending.year <= year) {
        spend(budget, 'zoneTransitions');
        changes.push({ onset: part.pending, from: part.from, to: part.to });
        part.pending = nextOnset(part, tzid);
      }
    }
    changes.sort((a, b) => Temporal.PlainDateTime.compare(a.onset, b.onset));
    coveredThrough = year;
  };

  return (local) => {
    if (failure !== undefined) throw failure;
    try {
      cover(local.year);
    } catch (error) {
      failure = error;
      throw error;
    }
    // The last change at or before `local`; a time in a gap reads with the offset before it,
    // a repeated time with the earlier (RFC 5545 §3.3.5).
    let low = 0;
    let high = changes.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (Temporal.PlainDateTime.compare(changes[middle]!.onset, local) <= 0) low = middle + 1;
      else high = middle;
    }
    const change = changes[low - 1];
    if (change === undefined) return changes[0]?.from ?? parts[0]!.from;
    const gapEnd = change.onset.add({ seconds: Math.max(0, change.to - change.from) });
    return Temporal.PlainDateTime.compare(local, gapEnd) < 0 ? change.from : change.to;
  };
}

function partOf(component: Component, tzid: string, budget: Budget): Part {
  try {
    const start = wallOf(component.getFirstPropertyValue('dtstart'));
    if (start === undefined) throw new Error('DTSTART is missing');
    const from = offsetOf(component, 'tzoffsetfrom');
    const to = offsetOf(component, 'tzoffsetto');
    const onsets = [start];
    for (const rdate of component.getAllProperties('rdate')) {
      for (const value of rdate.getValues()) {
        const onset = wallOf(value);
        if (onset !== undefined) onsets.push(onset);
      }
    }
    onsets.sort(Temporal.PlainDateTime.compare);
    const rules = component.getAllProperties('rrule').map((property) => property.getFirstValue() as Recur);
    for (const rule of rules) {
      if (!allowedFrequencies.has(rule.freq)) throw new Error(`a part repeats ${rule.freq.toLowerCase()}`);
    }
    const part: Part = { from, to, onsets: merged(onsets, rules, start, from, budget), pending: undefined };
    part.pending = nextOnset(part, tzid);
    return part;
  } catch (error) {
    throw error instanceof AppError || error instanceof BudgetExceeded
      ? error
      : unusable(tzid, (error as Error).message);
  }
}

function nextOnset(part: Part, tzid: string): Temporal.PlainDateTime | undefined {
  try {
    const next = part.onsets.next();
    return next.done ? undefined : next.value;
  } catch (error) {
    throw error instanceof BudgetExceeded ? error : unusable(tzid, (error as Error).message);
  }
}

/** DTSTART and RDATEs merged in order with each RRULE's instances up to its UNTIL or COUNT. */
function* merged(
  dates: Temporal.PlainDateTime[],
  rules: Recur[],
  start: Temporal.PlainDateTime,
  from: number,
  budget: Budget,
): Generator<Temporal.PlainDateTime> {
  const sources = [dates.values(), ...rules.map((rule) => ruleOnsets(rule, start, from, budget))];
  const heads = sources.map((source) => source.next());
  let last: Temporal.PlainDateTime | undefined;
  for (;;) {
    let index = -1;
    heads.forEach((head, i) => {
      const current = heads[index];
      if (
        !head.done &&
        (current === undefined ||
          current.done ||
          Temporal.PlainDateTime.compare(head.value, current.value) < 0)
      ) {
        index = i;
      }
    });
    const head = heads[index];
    if (head === undefined || head.done) return;
    if (last === undefined || Temporal.PlainDateTime.compare(head.value, last) !== 0) yield head.value;
    last = head.value;
    heads[index] = sources[index]!.next();
  }
}

function* ruleOnsets(
  rule: Recur,
  start: Temporal.PlainDateTime,
  from: number,
  budget: Budget,
): Generator<Temporal.PlainDateTime> {
  // UNTIL is UTC by the RFC, though some writers give a wall-clock time.
  const until = rule.until === null ? undefined : wallOf(rule.until);
  const untilUtc = rule.until?.zone === ICAL.Timezone.utcTimezone;
  for (const onset of ruleStarts(rule, start, false, maxRuleSteps, budget)) {
    const compared = untilUtc ? onset.subtract({ seconds: from }) : onset;
    if (until !== undefined && Temporal.PlainDateTime.compare(compared, until) > 0) return;
    yield onset;
  }
}
