/**
 * A patternedRecurrence as the fake keeps it: daily, weekly (from Monday), absoluteMonthly,
 * relativeMonthly (one day) and absoluteYearly patterns with what each type needs, and numbered,
 * endDate or noEnd ranges that begin on the event's own date in its own zone, which must be the
 * pattern's first date (what the adapter sends).
 */
import { resolveTzid } from '../../../src/domain/time/zones.ts';
import { seriesDates } from '../seriesDates.ts';
import { badRequest, type Reply } from './http.ts';
import {
  type FakeGraphEventSeed,
  type FakePattern,
  type FakeSeries,
  simpleSeries,
  type WeekIndex,
  weekdays,
  weekIndexes,
} from './store.ts';

const whole = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

const days = (value: unknown): value is string[] =>
  Array.isArray(value) && value.length > 0 && value.every((day) => weekdays.includes(day));

function patternOf(pattern: Record<string, unknown>): FakePattern | Reply {
  const { type, interval, daysOfWeek, index, dayOfMonth, month } = pattern;
  if (!whole(interval, 1, Number.MAX_SAFE_INTEGER))
    return badRequest('The recurrence interval must be a positive integer.');
  switch (type) {
    case 'daily':
      return { type, interval };
    case 'weekly':
      if (!days(daysOfWeek)) return badRequest('A weekly pattern needs daysOfWeek.');
      if (pattern.firstDayOfWeek !== 'monday') return badRequest('The fake counts weeks from Monday only.');
      return { type, interval, daysOfWeek };
    case 'absoluteMonthly':
      if (!whole(dayOfMonth, 1, 31)) return badRequest('An absoluteMonthly pattern needs dayOfMonth.');
      return { type, interval, dayOfMonth };
    case 'relativeMonthly':
      if (!days(daysOfWeek)) return badRequest('A relativeMonthly pattern needs daysOfWeek.');
      if (daysOfWeek.length > 1) return badRequest('The fake keeps relativeMonthly patterns on one day.');
      if (index !== undefined && !weekIndexes.includes(index as WeekIndex))
        return badRequest(`Cannot convert the literal '${String(index)}' to weekIndex.`);
      return { type, interval, daysOfWeek, index: (index as WeekIndex | undefined) ?? 'first' };
    case 'absoluteYearly':
      if (!whole(month, 1, 12) || !whole(dayOfMonth, 1, 31))
        return badRequest('An absoluteYearly pattern needs month and dayOfMonth.');
      return { type, interval, month, dayOfMonth };
    default:
      return badRequest(`The fake does not keep ${String(type)} patterns.`);
  }
}

export function seriesOf(value: unknown, seed: FakeGraphEventSeed): FakeSeries | Reply {
  const { pattern: given, range } = (value ?? {}) as {
    pattern?: Record<string, unknown>;
    range?: Record<string, unknown>;
  };
  if (given === undefined || range === undefined)
    return badRequest('A recurrence needs a pattern and a range.');
  const pattern = patternOf(given);
  if ('status' in pattern) return pattern;
  const startDate = seed.start.slice(0, 10);
  if (range.startDate !== startDate) return badRequest('The range must start on the date of the event.');
  if (resolveTzid(String(range.recurrenceTimeZone)) !== (seed.zone ?? 'UTC'))
    return badRequest('The recurrence time zone must be the time zone of the event.');
  const [first] = seriesDates(Temporal.PlainDate.from(startDate), simpleSeries(pattern));
  if (first?.toString() !== startDate)
    return badRequest('The fake keeps only series whose first occurrence is the event itself.');
  const series: FakeSeries = { pattern };
  if (range.type === 'numbered') {
    const count = range.numberOfOccurrences;
    if (!whole(count, 1, Number.MAX_SAFE_INTEGER))
      return badRequest('A numbered range needs numberOfOccurrences.');
    series.count = count;
  } else if (range.type === 'endDate') {
    if (typeof range.endDate !== 'string' || range.endDate < startDate)
      return badRequest('An endDate range needs an endDate on or after its startDate.');
    series.until = range.endDate;
  } else if (range.type !== 'noEnd')
    return badRequest(`Cannot convert the literal '${String(range.type)}' to recurrenceRangeType.`);
  return series;
}
