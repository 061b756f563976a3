/**
 * The fakes expand monthly and yearly series as iCalendar does: for every start in a leap year and
 * every rule the service accepts from it, the Google fake (reading the RRULE the adapter sends),
 * the Graph fake (reading the patternedRecurrence) and ical.js give the same dates. Where the
 * service refuses a start, they would not. Rules the real APIs refuse, the fakes refuse.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type EventRecurrence,
  parseRecurrence,
  positions,
  type RecurrenceInput,
  weekdays,
} from '../../src/domain/eventRecurrence.ts';
import type { EventTiming } from '../../src/domain/eventTiming.ts';
import { expandIcs } from '../../src/domain/ical/expand.ts';
import { newEventObject } from '../../src/domain/ical/objectEdits.ts';
import { googleNewEvent } from '../../src/providers/google/toWire.ts';
import type { GoogleEvent } from '../../src/providers/google/wire.ts';
import { graphRecurrence } from '../../src/providers/microsoft/toWire.ts';
import { expandSeries, recurrenceProblem } from './google/recurrence.ts';
import { seriesOf } from './graph/recurrence.ts';
import { type FakeGraphEventSeed, type FakeSeries, seriesInstances, storedEvent } from './graph/store.ts';
import { seriesDates } from './seriesDates.ts';

const count = 8;
const berlin = 'Europe/Berlin';
const window = {
  start: Temporal.Instant.from('2027-12-31T00:00:00Z'),
  end: Temporal.Instant.from('2090-01-01T00:00:00Z'),
};

const day = (date: Temporal.PlainDate): EventTiming => ({
  allDay: true,
  startDate: date.toString(),
  endDate: date.add({ days: 1 }).toString(),
});

function icalDates(timing: EventTiming, recurrence: EventRecurrence): string[] {
  const ics = newEventObject({ title: 'x', timing, recurrence }, 'uid', window.start);
  return expandIcs(ics, { window }).occurrences.map((o) => o.start.slice(0, 10));
}

function googleDates(timing: EventTiming, recurrence: EventRecurrence): string[] {
  const body = googleNewEvent({ title: 'x', timing, recurrence }, 'series') as GoogleEvent;
  return expandSeries(body, 'UTC').map((instance) => instance.start!.date!);
}

function graphDates(timing: EventTiming & { allDay: true }, recurrence: EventRecurrence): string[] {
  const seed: FakeGraphEventSeed = {
    id: 'series',
    start: timing.startDate,
    end: timing.endDate,
    isAllDay: true,
    zone: berlin,
  };
  const series = seriesOf(graphRecurrence(recurrence, timing, berlin), seed);
  assert.ok(!('status' in series), JSON.stringify(series));
  seed.repeats = series as FakeSeries;
  return seriesInstances(storedEvent(seed)).map((instance) => instance.start.toPlainDate().toString());
}

/** Every monthly and yearly rule the service accepts from `date`; every other start at an interval of 5. */
function rulesFrom(date: Temporal.PlainDate): RecurrenceInput[] {
  const day = weekdays[date.dayOfWeek - 1]!;
  const interval = date.dayOfYear % 2 === 0 ? 1 : 5;
  return [
    { frequency: 'monthly', interval, count },
    { frequency: 'yearly', interval, count },
    ...positions.map((position) => ({
      frequency: 'monthly' as const,
      interval,
      count,
      weekdayPosition: { position, day },
    })),
  ];
}

describe('monthly and yearly series in the fakes', () => {
  it('give the dates iCalendar gives, for every start in 2028 and every rule accepted from it', () => {
    let compared = 0;
    for (let date = Temporal.PlainDate.from('2028-01-01'); date.year === 2028; date = date.add({ days: 1 })) {
      const timing = day(date) as EventTiming & { allDay: true };
      for (const input of rulesFrom(date)) {
        let recurrence: EventRecurrence;
        try {
          recurrence = parseRecurrence(input, timing);
        } catch {
          continue;
        }
        const expected = icalDates(timing, recurrence);
        assert.equal(expected.length, count);
        assert.equal(expected[0], date.toString());
        const what = `${date} ${JSON.stringify(input)}`;
        assert.deepEqual(googleDates(timing, recurrence), expected, `Google: ${what}`);
        assert.deepEqual(graphDates(timing, recurrence), expected, `Graph: ${what}`);
        compared++;
      }
    }
    // Each day: by day of month and yearly (not 29–31 and 29 February), one or two positions.
    assert.ok(compared > 366 * 2, String(compared));
  });

  it('disagree where the service refuses the start: a day some months or years lack', () => {
    const first = Temporal.PlainDate.from('2028-01-31');
    const dates = (shortMonths: 'skip' | 'lastDay') =>
      seriesDates(first, { unit: 'months', interval: 1, shortMonths }).take(3).toArray().map(String);
    assert.deepEqual(dates('skip'), ['2028-01-31', '2028-03-31', '2028-05-31']);
    assert.deepEqual(dates('lastDay'), ['2028-01-31', '2028-02-29', '2028-03-31']);
    const leapDay = Temporal.PlainDate.from('2028-02-29');
    const yearly = (shortMonths: 'skip' | 'lastDay') =>
      seriesDates(leapDay, { unit: 'years', interval: 1, shortMonths }).take(2).toArray().map(String);
    assert.deepEqual(yearly('skip'), ['2028-02-29', '2032-02-29']);
    assert.deepEqual(yearly('lastDay'), ['2028-02-29', '2029-02-28']);
  });
});

describe('series the fakes refuse, as the real APIs do', () => {
  it('Graph: a pattern without what its type needs, or an index that is not a week index', () => {
    const seed: FakeGraphEventSeed = {
      id: 'series',
      start: '2026-03-24T09:00:00',
      end: '2026-03-24T10:00:00',
      zone: berlin,
    };
    const range = { type: 'noEnd', startDate: '2026-03-24', recurrenceTimeZone: 'W. Europe Standard Time' };
    const refusal = (pattern: Record<string, unknown>) => {
      const reply = seriesOf({ pattern: { interval: 1, ...pattern }, range }, seed);
      return 'status' in reply ? (reply.body as { error: { message: string } }).error.message : undefined;
    };
    assert.match(refusal({ type: 'absoluteMonthly' }) ?? '', /needs dayOfMonth/);
    assert.match(refusal({ type: 'absoluteMonthly', dayOfMonth: 32 }) ?? '', /needs dayOfMonth/);
    assert.match(refusal({ type: 'relativeMonthly', index: 'fourth' }) ?? '', /needs daysOfWeek/);
    assert.match(
      refusal({ type: 'relativeMonthly', daysOfWeek: ['tuesday'], index: 'fifth' }) ?? '',
      /weekIndex/,
    );
    assert.match(refusal({ type: 'absoluteYearly', dayOfMonth: 24 }) ?? '', /needs month and dayOfMonth/);
    assert.match(refusal({ type: 'absoluteMonthly', dayOfMonth: 24, interval: 0 }) ?? '', /interval/);
    // 24 March 2026 is the fourth Tuesday, not the last: the series would not begin with the event.
    assert.match(
      refusal({ type: 'relativeMonthly', daysOfWeek: ['tuesday'], index: 'last' }) ?? '',
      /first occurrence/,
    );
    assert.equal(refusal({ type: 'relativeMonthly', daysOfWeek: ['tuesday'], index: 'fourth' }), undefined);
    assert.equal(refusal({ type: 'absoluteYearly', month: 3, dayOfMonth: 24 }), undefined);
  });

  it('Google: an RRULE with a day of the month or an ordinal no month has', () => {
    const problem = (rule: string) =>
      recurrenceProblem({
        id: 'series',
        start: { dateTime: '2026-03-24T09:00:00', timeZone: berlin },
        end: { dateTime: '2026-03-24T10:00:00', timeZone: berlin },
        recurrence: [`RRULE:${rule}`],
      });
    for (const rule of [
      'FREQ=MONTHLY;BYMONTHDAY=32',
      'FREQ=MONTHLY;BYDAY=6TU',
      'FREQ=YEARLY;BYMONTH=13;BYMONTHDAY=24',
      'FREQ=MONTHLY;INTERVAL=0',
    ]) {
      assert.equal(problem(rule), 'Invalid recurrence rule.', rule);
    }
    for (const rule of [
      'FREQ=MONTHLY;BYMONTHDAY=24',
      'FREQ=MONTHLY;BYDAY=4TU',
      'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=24',
    ]) {
      assert.equal(problem(rule), undefined, rule);
    }
  });
});
