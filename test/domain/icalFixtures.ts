/**
 * Shared helpers for the iCalendar tests: the project's fixture files (test/fixtures/ical, see its
 * README) and compact views of occurrences.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { type ExpandOptions, expandIcs } from '../../src/domain/ical/expand.ts';
import type { EventsResult, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { assertOccurrenceShape } from '../helpers/occurrenceShape.ts';

const fixtureDirectory = new URL('../fixtures/ical/', import.meta.url);

/** The .ics files of a folder (by default the project's fixtures), sorted. */
export const fixtureNames = (directory = fixtureDirectory): string[] =>
  readdirSync(directory)
    .filter((name) => name.endsWith('.ics'))
    .sort();

export const fixture = (name: string, directory = fixtureDirectory): string =>
  readFileSync(new URL(name, directory), 'utf8');

export const window = (start: string, end: string) => ({
  start: Temporal.Instant.from(start),
  end: Temporal.Instant.from(end),
});

export function expandFixture(
  name: string,
  start: string,
  end: string,
  options: Omit<ExpandOptions, 'window'> = {},
): EventsResult {
  return expandIcs(fixture(name), { ...options, window: window(start, end) });
}

/** The instant an occurrence starts at (zoned occurrences only). */
export const instantOf = (occurrence: ProviderOccurrence): string =>
  Temporal.PlainDateTime.from(occurrence.start).toZonedDateTime(occurrence.timeZone!).toInstant().toString();

/** `start zone duration` of each occurrence, the shape most assertions compare. */
export const timing = (result: EventsResult): string[] =>
  result.occurrences.map((occurrence) =>
    [occurrence.start, occurrence.timeZone ?? 'floating', occurrence.duration].join(' '),
  );

/** Expands a whole calendar over 1990–2030: it must not throw, and what it gives must be well formed. */
export function assertExpandsWellFormed(ics: string, label: string): void {
  const result = expandIcs(ics, { window: window('1990-01-01T00:00:00Z', '2030-01-01T00:00:00Z') });
  for (const occurrence of result.occurrences) assertOccurrenceShape(occurrence, label);
  for (const item of result.skipped) assert.ok(item.reason.length > 0, label);
}
