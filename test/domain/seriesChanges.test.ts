/**
 * Moving a whole series and changing its rule: the shift of the named occurrence applied to the
 * first in local time (across DST changes), the same days kept (UNTIL moved along), a day change
 * only with a restated rule, and the objects' own exceptions (overrides, EXDATEs) refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventTiming } from '../../src/domain/eventTiming.ts';
import { expandIcs } from '../../src/domain/ical/expand.ts';
import { editObject, seriesExceptionsOf } from '../../src/domain/ical/objectEdits.ts';
import { ruleMovedInDay } from '../../src/domain/recurrenceRule.ts';
import { exceptionsRefusal, planSeriesChange } from '../../src/domain/seriesChanges.ts';
import { AppError } from '../../src/errors.ts';
import { occurrence } from '../helpers/memoryCalendars.ts';
import { vcalendar } from '../helpers/radicaleCalendars.ts';

const berlin = 'Europe/Berlin';
const timed = (start: string, end: string, timeZone = berlin): EventTiming => ({
  allDay: false,
  start,
  end,
  timeZone,
});
// The first occurrence in winter (UTC+1), the named one in summer (UTC+2).
const first = occurrence({ start: '2026-03-24T16:00:00', timeZone: berlin, duration: 'PT1H' });
const named = occurrence({ start: '2026-04-07T16:00:00', timeZone: berlin, duration: 'PT1H' });
const refusedWith = (code: string, field?: string) => (error: unknown) =>
  error instanceof AppError && error.code === code && (field === undefined || error.details?.field === field);

describe('planSeriesChange', () => {
  it('moves the first occurrence as the named one moves, in local time across DST', () => {
    const change = planSeriesChange(
      first,
      named,
      timed('2026-04-07T17:30:00', '2026-04-07T18:00:00'),
      undefined,
    );
    assert.deepEqual(change, { timing: timed('2026-03-24T17:30:00', '2026-03-24T18:00:00') });
  });

  it('keeps the series as it is when only the rule changes, checked against its first occurrence', () => {
    const change = planSeriesChange(first, first, undefined, { frequency: 'weekly', count: 5 });
    assert.deepEqual(change.timing, timed('2026-03-24T16:00:00', '2026-03-24T17:00:00'));
    assert.deepEqual(change.recurrence, {
      frequency: 'weekly',
      interval: 1,
      daysOfWeek: ['tuesday'],
      count: 5,
    });
    assert.throws(
      () => planSeriesChange(first, first, undefined, { frequency: 'weekly', daysOfWeek: ['monday'] }),
      refusedWith('invalid_request', 'recurrence.daysOfWeek'),
    );
  });

  it('needs the rule restated for a move to another day, and keeps the zone and the form', () => {
    const wednesday = timed('2026-04-08T16:00:00', '2026-04-08T17:00:00');
    assert.throws(
      () => planSeriesChange(first, named, wednesday, undefined),
      (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.deepEqual(
          [error.code, error.details?.field, error.details?.reason],
          ['invalid_request', 'recurrence', 'series_date_change'],
        );
        return true;
      },
    );
    const restated = planSeriesChange(first, named, wednesday, { frequency: 'weekly' });
    assert.deepEqual(restated.timing, timed('2026-03-25T16:00:00', '2026-03-25T17:00:00'));
    assert.deepEqual(restated.recurrence?.daysOfWeek, ['wednesday']);
    assert.throws(
      () =>
        planSeriesChange(
          first,
          named,
          timed('2026-04-07T17:00:00', '2026-04-07T18:00:00', 'Europe/London'),
          undefined,
        ),
      refusedWith('invalid_request', 'timeZone'),
    );
    assert.throws(
      () =>
        planSeriesChange(
          first,
          named,
          { allDay: true, startDate: '2026-04-07', endDate: '2026-04-08' },
          undefined,
        ),
      refusedWith('invalid_request', 'start'),
    );
  });

  it('refuses a first occurrence at a local time the zone skips', () => {
    const early = occurrence({ start: '2026-03-29T01:00:00', timeZone: berlin, duration: 'PT30M' });
    const later = occurrence({ start: '2026-04-05T01:00:00', timeZone: berlin, duration: 'PT30M' });
    assert.throws(
      () => planSeriesChange(early, later, timed('2026-04-05T02:30:00', '2026-04-05T03:00:00'), undefined),
      refusedWith('invalid_request', 'start'),
    );
  });

  it('moves all-day series by whole days', () => {
    const day = occurrence({ start: '2026-06-01T00:00:00', duration: 'P1D', showWithoutTime: true });
    const change = planSeriesChange(
      day,
      day,
      { allDay: true, startDate: '2026-06-01', endDate: '2026-06-03' },
      undefined,
    );
    assert.deepEqual(change.timing, { allDay: true, startDate: '2026-06-01', endDate: '2026-06-03' });
  });

  it('names the exceptions in a refusal, at most twenty, with their count', () => {
    const exceptions = Array.from({ length: 25 }, (_, i) => ({
      recurrenceId: `2026-05-${String(i + 1).padStart(2, '0')}`,
      kind: 'changed' as const,
    }));
    const error = exceptionsRefusal(exceptions, (id) => `occ-${id}`);
    assert.equal(error.code, 'series_has_exceptions');
    assert.equal(error.details?.count, 25);
    const listed = error.details?.exceptions as Array<{ occurrenceId: string }>;
    assert.equal(listed.length, 20);
    assert.equal(listed[0]?.occurrenceId, 'occ-2026-05-01');
  });
});

describe('ruleMovedInDay', () => {
  const from = Temporal.PlainTime.from('16:00');
  it('moves a UTC UNTIL with the series, keeping its last day', () => {
    // 14 April 16:00 in Berlin is 14:00Z: later in the day, the last occurrence must stay.
    assert.equal(
      ruleMovedInDay('FREQ=WEEKLY;UNTIL=20260414T140000Z', berlin, from, Temporal.PlainTime.from('17:30')),
      'FREQ=WEEKLY;UNTIL=20260414T153000Z',
    );
    // An UNTIL before the old time that day ends the series the day before.
    assert.equal(
      ruleMovedInDay('FREQ=DAILY;UNTIL=20260414T080000Z', berlin, from, Temporal.PlainTime.from('07:00')),
      'FREQ=DAILY;UNTIL=20260413T050000Z',
    );
  });
  it('leaves other rules as they are', () => {
    for (const rule of ['FREQ=WEEKLY;COUNT=4', 'FREQ=DAILY;UNTIL=20260414', 'FREQ=DAILY']) {
      assert.equal(ruleMovedInDay(rule, berlin, from, Temporal.PlainTime.from('09:00')), rule);
    }
  });
});

describe('series objects (CalDAV)', () => {
  const now = Temporal.Instant.from('2026-03-01T12:00:00Z');
  const window = {
    start: Temporal.Instant.from('2026-03-01T00:00:00Z'),
    end: Temporal.Instant.from('2026-05-01T00:00:00Z'),
  };
  const starts = (ics: string) =>
    expandIcs(ics, { window, selfAddresses: [] }).occurrences.map((o) => o.start);
  const retro = vcalendar([
    'UID:retro',
    'DTSTART;TZID=Europe/Berlin:20260324T160000',
    'DTEND;TZID=Europe/Berlin:20260324T170000',
    'RRULE:FREQ=WEEKLY;UNTIL=20260414T140000Z',
    'SUMMARY:Retro',
  ]);
  const move = (timing: EventTiming, recurrence?: Parameters<typeof planSeriesChange>[3]) => {
    const head = occurrence({ start: '2026-03-24T16:00:00', timeZone: berlin, duration: 'PT1H' });
    return planSeriesChange(head, head, timing, recurrence);
  };

  it('moves the master with its UNTIL, or writes the restated rule', () => {
    const later = editObject(
      retro,
      'retro',
      { kind: 'fields', fields: move(timed('2026-03-24T17:30:00', '2026-03-24T18:00:00')) },
      now,
    );
    assert.deepEqual(starts(later), [
      '2026-03-24T17:30:00',
      '2026-03-31T17:30:00',
      '2026-04-07T17:30:00',
      '2026-04-14T17:30:00',
    ]);
    const daily = editObject(
      retro,
      'retro',
      {
        kind: 'fields',
        fields: move(timed('2026-03-25T08:00:00', '2026-03-25T08:30:00'), { frequency: 'daily', count: 2 }),
      },
      now,
    );
    assert.deepEqual(starts(daily), ['2026-03-25T08:00:00', '2026-03-26T08:00:00']);
  });

  it('lists overrides, EXDATEs and RDATEs as the expansion names them, and refuses to move such a series', () => {
    const withExceptions = vcalendar(
      [
        'UID:retro',
        'DTSTART;TZID=Europe/Berlin:20260324T160000',
        'DTEND;TZID=Europe/Berlin:20260324T170000',
        'RRULE:FREQ=WEEKLY;COUNT=4',
        'EXDATE;TZID=Europe/Berlin:20260331T160000',
        'RDATE;TZID=Europe/Berlin:20260402T160000',
        'SUMMARY:Retro',
      ],
      [
        'UID:retro',
        'RECURRENCE-ID;TZID=Europe/Berlin:20260407T160000',
        'DTSTART;TZID=Europe/Berlin:20260407T180000',
        'DTEND;TZID=Europe/Berlin:20260407T190000',
        'SUMMARY:Retro (late)',
      ],
    );
    const ids = expandIcs(retro, { window, selfAddresses: [] }).occurrences.map((o) => o.recurrenceId);
    assert.deepEqual(seriesExceptionsOf(withExceptions, 'retro'), [
      { recurrenceId: ids[2], kind: 'changed' },
      { recurrenceId: ids[1], kind: 'cancelled' },
      { recurrenceId: '2026-04-02T14:00:00Z', kind: 'added' },
    ]);
    assert.deepEqual(seriesExceptionsOf(retro, 'retro'), []);
    assert.throws(
      () =>
        editObject(
          withExceptions,
          'retro',
          { kind: 'fields', fields: move(timed('2026-03-24T17:00:00', '2026-03-24T18:00:00')) },
          now,
        ),
      refusedWith('series_has_exceptions'),
    );
  });
});
