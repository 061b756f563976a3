/**
 * Working hours in the pure core: what a setting may be (one period within a day: across
 * midnight refused), whether a slot lies inside a person's hours in their own zone across
 * daylight-saving changes, and meeting slots kept inside every attendee's hours across two zones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { meetingTimes, parseWorkingHours as parseWeek } from '../../src/domain/meetingTimes.ts';
import { bestSlots, inHours, slotPeople } from '../../src/domain/slotPeople.ts';
import { parseWorkingHours, type WorkingHours, withinHours } from '../../src/domain/workingHours.ts';
import type { AppError } from '../../src/errors.ts';

const instant = (text: string) => Temporal.Instant.from(text);
const slot = (start: string, end: string) => ({ start: instant(start), end: instant(end) });
const newYork: WorkingHours = {
  days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
  start: '09:00',
  end: '17:00',
  timeZone: 'America/New_York',
};

describe('a working hours setting', () => {
  const good = { days: ['friday', 'monday'], start: '09:00', end: '17:30', timeZone: 'Europe/Berlin' };

  it('keeps weekdays in week order, once each', () => {
    assert.deepEqual(parseWorkingHours({ ...good, days: ['friday', 'monday', 'friday'] }), {
      ...good,
      days: ['monday', 'friday'],
    });
    assert.equal(parseWorkingHours({ ...good, end: '24:00' }).end, '24:00');
  });

  it('refuses each wrong field by name: no days, an unknown day, times not HH:MM, end not after start (no night across midnight), a zone that is not IANA', () => {
    const refused = (fields: Partial<typeof good>, field: string, code = 'invalid_request') =>
      assert.throws(
        () => parseWorkingHours({ ...good, ...fields }),
        (error: AppError) => error.code === code && error.details?.field === field,
        JSON.stringify(fields),
      );
    refused({ days: [] }, 'days');
    refused({ days: ['Monday'] }, 'days');
    refused({ start: '9:00' }, 'start');
    refused({ start: '24:00' }, 'end');
    refused({ end: '17:60' }, 'end');
    refused({ start: '22:00', end: '06:00' }, 'end');
    refused({ start: '09:00', end: '09:00' }, 'end');
    refused({ timeZone: 'Mars/Olympus' }, 'timeZone', 'invalid_time_zone');
    refused({ timeZone: '+01:00' }, 'timeZone', 'invalid_time_zone');
  });
});

describe('a slot inside working hours', () => {
  it('holds to local times in the person’s zone, on their days only', () => {
    // Monday 2 March 2026: New York is UTC-5.
    assert.equal(withinHours(newYork, slot('2026-03-02T14:00:00Z', '2026-03-02T15:00:00Z')), true);
    assert.equal(withinHours(newYork, slot('2026-03-02T21:00:00Z', '2026-03-02T22:00:00Z')), true);
    assert.equal(withinHours(newYork, slot('2026-03-02T13:30:00Z', '2026-03-02T14:30:00Z')), false);
    assert.equal(withinHours(newYork, slot('2026-03-02T21:30:00Z', '2026-03-02T22:30:00Z')), false);
    // Saturday.
    assert.equal(withinHours(newYork, slot('2026-03-07T15:00:00Z', '2026-03-07T16:00:00Z')), false);
  });

  it('moves with the daylight-saving change: 09:00 stays 09:00 local (8 March 2026 in New York)', () => {
    // Friday before: 09:00 EST is 14:00 UTC; Monday after: 09:00 EDT is 13:00 UTC.
    assert.equal(withinHours(newYork, slot('2026-03-06T13:00:00Z', '2026-03-06T14:00:00Z')), false);
    assert.equal(withinHours(newYork, slot('2026-03-09T13:00:00Z', '2026-03-09T14:00:00Z')), true);
    assert.equal(withinHours(newYork, slot('2026-03-09T20:30:00Z', '2026-03-09T21:30:00Z')), false);
  });

  it('moves a skipped local start forward by the gap (02:30 is 03:30 EDT on 8 March)', () => {
    const night = { ...newYork, days: ['sunday' as const], start: '02:30', end: '06:00' };
    assert.equal(withinHours(night, slot('2026-03-08T07:30:00Z', '2026-03-08T08:30:00Z')), true);
    assert.equal(withinHours(night, slot('2026-03-08T07:00:00Z', '2026-03-08T08:00:00Z')), false);
  });

  it('names who is outside their hours, and ranks best-effort slots by busy or outside, once each', () => {
    const people = [
      { email: 'ny@x.example', busy: [], workingHours: newYork },
      {
        email: 'busy-ny@x.example',
        busy: [
          {
            startNs: instant('2026-03-02T13:00:00Z').epochNanoseconds,
            endNs: instant('2026-03-02T14:00:00Z').epochNanoseconds,
          },
        ],
        workingHours: newYork,
      },
      { email: 'anytime@x.example' },
    ];
    const early = slot('2026-03-02T13:00:00Z', '2026-03-02T14:00:00Z');
    const later = slot('2026-03-02T14:00:00Z', '2026-03-02T15:00:00Z');
    assert.deepEqual(slotPeople(people, early), {
      free: ['ny@x.example'],
      busy: ['busy-ny@x.example'],
      unknown: ['anytime@x.example'],
      outsideHours: ['ny@x.example', 'busy-ny@x.example'],
    });
    assert.equal(inHours(people[2]!, early), true, 'no hours known: held to none');
    assert.deepEqual(bestSlots([early, later], people, 1), [later]);
  });
});

describe('meeting slots inside two zones’ working hours across their daylight-saving changes', () => {
  // Caller in Berlin (09:00–17:00, CET until 29 March), attendee in New York (EDT from 8 March).
  const slots = (from: string, to: string) =>
    meetingTimes([], {
      window: { start: instant(from), end: instant(to) },
      timeZone: 'Europe/Berlin',
      week: parseWeek(
        [{ days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'], start: '09:00', end: '17:00' }],
        'workingHours',
      ),
      durationMinutes: 60,
      now: instant('2026-03-01T00:00:00Z'),
      noticeMinutes: 0,
      bufferMinutes: 0,
      stepMinutes: 60,
      limit: 20,
      accept: (candidate) => withinHours(newYork, candidate),
    }).map((s) => s.start.toZonedDateTimeISO('Europe/Berlin').toPlainDateTime().toString().slice(0, 16));

  it('gives the shared hours: 15:00 and 16:00 Berlin before 8 March, from 14:00 after it, from 15:00 again after 29 March', () => {
    assert.deepEqual(slots('2026-03-06T00:00:00Z', '2026-03-07T00:00:00Z'), [
      '2026-03-06T15:00',
      '2026-03-06T16:00',
    ]);
    assert.deepEqual(slots('2026-03-09T00:00:00Z', '2026-03-10T00:00:00Z'), [
      '2026-03-09T14:00',
      '2026-03-09T15:00',
      '2026-03-09T16:00',
    ]);
    assert.deepEqual(slots('2026-03-30T00:00:00Z', '2026-03-31T00:00:00Z'), [
      '2026-03-30T15:00',
      '2026-03-30T16:00',
    ]);
  });
});
