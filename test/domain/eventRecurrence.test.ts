/** Repeating events being written: the rules accepted, every refusal, RRULEs across DST and zones. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRecurrence, type RecurrenceInput, seriesEndBound } from '../../src/domain/eventRecurrence.ts';
import type { EventTiming } from '../../src/domain/eventTiming.ts';
import { expandIcs } from '../../src/domain/ical/expand.ts';
import { newEventObject } from '../../src/domain/ical/objectEdits.ts';
import { rruleOf } from '../../src/domain/recurrenceRule.ts';
import { AppError } from '../../src/errors.ts';

const refused = (field: string, reason?: string) => (error: unknown) =>
  error instanceof AppError &&
  error.code === 'invalid_request' &&
  error.details?.field === field &&
  error.details?.reason === reason;

/** Monday 2026-03-23, 09:00–09:30 in Berlin (the clocks go forward on Sunday the 29th). */
const monday: EventTiming = {
  allDay: false,
  start: '2026-03-23T09:00:00',
  end: '2026-03-23T09:30:00',
  timeZone: 'Europe/Berlin',
};
const allDayMonday: EventTiming = { allDay: true, startDate: '2026-03-23', endDate: '2026-03-24' };
/** Monday 2026-03-30, the last Monday of March (and its fifth). */
const lastMonday: EventTiming = { ...monday, start: '2026-03-30T09:00:00', end: '2026-03-30T09:30:00' };
const allDay = (startDate: string, endDate: string): EventTiming => ({ allDay: true, startDate, endDate });

describe('event recurrence', () => {
  it('defaults a weekly rule to the weekday of start, every week, without end', () => {
    assert.deepEqual(parseRecurrence({ frequency: 'weekly' }, monday), {
      frequency: 'weekly',
      interval: 1,
      daysOfWeek: ['monday'],
    });
    assert.deepEqual(parseRecurrence({ frequency: 'daily', interval: 3, count: 10 }, monday), {
      frequency: 'daily',
      interval: 3,
      daysOfWeek: [],
      count: 10,
    });
  });

  it('puts the days in week order, whatever order they were given in', () => {
    const rule = parseRecurrence(
      { frequency: 'weekly', daysOfWeek: ['friday', 'monday', 'wednesday'], until: '2026-06-30' },
      monday,
    );
    assert.deepEqual(rule.daysOfWeek, ['monday', 'wednesday', 'friday']);
    assert.equal(rule.until, '2026-06-30');
  });

  it('refuses what providers would not hold alike, naming the field', () => {
    const cases: Array<[Parameters<typeof parseRecurrence>[0], EventTiming, string]> = [
      [{ frequency: 'weekly', count: 3, until: '2026-04-30' }, monday, 'recurrence.until'],
      [{ frequency: 'daily', daysOfWeek: ['monday'] }, monday, 'recurrence.daysOfWeek'],
      // The event itself is the first occurrence: a Monday event cannot repeat on Tuesdays only.
      [{ frequency: 'weekly', daysOfWeek: ['tuesday'] }, monday, 'recurrence.daysOfWeek'],
      [{ frequency: 'weekly', until: '2026-03-22' }, monday, 'recurrence.until'],
      [{ frequency: 'weekly', until: '2026-02-30' }, monday, 'recurrence.until'],
      [{ frequency: 'weekly', until: '2026-3-30' }, monday, 'recurrence.until'],
      [{ frequency: 'weekly', until: '2200-01-01' }, monday, 'recurrence.until'],
      // Occurrences may not overlap: a two-day event every day, or Monday to Wednesday on Mondays and Tuesdays.
      [{ frequency: 'daily' }, { allDay: true, startDate: '2026-03-23', endDate: '2026-03-25' }, 'end'],
      [
        { frequency: 'weekly', daysOfWeek: ['monday', 'tuesday'] },
        { ...monday, end: '2026-03-24T09:00:01' },
        'end',
      ],
    ];
    for (const [input, timing, field] of cases) {
      assert.throws(() => parseRecurrence(input, timing), refused(field), JSON.stringify(input));
    }
    // Ending exactly when the next begins is fine; so is a weekly event as long as the wrap-around gap.
    assert.doesNotThrow(() =>
      parseRecurrence({ frequency: 'daily' }, { ...monday, end: '2026-03-24T09:00:00' }),
    );
    assert.doesNotThrow(() =>
      parseRecurrence(
        { frequency: 'weekly', interval: 2, daysOfWeek: ['monday', 'sunday'] },
        { ...monday, end: '2026-03-29T09:00:00' },
      ),
    );
  });

  it('repeats monthly on the start’s day or on its weekday at its position, yearly on its date', () => {
    assert.deepEqual(parseRecurrence({ frequency: 'monthly', interval: 2 }, monday), {
      frequency: 'monthly',
      interval: 2,
      daysOfWeek: [],
      dayOfMonth: 23,
    });
    assert.deepEqual(
      parseRecurrence(
        { frequency: 'monthly', weekdayPosition: { position: 'last', day: 'monday' } },
        lastMonday,
      ),
      { frequency: 'monthly', interval: 1, daysOfWeek: ['monday'], position: 'last' },
    );
    assert.deepEqual(parseRecurrence({ frequency: 'yearly', count: 3 }, monday), {
      frequency: 'yearly',
      interval: 1,
      daysOfWeek: [],
      dayOfMonth: 23,
      month: 3,
      count: 3,
    });
    // 23 February 2026 is the fourth Monday of its month and the last one: both hold.
    const february = { ...monday, start: '2026-02-23T09:00:00', end: '2026-02-23T09:30:00' };
    for (const position of ['fourth', 'last'] as const) {
      assert.equal(
        parseRecurrence({ frequency: 'monthly', weekdayPosition: { position, day: 'monday' } }, february)
          .position,
        position,
      );
    }
    // A yearly event on 31 December is fine: every year has that day.
    assert.equal(parseRecurrence({ frequency: 'yearly' }, allDay('2026-12-31', '2027-01-01')).dayOfMonth, 31);
  });

  it('refuses monthly and yearly rules the start does not fit, or that providers would expand apart', () => {
    const byPosition = (
      position: 'first' | 'second' | 'third' | 'fourth' | 'last',
      day = 'monday' as const,
    ) => ({ frequency: 'monthly', weekdayPosition: { position, day } }) as RecurrenceInput;
    const cases: Array<[RecurrenceInput, EventTiming, string, string?]> = [
      [{ frequency: 'monthly', daysOfWeek: ['monday'] }, monday, 'recurrence.daysOfWeek'],
      [{ frequency: 'yearly', daysOfWeek: ['monday'] }, monday, 'recurrence.daysOfWeek'],
      [{ ...byPosition('fourth'), frequency: 'weekly' }, monday, 'recurrence.weekdayPosition'],
      [{ ...byPosition('fourth'), frequency: 'yearly' }, monday, 'recurrence.weekdayPosition'],
      // 23 March 2026 is the fourth Monday, not the third, nor the last (30 March is).
      [byPosition('third'), monday, 'recurrence.weekdayPosition.position'],
      [byPosition('last'), monday, 'recurrence.weekdayPosition.position'],
      [byPosition('fourth'), lastMonday, 'recurrence.weekdayPosition.position'],
      [
        { frequency: 'monthly', weekdayPosition: { position: 'fourth', day: 'tuesday' } },
        monday,
        'recurrence.weekdayPosition.day',
      ],
      // Days some months or years lack: RFC 5545 skips those months, Outlook moves to their last day.
      [{ frequency: 'monthly' }, allDay('2026-01-29', '2026-01-30'), 'start', 'day_not_in_every_month'],
      [{ frequency: 'monthly', count: 2 }, lastMonday, 'start', 'day_not_in_every_month'],
      [
        { frequency: 'monthly', interval: 12 },
        allDay('2026-03-31', '2026-04-01'),
        'start',
        'day_not_in_every_month',
      ],
      [{ frequency: 'yearly' }, allDay('2028-02-29', '2028-03-01'), 'start', 'day_not_in_every_month'],
      // An occurrence may not reach the next: February has 28 days, a year 365.
      [{ frequency: 'monthly' }, allDay('2026-03-02', '2026-03-31'), 'end'],
      [byPosition('first'), allDay('2026-03-02', '2026-03-31'), 'end'],
      [{ frequency: 'yearly' }, allDay('2026-03-02', '2027-03-03'), 'end'],
      // The last occurrence must start before 2200, as until must.
      [{ frequency: 'yearly', interval: 99, count: 3 }, monday, 'recurrence.count'],
      [{ frequency: 'monthly', interval: 99, count: 23 }, monday, 'recurrence.count'],
      [{ frequency: 'daily', interval: 99, count: 730 }, monday, 'recurrence.count'],
      [{ frequency: 'monthly', until: '2200-01-01' }, monday, 'recurrence.until'],
    ];
    for (const [input, timing, field, reason] of cases) {
      assert.throws(() => parseRecurrence(input, timing), refused(field, reason), JSON.stringify(input));
    }
    for (const [input, timing] of [
      [{ frequency: 'monthly' }, allDay('2026-03-02', '2026-03-30')],
      [byPosition('first'), allDay('2026-03-02', '2026-03-30')],
      [{ frequency: 'monthly', interval: 2 }, allDay('2026-03-02', '2026-04-30')],
      [{ frequency: 'yearly' }, allDay('2026-03-02', '2027-03-02')],
      [{ frequency: 'monthly' }, allDay('2026-01-28', '2026-01-29')],
      [{ frequency: 'yearly', interval: 99, count: 2 }, monday],
      [{ frequency: 'monthly', interval: 99, count: 22 }, monday],
    ] as Array<[RecurrenceInput, EventTiming]>) {
      assert.doesNotThrow(() => parseRecurrence(input, timing), JSON.stringify(input));
    }
  });

  it('writes monthly and yearly RRULEs: BYMONTHDAY, BYDAY with its ordinal, BYMONTH', () => {
    const rule = (input: RecurrenceInput, timing = monday) => rruleOf(parseRecurrence(input, timing), timing);
    assert.equal(rule({ frequency: 'monthly', count: 6 }), 'FREQ=MONTHLY;BYMONTHDAY=23;COUNT=6');
    assert.equal(
      rule({ frequency: 'monthly', interval: 3, weekdayPosition: { position: 'fourth', day: 'monday' } }),
      'FREQ=MONTHLY;INTERVAL=3;BYDAY=4MO',
    );
    // Until 27 April: 09:00 in Berlin is 07:00Z in summer time.
    assert.equal(
      rule(
        { frequency: 'monthly', weekdayPosition: { position: 'last', day: 'monday' }, until: '2026-04-27' },
        lastMonday,
      ),
      'FREQ=MONTHLY;BYDAY=-1MO;UNTIL=20260427T070000Z',
    );
    assert.equal(
      rule({ frequency: 'yearly', interval: 2 }),
      'FREQ=YEARLY;INTERVAL=2;BYMONTH=3;BYMONTHDAY=23',
    );
  });

  it('keeps the local time of monthly occurrences across DST changes, in the north and the south', () => {
    const startsOf = (
      title: string,
      timing: EventTiming,
      input: RecurrenceInput,
      from: string,
      to: string,
    ) => {
      const ics = newEventObject(
        { title, timing, recurrence: parseRecurrence(input, timing) },
        title,
        Temporal.Instant.from('2026-01-01T00:00:00Z'),
      );
      const window = { start: Temporal.Instant.from(from), end: Temporal.Instant.from(to) };
      return expandIcs(ics, { window }).occurrences.map((o) =>
        Temporal.PlainDateTime.from(o.start).toZonedDateTime(o.timeZone!).toInstant().toString(),
      );
    };
    // Berlin, the last Sunday at 10:00: 29 March is the day the clocks go forward, 25 October back.
    assert.deepEqual(
      startsOf(
        'berlin',
        {
          allDay: false,
          start: '2026-02-22T10:00:00',
          end: '2026-02-22T11:00:00',
          timeZone: 'Europe/Berlin',
        },
        {
          frequency: 'monthly',
          interval: 1,
          weekdayPosition: { position: 'last', day: 'sunday' },
          count: 10,
        },
        '2026-02-01T00:00:00Z',
        '2026-12-01T00:00:00Z',
      ),
      [
        '2026-02-22T09:00:00Z',
        '2026-03-29T08:00:00Z',
        '2026-04-26T08:00:00Z',
        '2026-05-31T08:00:00Z',
        '2026-06-28T08:00:00Z',
        '2026-07-26T08:00:00Z',
        '2026-08-30T08:00:00Z',
        '2026-09-27T08:00:00Z',
        '2026-10-25T09:00:00Z',
        '2026-11-29T09:00:00Z',
      ],
    );
    // Auckland, the 5th at 09:00: summer time ends on 5 April 2026 and starts on 27 September.
    assert.deepEqual(
      startsOf(
        'auckland',
        {
          allDay: false,
          start: '2026-03-05T09:00:00',
          end: '2026-03-05T10:00:00',
          timeZone: 'Pacific/Auckland',
        },
        { frequency: 'monthly', interval: 1, until: '2026-10-05' },
        '2026-03-01T00:00:00Z',
        '2026-12-01T00:00:00Z',
      ),
      [
        '2026-03-04T20:00:00Z',
        '2026-04-04T21:00:00Z',
        '2026-05-04T21:00:00Z',
        '2026-06-04T21:00:00Z',
        '2026-07-04T21:00:00Z',
        '2026-08-04T21:00:00Z',
        '2026-09-04T21:00:00Z',
        '2026-10-04T20:00:00Z',
      ],
    );
  });

  it('writes the RRULE with UNTIL in UTC at the start’s wall-clock time, after the DST change', () => {
    const rule = parseRecurrence(
      { frequency: 'weekly', interval: 2, daysOfWeek: ['wednesday', 'monday'], until: '2026-04-06' },
      monday,
    );
    // 09:00 in Berlin on 6 April is 07:00Z (summer time), not 08:00Z as on the first Monday.
    assert.equal(rruleOf(rule, monday), 'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;WKST=MO;UNTIL=20260406T070000Z');
    assert.equal(
      rruleOf(rule, { ...monday, start: '2026-03-23T09:00:00', timeZone: 'America/New_York' }),
      'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;WKST=MO;UNTIL=20260406T130000Z',
    );
    assert.equal(
      rruleOf(parseRecurrence({ frequency: 'daily', until: '2026-04-06' }, allDayMonday), allDayMonday),
      'FREQ=DAILY;UNTIL=20260406',
    );
    assert.equal(
      rruleOf(parseRecurrence({ frequency: 'daily', count: 4 }, monday), monday),
      'FREQ=DAILY;COUNT=4',
    );
  });

  it('bounds a series: its until date, the start of its last occurrence, or thirty years for an open one', () => {
    const bound = (input: RecurrenceInput, timing = monday) =>
      seriesEndBound(parseRecurrence(input, timing), timing).toString();
    assert.equal(bound({ frequency: 'weekly', until: '2027-01-04' }), '2027-01-04');
    assert.equal(bound({ frequency: 'weekly', daysOfWeek: ['monday', 'friday'], count: 5 }), '2026-04-06');
    // Starting on the Friday: Fri, Mon, Fri, Mon, then the Friday two weeks on.
    const friday = { ...monday, start: '2026-03-27T09:00:00', end: '2026-03-27T09:30:00' };
    assert.equal(
      bound({ frequency: 'weekly', daysOfWeek: ['monday', 'friday'], count: 5 }, friday),
      '2026-04-10',
    );
    assert.equal(
      bound({ frequency: 'weekly', daysOfWeek: ['monday', 'friday'], count: 4 }, friday),
      '2026-04-06',
    );
    assert.equal(bound({ frequency: 'daily', interval: 2, count: 10 }), '2026-04-10');
    assert.equal(bound({ frequency: 'weekly' }), '2056-03-23');
    assert.equal(bound({ frequency: 'monthly', interval: 2, count: 4 }), '2026-09-23');
    // The fourth Monday of March 2026, then of every third month: the fourth Monday of December 2026 is the 28th.
    assert.equal(
      bound({
        frequency: 'monthly',
        interval: 3,
        weekdayPosition: { position: 'fourth', day: 'monday' },
        count: 4,
      }),
      '2026-12-28',
    );
    assert.equal(
      bound(
        { frequency: 'monthly', weekdayPosition: { position: 'last', day: 'monday' }, count: 2 },
        lastMonday,
      ),
      '2026-04-27',
    );
    assert.equal(bound({ frequency: 'yearly', interval: 4, count: 3 }), '2034-03-23');
  });

  it('gives a new iCalendar series its RRULE and the zone’s changes for as long as it runs', () => {
    const event = {
      title: 'Weekly review',
      timing: monday,
      recurrence: parseRecurrence({ frequency: 'weekly', until: '2029-06-30' }, monday),
    };
    const ics = newEventObject(event, 'uid-1', Temporal.Instant.from('2026-03-01T00:00:00Z'));
    // WKST=MO is iCalendar's default, so ical.js leaves it out.
    assert.match(ics, /\r\nRRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20290630T070000Z\r\n/);
    assert.equal(ics.match(/BEGIN:VTIMEZONE/g)?.length, 1);
    // Summer time starting in 2029 and 2030 is listed; a single event's definition stops after 2027.
    assert.match(ics, /DTSTART:20290325T020000/);
    assert.match(ics, /DTSTART:20300331T020000/);
    const single = newEventObject(
      { title: 'Once', timing: monday },
      'uid-2',
      Temporal.Instant.from('2026-03-01T00:00:00Z'),
    );
    assert.doesNotMatch(single, /RRULE|DTSTART:2029/);
  });
});
