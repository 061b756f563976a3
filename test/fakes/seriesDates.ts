/**
 * The local dates of a simple series, as the fakes expand them: every `interval` days; every
 * `interval` weeks on the given ISO weekdays (weeks begin on Monday, as RRULE's WKST=MO and
 * Graph's firstDayOfWeek "monday"); every `interval` months on a day of the month or on the nth
 * (or nth-last) of a weekday; every `interval` years on a month and day. Dates before the first
 * are left out; the series' own start is expected to be its first date.
 */
export interface SimpleSeries {
  unit: 'days' | 'weeks' | 'months' | 'years';
  interval: number;
  /** ISO weekdays (1 = Monday): weekly, default the first date's; monthly by position, the one day. */
  weekdays?: number[];
  /** Monthly: the nth of `weekdays[0]` in the month (1 to 5, or -1 for the last, -2 …). */
  position?: number;
  /** Monthly and yearly: the day of the month; default the first date's. */
  dayOfMonth?: number;
  /** Yearly: the month; default the first date's. */
  month?: number;
  /**
   * A day some months lack: left out (RFC 5545, Google), or the month's last day instead (Outlook).
   * Default: left out.
   */
  shortMonths?: 'skip' | 'lastDay';
}

/** Months or years looked at without a date before a series is taken to have no more. */
const emptyPeriods = 5000;

/** The series' date in one month, if it has one. */
function dateIn(month: Temporal.PlainYearMonth, series: SimpleSeries, first: Temporal.PlainDate) {
  if (series.position !== undefined) {
    const weekday = series.weekdays?.[0] ?? first.dayOfWeek;
    const firstDay = month.toPlainDate({ day: 1 });
    const all: Temporal.PlainDate[] = [];
    for (
      let day = firstDay.add({ days: (weekday - firstDay.dayOfWeek + 7) % 7 });
      day.month === month.month;
    ) {
      all.push(day);
      day = day.add({ weeks: 1 });
    }
    return all.at(series.position > 0 ? series.position - 1 : series.position);
  }
  const day = series.dayOfMonth ?? first.day;
  if (day > month.daysInMonth && series.shortMonths !== 'lastDay') return undefined;
  return month.toPlainDate({ day: Math.min(day, month.daysInMonth) });
}

export function* seriesDates(first: Temporal.PlainDate, series: SimpleSeries): Generator<Temporal.PlainDate> {
  if (series.unit === 'days') {
    for (let step = 0; ; step += series.interval) yield first.add({ days: step });
  }
  if (series.unit === 'weeks') {
    const weekdays = [...(series.weekdays ?? [first.dayOfWeek])].sort((a, b) => a - b);
    const monday = first.subtract({ days: first.dayOfWeek - 1 });
    for (let week = 0; ; week += series.interval) {
      for (const weekday of weekdays) {
        const date = monday.add({ weeks: week, days: weekday - 1 });
        if (Temporal.PlainDate.compare(date, first) >= 0) yield date;
      }
    }
  }
  const start =
    series.unit === 'years'
      ? Temporal.PlainYearMonth.from({ year: first.year, month: series.month ?? first.month })
      : first.toPlainYearMonth();
  for (let step = 0, empty = 0; empty < emptyPeriods; step += series.interval) {
    const date = dateIn(
      start.add(series.unit === 'years' ? { years: step } : { months: step }),
      series,
      first,
    );
    if (date === undefined || Temporal.PlainDate.compare(date, first) < 0) empty++;
    else {
      empty = 0;
      yield date;
    }
  }
}
