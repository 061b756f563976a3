/**
 * find_meeting_times' slots: working hours as local wall-clock times (also across DST changes),
 * busy time with its buffer, the notice, the step's alignment, the limit, and the refusals of
 * working hours that cannot be meant.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { busyIntervals } from '../../src/domain/availability.ts';
import type { Event } from '../../src/domain/event.ts';
import {
  defaultWorkingHours,
  type MeetingQuery,
  meetingTimes,
  parseWorkingHours,
  type WorkingHoursInput,
} from '../../src/domain/meetingTimes.ts';
import type { PlacedEvent, Span } from '../../src/domain/occurrences.ts';
import { AppError } from '../../src/errors.ts';

const berlin = 'Europe/Berlin';
const newYork = 'America/New_York';
const instant = (text: string) => Temporal.Instant.from(text);
const span = (start: string, end: string): Span => ({ start: instant(start), end: instant(end) });
const week = (entries: readonly WorkingHoursInput[] = defaultWorkingHours) =>
  parseWorkingHours(entries, 'workingHours');

/** Monday 2 March 2026 to Thursday 5 March, Berlin (+01:00 all along); "now" long before. */
const query = (changes: Partial<MeetingQuery> = {}): MeetingQuery => ({
  window: span('2026-03-02T00:00:00+01:00', '2026-03-05T00:00:00+01:00'),
  timeZone: berlin,
  week: week(),
  durationMinutes: 60,
  now: instant('2026-01-01T00:00:00Z'),
  noticeMinutes: 0,
  bufferMinutes: 0,
  stepMinutes: 15,
  limit: 3,
  ...changes,
});

/** Slots as local times in the query's zone with their offsets, e.g. "2026-03-02T09:00+01:00/10:00+01:00". */
function show(slots: Span[], timeZone = berlin): string[] {
  const local = (i: Temporal.Instant) =>
    i.toZonedDateTimeISO(timeZone).toString({ timeZoneName: 'never', smallestUnit: 'minute' });
  return slots.map((s) => `${local(s.start)}/${local(s.end).slice(11)}`);
}

const slots = (busy: Span[], changes: Partial<MeetingQuery> = {}) =>
  show(meetingTimes(busy, query(changes)), changes.timeZone);

describe('meetingTimes', () => {
  it('gives the earliest slots in working hours, in order, not overlapping', () => {
    assert.deepEqual(slots([]), [
      '2026-03-02T09:00+01:00/10:00+01:00',
      '2026-03-02T10:00+01:00/11:00+01:00',
      '2026-03-02T11:00+01:00/12:00+01:00',
    ]);
  });

  it('skips busy time and starts after it on the step', () => {
    assert.deepEqual(slots([span('2026-03-02T09:30:00+01:00', '2026-03-02T10:10:00+01:00')]), [
      '2026-03-02T10:15+01:00/11:15+01:00',
      '2026-03-02T11:15+01:00/12:15+01:00',
      '2026-03-02T12:15+01:00/13:15+01:00',
    ]);
  });

  it('leaves out days without working hours (the weekend by default)', () => {
    const window = span('2026-02-28T00:00:00+01:00', '2026-03-03T00:00:00+01:00');
    assert.deepEqual(slots([], { window, limit: 1 }), ['2026-03-02T09:00+01:00/10:00+01:00']);
  });

  it('ends the last slot of a day at the end of working hours, then goes on the next day', () => {
    const busy = [span('2026-03-02T09:00:00+01:00', '2026-03-02T16:00:00+01:00')];
    assert.deepEqual(slots(busy), [
      '2026-03-02T16:00+01:00/17:00+01:00',
      '2026-03-03T09:00+01:00/10:00+01:00',
      '2026-03-03T10:00+01:00/11:00+01:00',
    ]);
    // 16:15 would end after 17:00.
    assert.deepEqual(slots([span('2026-03-02T09:00:00+01:00', '2026-03-02T16:05:00+01:00')], { limit: 1 }), [
      '2026-03-03T09:00+01:00/10:00+01:00',
    ]);
  });

  it('never lets a slot span two working periods, even touching ones', () => {
    const touching = week([
      { days: ['monday'], start: '09:00', end: '10:30' },
      { days: ['monday'], start: '10:30', end: '12:00' },
    ]);
    assert.deepEqual(slots([], { week: touching, limit: 5 }), [
      '2026-03-02T09:00+01:00/10:00+01:00',
      '2026-03-02T10:30+01:00/11:30+01:00',
    ]);
    assert.deepEqual(slots([], { week: touching, durationMinutes: 120 }), []);
  });

  it('takes working hours per weekday, several periods a day, 24:00 as the end of the day', () => {
    const custom = week([
      { days: ['tuesday', 'wednesday'], start: '13:00', end: '14:00' },
      { days: ['wednesday'], start: '07:30', end: '08:30' },
      { days: ['wednesday'], start: '23:00', end: '24:00' },
    ]);
    assert.deepEqual(slots([], { week: custom, limit: 10 }), [
      '2026-03-03T13:00+01:00/14:00+01:00',
      '2026-03-04T07:30+01:00/08:30+01:00',
      '2026-03-04T13:00+01:00/14:00+01:00',
      '2026-03-04T23:00+01:00/00:00+01:00',
    ]);
  });

  it('keeps the buffer clear of busy time on both sides, busy time before the window included', () => {
    const busy = [span('2026-03-02T10:00:00+01:00', '2026-03-02T11:00:00+01:00')];
    assert.deepEqual(slots(busy, { durationMinutes: 30, bufferMinutes: 15 }), [
      '2026-03-02T09:00+01:00/09:30+01:00',
      '2026-03-02T11:15+01:00/11:45+01:00',
      '2026-03-02T11:45+01:00/12:15+01:00',
    ]);
    // Without the buffer the half hour right before the busy time is free.
    assert.deepEqual(slots(busy, { durationMinutes: 30, limit: 2 }), [
      '2026-03-02T09:00+01:00/09:30+01:00',
      '2026-03-02T09:30+01:00/10:00+01:00',
    ]);
    const window = span('2026-03-02T11:00:00+01:00', '2026-03-03T00:00:00+01:00');
    assert.deepEqual(slots(busy, { window, bufferMinutes: 10, limit: 1 }), [
      '2026-03-02T11:15+01:00/12:15+01:00',
    ]);
  });

  it('starts no earlier than now plus the notice, on the step', () => {
    const now = instant('2026-03-02T10:07:00+01:00');
    assert.deepEqual(slots([], { now, limit: 1 }), ['2026-03-02T10:15+01:00/11:15+01:00']);
    assert.deepEqual(slots([], { now, noticeMinutes: 60, limit: 1 }), ['2026-03-02T11:15+01:00/12:15+01:00']);
    // A notice past the day's working hours moves to the next day.
    assert.deepEqual(slots([], { now, noticeMinutes: 24 * 60, limit: 1 }), [
      '2026-03-03T10:15+01:00/11:15+01:00',
    ]);
    // Now after the window: nothing.
    assert.deepEqual(slots([], { now: instant('2026-03-05T00:00:00+01:00') }), []);
  });

  it('aligns starts to local multiples of the step', () => {
    const window = span('2026-03-02T09:07:00+01:00', '2026-03-03T00:00:00+01:00');
    assert.deepEqual(slots([], { window, durationMinutes: 25, stepMinutes: 20, limit: 3 }), [
      '2026-03-02T09:20+01:00/09:45+01:00',
      '2026-03-02T10:00+01:00/10:25+01:00',
      '2026-03-02T10:40+01:00/11:05+01:00',
    ]);
    assert.deepEqual(slots([], { window, stepMinutes: 60, limit: 1 }), [
      '2026-03-02T10:00+01:00/11:00+01:00',
    ]);
    // In a zone with a :45 offset, alignment is still to local time.
    const kathmandu = 'Asia/Kathmandu';
    const nepal = span('2026-03-02T00:00:00+05:45', '2026-03-03T00:00:00+05:45');
    assert.deepEqual(
      slots([], {
        window: nepal,
        timeZone: kathmandu,
        stepMinutes: 30,
        limit: 1,
        now: instant('2026-03-02T03:20:00Z'),
      }),
      ['2026-03-02T09:30+05:45/10:30+05:45'],
    );
  });

  it('stops at the limit', () => {
    assert.equal(meetingTimes([], query({ limit: 1 })).length, 1);
    assert.equal(meetingTimes([], query({ limit: 50, durationMinutes: 5 })).length, 50);
  });

  it('skips busy time spanning days', () => {
    const busy = [span('2026-03-02T10:00:00+01:00', '2026-03-04T10:30:00+01:00')];
    assert.deepEqual(slots(busy), [
      '2026-03-02T09:00+01:00/10:00+01:00',
      '2026-03-04T10:30+01:00/11:30+01:00',
      '2026-03-04T11:30+01:00/12:30+01:00',
    ]);
  });

  it('finds nothing in a window shorter than the duration, or with no working period long enough', () => {
    const window = span('2026-03-02T09:00:00+01:00', '2026-03-02T09:45:00+01:00');
    assert.deepEqual(slots([], { window }), []);
    assert.deepEqual(slots([], { durationMinutes: 9 * 60 }), []);
    assert.deepEqual(slots([span('2026-03-01T00:00:00Z', '2026-03-06T00:00:00Z')]), []);
  });

  it('keeps 09:00-17:00 local across the spring change in Berlin', () => {
    // Summer time starts Sunday 29 March 2026 (02:00 → 03:00).
    const window = span('2026-03-26T00:00:00+01:00', '2026-04-01T00:00:00+02:00');
    assert.deepEqual(slots([], { window, durationMinutes: 480, limit: 10 }), [
      '2026-03-26T09:00+01:00/17:00+01:00',
      '2026-03-27T09:00+01:00/17:00+01:00',
      '2026-03-30T09:00+02:00/17:00+02:00',
      '2026-03-31T09:00+02:00/17:00+02:00',
    ]);
  });

  it('keeps 09:00-17:00 local across the autumn change in New York', () => {
    // Standard time returns Sunday 1 November 2026 (02:00 → 01:00).
    const window = span('2026-10-29T00:00:00-04:00', '2026-11-04T00:00:00-05:00');
    assert.deepEqual(slots([], { window, timeZone: newYork, durationMinutes: 480, limit: 10 }), [
      '2026-10-29T09:00-04:00/17:00-04:00',
      '2026-10-30T09:00-04:00/17:00-04:00',
      '2026-11-02T09:00-05:00/17:00-05:00',
      '2026-11-03T09:00-05:00/17:00-05:00',
    ]);
  });

  it('steps over the hour a spring change skips, and fills the hour an autumn change repeats', () => {
    const allDay = week([{ days: ['sunday'], start: '00:00', end: '24:00' }]);
    const spring = span('2026-03-08T00:00:00-05:00', '2026-03-09T00:00:00-04:00');
    assert.deepEqual(
      slots([], { window: spring, timeZone: newYork, week: allDay, stepMinutes: 60, limit: 4 }),
      [
        '2026-03-08T00:00-05:00/01:00-05:00',
        '2026-03-08T01:00-05:00/03:00-04:00',
        '2026-03-08T03:00-04:00/04:00-04:00',
        '2026-03-08T04:00-04:00/05:00-04:00',
      ],
    );
    const autumn = span('2026-11-01T00:00:00-04:00', '2026-11-02T00:00:00-05:00');
    assert.deepEqual(
      slots([], { window: autumn, timeZone: newYork, week: allDay, stepMinutes: 60, limit: 4 }),
      [
        '2026-11-01T00:00-04:00/01:00-04:00',
        '2026-11-01T01:00-04:00/01:00-05:00',
        '2026-11-01T01:00-05:00/02:00-05:00',
        '2026-11-01T02:00-05:00/03:00-05:00',
      ],
    );
    // The autumn Sunday is 25 hours long: a 24-hour slot fits in it.
    assert.deepEqual(
      slots([], { window: autumn, timeZone: newYork, week: allDay, durationMinutes: 1440, limit: 2 }),
      ['2026-11-01T00:00-04:00/23:00-05:00'],
    );
  });

  it('agrees with a check of every candidate against every busy span', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const base = instant('2026-03-02T00:00:00+01:00');
    for (let round = 0; round < 40; round += 1) {
      const raw = Array.from({ length: random(30) }, () => {
        const start = base.add({ minutes: random(3 * 24 * 60) });
        return { start, end: start.add({ minutes: 1 + random(180) }) };
      });
      const busy = busyIntervals(
        raw.map(({ start, end }) => placed(start, end)),
        span('2026-03-01T00:00:00Z', '2026-03-06T00:00:00Z'),
      );
      const q = query({
        durationMinutes: 5 + random(120),
        bufferMinutes: random(30),
        stepMinutes: ([5, 10, 15, 20, 30, 60] as const)[random(6)]!,
        limit: 50,
      });
      assert.deepEqual(show(meetingTimes(busy, q)), show(everyCandidate(raw, q)), `round ${round}`);
    }
  });
});

/** The slow reference: each local day's aligned candidates, each checked against every busy span. */
function everyCandidate(busy: Span[], q: MeetingQuery): Span[] {
  const result: Span[] = [];
  const minutes = (n: number) => Temporal.Duration.from({ minutes: n });
  let notBefore = q.now.add(minutes(q.noticeMinutes));
  if (Temporal.Instant.compare(notBefore, q.window.start) < 0) notBefore = q.window.start;
  let day = q.window.start.toZonedDateTimeISO(q.timeZone).toPlainDate();
  for (
    ;
    result.length < q.limit &&
    day.toZonedDateTime(q.timeZone).toInstant().epochNanoseconds < q.window.end.epochNanoseconds;
    day = day.add({ days: 1 })
  ) {
    for (const period of q.week[day.dayOfWeek - 1]!) {
      for (let m = period.start; m + q.durationMinutes <= period.end; m += q.stepMinutes) {
        const start = day.toPlainDateTime().add({ minutes: m }).toZonedDateTime(q.timeZone).toInstant();
        const end = start.add(minutes(q.durationMinutes));
        if (Temporal.Instant.compare(start, notBefore) < 0) continue;
        if (Temporal.Instant.compare(end, q.window.end) > 0) continue;
        const clash = busy.some(
          (b) =>
            Temporal.Instant.compare(b.start.subtract(minutes(q.bufferMinutes)), end) < 0 &&
            Temporal.Instant.compare(b.end.add(minutes(q.bufferMinutes)), start) > 0,
        );
        if (clash || result.length >= q.limit) continue;
        result.push({ start, end });
        notBefore = end;
      }
    }
  }
  return result;
}

let counter = 0;
function placed(
  start: Temporal.Instant,
  end: Temporal.Instant,
  status: Event['status'] = 'confirmed',
): PlacedEvent {
  counter += 1;
  return {
    startMs: start.epochMilliseconds,
    startNs: start.epochNanoseconds,
    endNs: end.epochNanoseconds,
    event: {
      eventId: `evt_${counter}`,
      calendarId: 'cal_1',
      occurrenceId: `occ_${counter}`,
      title: 'Busy',
      start: start.toString().slice(0, 19),
      timeZone: 'Etc/UTC',
      duration: 'PT1H',
      showWithoutTime: false,
      status,
      freeBusyStatus: 'busy',
      canRespond: false,
      canEdit: false,
    },
  };
}

describe('tentative events', () => {
  const window = span('2026-03-02T00:00:00+01:00', '2026-03-03T00:00:00+01:00');
  const events = [
    placed(instant('2026-03-02T09:00:00+01:00'), instant('2026-03-02T10:00:00+01:00'), 'tentative'),
    placed(instant('2026-03-02T10:00:00+01:00'), instant('2026-03-02T11:00:00+01:00')),
  ];

  it('block a slot by default', () => {
    assert.deepEqual(show(meetingTimes(busyIntervals(events, window), query({ limit: 1 }))), [
      '2026-03-02T11:00+01:00/12:00+01:00',
    ]);
  });

  it('leave it free when they are not busy', () => {
    const busy = busyIntervals(events, window, { tentativeIsBusy: false });
    assert.deepEqual(show(meetingTimes(busy, query({ limit: 1 }))), ['2026-03-02T09:00+01:00/10:00+01:00']);
  });
});

describe('parseWorkingHours', () => {
  const refused = (entries: WorkingHoursInput[], field: string) =>
    assert.throws(
      () => week(entries),
      (e) => e instanceof AppError && e.code === 'invalid_request' && e.details?.field === field,
    );

  it('refuses an end not after its start', () => {
    refused([{ days: ['monday'], start: '09:00', end: '09:00' }], 'workingHours.0.end');
    refused(
      [
        { days: ['monday'], start: '09:00', end: '10:00' },
        { days: ['friday'], start: '17:00', end: '08:00' },
      ],
      'workingHours.1.end',
    );
  });

  it('refuses times that are not HH:MM', () => {
    refused([{ days: ['monday'], start: '9:00', end: '17:00' }], 'workingHours.0.start');
    refused([{ days: ['monday'], start: '09:00', end: '24:30' }], 'workingHours.0.end');
    refused([{ days: ['monday'], start: '24:00', end: '24:00' }], 'workingHours.0.end');
  });

  it('refuses periods that overlap on a day, naming the later one', () => {
    refused(
      [
        { days: ['monday', 'tuesday'], start: '09:00', end: '12:00' },
        { days: ['tuesday'], start: '11:00', end: '13:00' },
      ],
      'workingHours.1',
    );
    refused([{ days: ['monday', 'monday'], start: '09:00', end: '12:00' }], 'workingHours.0');
  });

  it('keeps periods per weekday in order, touching ones apart', () => {
    assert.deepEqual(
      week([
        { days: ['monday'], start: '13:00', end: '24:00' },
        { days: ['monday', 'sunday'], start: '00:00', end: '13:00' },
      ]),
      [
        [
          { start: 0, end: 780 },
          { start: 780, end: 1440 },
        ],
        [],
        [],
        [],
        [],
        [],
        [{ start: 0, end: 780 }],
      ],
    );
  });
});
