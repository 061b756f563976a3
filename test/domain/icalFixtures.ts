/** Shared helpers for the iCalendar tests: fixture files and compact views of occurrences. */
import { readdirSync, readFileSync } from 'node:fs';
import { type ExpandOptions, expandIcs } from '../../src/domain/ical/expand.ts';
import type { EventsResult, ProviderOccurrence } from '../../src/domain/providerFacts.ts';

const fixtureDirectory = new URL('../../../shared/fixtures/ical/', import.meta.url);

export const fixtureNames = (): string[] =>
  readdirSync(fixtureDirectory)
    .filter((name) => name.endsWith('.ics'))
    .sort();

export const fixture = (name: string): string => readFileSync(new URL(name, fixtureDirectory), 'utf8');

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
