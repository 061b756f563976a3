/**
 * Ending a series before one of its occurrences (delete_event scope "following"): UNTIL a second
 * before it in its own offset (across a DST change), the day before for all-day series, local for
 * floating ones; COUNT replaced; the exceptions at or after the split, and an object edited so.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandIcs } from '../../src/domain/ical/expand.ts';
import { editObject, followingObject } from '../../src/domain/ical/objectEdits.ts';
import { exceptionsFrom, ruleEndingAt, ruleFollowing, untilBefore } from '../../src/domain/seriesSplit.ts';
import { vcalendar } from '../helpers/radicaleCalendars.ts';

const berlin = 'Europe/Berlin';

describe('untilBefore', () => {
  it('is a second before the occurrence in UTC, by the offset of its own day (after the DST change)', () => {
    // Berlin is UTC+1 until 29 March 2026, UTC+2 after: 09:00 on 30 March is 07:00Z.
    assert.equal(
      untilBefore({ start: '2026-03-30T09:00:00', timeZone: berlin, showWithoutTime: false }),
      '20260330T065959Z',
    );
    assert.equal(
      untilBefore({ start: '2026-03-27T09:00:00', timeZone: berlin, showWithoutTime: false }),
      '20260327T075959Z',
    );
  });

  it('is the day before for an all-day series, and local for a floating one', () => {
    assert.equal(untilBefore({ start: '2026-03-01T00:00:00', showWithoutTime: true }), '20260228');
    assert.equal(untilBefore({ start: '2026-03-01T00:00:00', showWithoutTime: false }), '20260228T235959');
  });
});

describe('ruleEndingAt', () => {
  it('replaces COUNT or UNTIL, keeping every other part', () => {
    assert.equal(
      ruleEndingAt('FREQ=DAILY;COUNT=10', '20260330T065959Z'),
      'FREQ=DAILY;UNTIL=20260330T065959Z',
    );
    assert.equal(
      ruleEndingAt('FREQ=WEEKLY;UNTIL=20261231T235959Z;BYDAY=TU,TH;WKST=MO', '20260401'),
      'FREQ=WEEKLY;BYDAY=TU,TH;WKST=MO;UNTIL=20260401',
    );
    assert.equal(ruleEndingAt('FREQ=MONTHLY', '20260401'), 'FREQ=MONTHLY;UNTIL=20260401');
  });
});

describe('exceptionsFrom', () => {
  it('keeps those at or after the split (instants or dates), and any it cannot place', () => {
    const exceptions = [
      { recurrenceId: '2026-03-27T08:00:00Z', kind: 'changed' as const },
      { recurrenceId: '2026-03-30T07:00:00Z', kind: 'cancelled' as const },
      { recurrenceId: '2026-04-01T07:00:00Z', kind: 'added' as const },
      { recurrenceId: 'not a time', kind: 'added' as const },
    ];
    assert.deepEqual(
      exceptionsFrom(exceptions, '2026-03-30T07:00:00Z').map((e) => e.recurrenceId),
      ['2026-03-30T07:00:00Z', '2026-04-01T07:00:00Z', 'not a time'],
    );
    assert.deepEqual(
      exceptionsFrom([{ recurrenceId: '2026-02-27', kind: 'cancelled' }], '2026-03-01').map((e) => e.kind),
      [],
    );
  });
});

describe('an object ended before an occurrence (end-series)', () => {
  const now = Temporal.Instant.from('2026-03-01T12:00:00Z');
  const window = {
    start: Temporal.Instant.from('2026-03-01T00:00:00Z'),
    end: Temporal.Instant.from('2026-05-01T00:00:00Z'),
  };
  const starts = (ics: string) =>
    expandIcs(ics, { window, selfAddresses: [] }).occurrences.map((o) => o.start);

  it('keeps the occurrences before it, across the DST change, with COUNT gone', () => {
    const standup = vcalendar([
      'UID:standup',
      'DTSTART;TZID=Europe/Berlin:20260326T090000',
      'DTEND;TZID=Europe/Berlin:20260326T091500',
      'RRULE:FREQ=DAILY;COUNT=10',
      'SUMMARY:Standup',
    ]);
    const until = untilBefore({ start: '2026-03-30T09:00:00', timeZone: berlin, showWithoutTime: false });
    const ended = editObject(standup, 'standup', { kind: 'end-series', until }, now);
    assert.match(ended, /RRULE:FREQ=DAILY;UNTIL=20260330T065959Z\r?\n/);
    assert.deepEqual(starts(ended), [
      '2026-03-26T09:00:00',
      '2026-03-27T09:00:00',
      '2026-03-28T09:00:00',
      '2026-03-29T09:00:00',
    ]);
  });

  it('ends an all-day series the day before', () => {
    const rent = vcalendar([
      'UID:rent',
      'DTSTART;VALUE=DATE:20260301',
      'DTEND;VALUE=DATE:20260302',
      'RRULE:FREQ=WEEKLY',
      'SUMMARY:Rent',
    ]);
    const until = untilBefore({ start: '2026-03-15T00:00:00', showWithoutTime: true });
    const ended = editObject(rent, 'rent', { kind: 'end-series', until }, now);
    assert.deepEqual(starts(ended), ['2026-03-01T00:00:00', '2026-03-08T00:00:00']);
  });
});

describe('ruleFollowing', () => {
  it('reduces COUNT by the occurrences before, counted in local time across the DST change', () => {
    assert.equal(
      ruleFollowing('FREQ=DAILY;COUNT=8', '2026-03-26T09:00:00', '2026-03-30T09:00:00'),
      'FREQ=DAILY;COUNT=4',
    );
    assert.equal(
      ruleFollowing('FREQ=WEEKLY;BYDAY=TU,TH;WKST=MO;COUNT=6', '2026-03-24T16:00:00', '2026-04-02T16:00:00'),
      'FREQ=WEEKLY;BYDAY=TU,TH;WKST=MO;COUNT=3',
    );
  });

  it('counts dates for an all-day series, and keeps UNTIL or no end', () => {
    assert.equal(
      ruleFollowing('FREQ=WEEKLY;COUNT=5', '2026-03-01', '2026-03-15T00:00:00'),
      'FREQ=WEEKLY;COUNT=3',
    );
    assert.equal(
      ruleFollowing('FREQ=DAILY;UNTIL=20260410T070000Z', '2026-03-26T09:00:00', '2026-03-30T09:00:00'),
      'FREQ=DAILY;UNTIL=20260410T070000Z',
    );
    assert.equal(ruleFollowing('FREQ=MONTHLY', '2026-03-26', '2026-05-26T00:00:00'), 'FREQ=MONTHLY');
  });
});

describe('followingObject', () => {
  const now = Temporal.Instant.from('2026-03-01T12:00:00Z');
  const window = {
    start: Temporal.Instant.from('2026-03-01T00:00:00Z'),
    end: Temporal.Instant.from('2026-05-01T00:00:00Z'),
  };

  it('copies the master from the occurrence on: its own exceptions left behind, the rule going on, the fields changed', () => {
    const standup = vcalendar(
      [
        'UID:standup',
        'DTSTART;TZID=Europe/Berlin:20260326T090000',
        'DTEND;TZID=Europe/Berlin:20260326T091500',
        'RRULE:FREQ=DAILY;COUNT=8',
        'EXDATE;TZID=Europe/Berlin:20260327T090000',
        'SUMMARY:Standup',
        'X-TEAM-ROOM:Blue',
        'BEGIN:VALARM',
        'ACTION:DISPLAY',
        'DESCRIPTION:Standup',
        'TRIGGER:-PT5M',
        'END:VALARM',
      ],
      [
        'UID:standup',
        'RECURRENCE-ID;TZID=Europe/Berlin:20260328T090000',
        'DTSTART;TZID=Europe/Berlin:20260328T100000',
        'DTEND;TZID=Europe/Berlin:20260328T101500',
        'SUMMARY:Standup (late)',
      ],
    );
    const copy = followingObject(
      standup,
      'standup',
      'later',
      {
        from: '2026-03-30T09:00:00',
        fields: {
          title: 'Standup (new)',
          timing: {
            allDay: false,
            start: '2026-03-30T09:30:00',
            end: '2026-03-30T09:45:00',
            timeZone: berlin,
          },
        },
      },
      now,
    );
    assert.doesNotMatch(copy, /EXDATE|RECURRENCE-ID|UID:standup/);
    assert.match(copy, /RRULE:FREQ=DAILY;COUNT=4\r?\n/);
    assert.match(copy, /X-TEAM-ROOM:Blue/);
    const occurrences = expandIcs(copy, { window, selfAddresses: [] }).occurrences;
    assert.deepEqual(
      occurrences.map((o) => [o.providerEventId.endsWith('later'), o.title, o.start, o.alerts?.length]),
      ['2026-03-30', '2026-03-31', '2026-04-01', '2026-04-02'].map((day) => [
        true,
        'Standup (new)',
        `${day}T09:30:00`,
        1,
      ]),
    );
  });
});
