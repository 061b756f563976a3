/** Repeating events being written: the rules accepted, every refusal, RRULEs across DST and zones. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRecurrence, rruleOf, seriesEndBound } from '../../src/domain/eventRecurrence.ts';
import type { EventTiming } from '../../src/domain/eventTiming.ts';
import { newEventObject } from '../../src/domain/ical/objectEdits.ts';
import { AppError } from '../../src/errors.ts';

const refused = (field: string) => (error: unknown) =>
  error instanceof AppError && error.code === 'invalid_request' && error.details?.field === field;

/** Monday 2026-03-23, 09:00–09:30 in Berlin (the clocks go forward on Sunday the 29th). */
const monday: EventTiming = {
  allDay: false,
  start: '2026-03-23T09:00:00',
  end: '2026-03-23T09:30:00',
  timeZone: 'Europe/Berlin',
};
const allDayMonday: EventTiming = { allDay: true, startDate: '2026-03-23', endDate: '2026-03-24' };

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

  it('bounds a series: its until date, its count in steps, or thirty years for an open one', () => {
    const bound = (input: Parameters<typeof parseRecurrence>[0]) =>
      seriesEndBound(parseRecurrence(input, monday), monday).toString();
    assert.equal(bound({ frequency: 'weekly', until: '2027-01-04' }), '2027-01-04');
    assert.equal(bound({ frequency: 'weekly', daysOfWeek: ['monday', 'friday'], count: 5 }), '2026-04-13');
    assert.equal(bound({ frequency: 'daily', interval: 2, count: 10 }), '2026-04-12');
    assert.equal(bound({ frequency: 'weekly' }), '2056-03-23');
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
