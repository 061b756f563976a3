/**
 * The local dates of a simple series, as the fakes expand them: every `interval` days, or every
 * `interval` weeks on the given ISO weekdays (weeks begin on Monday, as RRULE's WKST=MO and
 * Graph's firstDayOfWeek "monday"). The first date is always the series' own start.
 */
export interface SimpleSeries {
  unit: 'days' | 'weeks';
  interval: number;
  /** ISO weekdays (1 = Monday) for weekly series; default the first date's. */
  weekdays?: number[];
}

export function* seriesDates(first: Temporal.PlainDate, series: SimpleSeries): Generator<Temporal.PlainDate> {
  if (series.unit === 'days') {
    for (let step = 0; ; step += series.interval) yield first.add({ days: step });
  }
  const weekdays = [...(series.weekdays ?? [first.dayOfWeek])].sort((a, b) => a - b);
  const monday = first.subtract({ days: first.dayOfWeek - 1 });
  for (let week = 0; ; week += series.interval) {
    for (const weekday of weekdays) {
      const date = monday.add({ weeks: week, days: weekday - 1 });
      if (Temporal.PlainDate.compare(date, first) >= 0) yield date;
    }
  }
}
