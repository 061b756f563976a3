/**
 * The time window of a read: two instants written with `Z` or an explicit offset (no zone is
 * ever assumed), `end` after `start`, at most 744 elapsed hours apart. Elapsed means between
 * instants, so a daylight-saving change never stretches or shrinks the limit. Pure.
 */

import { AppError } from '../errors.ts';

export interface TimeWindow {
  start: Temporal.Instant;
  end: Temporal.Instant;
}

export const maxWindowHours = 744;
const maxWindowSeconds = maxWindowHours * 3600;

// Date, time (seconds and fraction optional), then Z or ±HH:MM; Temporal then checks the values.
const instantPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** An ISO 8601 date-time with `Z` or an offset, as an instant; `window_invalid` otherwise. */
export function parseInstant(field: string, value: string): Temporal.Instant {
  if (instantPattern.test(value)) {
    try {
      return Temporal.Instant.from(value);
    } catch {
      // An impossible date or time (2026-02-30, 25:00): reported below like any other.
    }
  }
  throw new AppError(
    'window_invalid',
    `${field} must be an ISO 8601 date-time with Z or an offset, like 2026-03-01T09:00:00+01:00.`,
    { details: { field } },
  );
}

export function parseWindow(start: string, end: string, names = { start: 'start', end: 'end' }): TimeWindow {
  const window = { start: parseInstant(names.start, start), end: parseInstant(names.end, end) };
  if (Temporal.Instant.compare(window.end, window.start) <= 0) {
    throw new AppError('window_invalid', `${names.end} must be later than ${names.start}.`, {
      details: { field: names.end },
    });
  }
  if (window.end.since(window.start).total('seconds') > maxWindowSeconds) {
    throw new AppError(
      'window_too_long',
      `The window is longer than ${maxWindowHours} elapsed hours (31 days); split it into consecutive windows.`,
      { details: { field: names.end, maxHours: maxWindowHours } },
    );
  }
  return window;
}
