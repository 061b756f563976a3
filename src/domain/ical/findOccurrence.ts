/**
 * One occurrence of one event in an iCalendar text, for a fresh read before a write: expand a
 * few days around the occurrence's original start (or the series' DTSTART) and pick it out;
 * an override moved far from its original slot is found by a second, wider expansion.
 */
import ICAL from 'ical.js';
import type { Budget } from '../budget.ts';
import type { ProviderOccurrence } from '../providerFacts.ts';
import { type ExpandOptions, expandIcs } from './expand.ts';
import { parseCalendar } from './parse.ts';

const utcMidnight = (date: Temporal.PlainDate) => date.toZonedDateTime('UTC').toInstant();

/** A recurrence id as expandIcs writes it (instant, floating date-time or date), as an instant near it. */
function anchorOf(recurrenceId: string): Temporal.Instant | undefined {
  for (const read of [
    () => Temporal.Instant.from(recurrenceId),
    () => Temporal.PlainDateTime.from(recurrenceId).toZonedDateTime('UTC').toInstant(),
    () => utcMidnight(Temporal.PlainDate.from(recurrenceId)),
  ]) {
    try {
      return read();
    } catch {}
  }
  return undefined;
}

/** The date of the series' DTSTART (the master's, else any component's with that UID). */
function seriesStart(ics: string, uid: string, budget?: Budget): Temporal.Instant | undefined {
  const withUid = parseCalendar(ics, budget).components.filter(
    (component) => component.name === 'vevent' && component.getFirstPropertyValue('uid') === uid,
  );
  const master = withUid.find((event) => !event.hasProperty('recurrence-id')) ?? withUid[0];
  const start = master?.getFirstPropertyValue('dtstart');
  if (!(start instanceof ICAL.Time)) return undefined;
  return utcMidnight(new Temporal.PlainDate(start.year, start.month, start.day));
}

export function findOccurrence(
  ics: string,
  uid: string,
  recurrenceId: string | undefined,
  options: Omit<ExpandOptions, 'window'>,
): ProviderOccurrence | undefined {
  const anchor = recurrenceId === undefined ? seriesStart(ics, uid, options.budget) : anchorOf(recurrenceId);
  if (anchor === undefined) return undefined;
  for (const days of [2, 400]) {
    const window = { start: anchor.subtract({ hours: 24 * days }), end: anchor.add({ hours: 24 * days }) };
    // expandIcs returns occurrences in time order, so the first match is the series' first.
    const match = expandIcs(ics, { ...options, window }).occurrences.find(
      (occurrence) =>
        occurrence.providerEventId === uid &&
        (recurrenceId === undefined || occurrence.recurrenceId === recurrenceId),
    );
    if (match) return match;
  }
  return undefined;
}
