/** Times of events being written: every form, every refusal, DST in several zones. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTiming } from '../../src/domain/eventTiming.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { showsChanges, showsResponse } from '../../src/domain/writeChecks.ts';
import { AppError } from '../../src/errors.ts';

const refused = (code: string, field: string) => (error: unknown) =>
  error instanceof AppError && error.code === code && error.details?.field === field;

describe('event timing', () => {
  it('reads all-day dates with an exclusive end', () => {
    assert.deepEqual(parseTiming({ start: '2026-03-29', end: '2026-03-30' }, 'Etc/UTC'), {
      allDay: true,
      startDate: '2026-03-29',
      endDate: '2026-03-30',
    });
    assert.throws(
      () => parseTiming({ start: '2026-03-29', end: '2026-03-29' }, 'Etc/UTC'),
      refused('invalid_request', 'end'),
    );
    assert.throws(
      () => parseTiming({ start: '2026-03-29', end: '2027-03-31' }, 'Etc/UTC'),
      refused('invalid_request', 'end'),
    );
    assert.throws(
      () => parseTiming({ start: '2026-02-29', end: '2026-03-01' }, 'Etc/UTC'),
      refused('invalid_request', 'start'),
    );
  });

  it('keeps local times in the zone given, in several zones, whatever the process zone', () => {
    for (const timeZone of [
      'Europe/Berlin',
      'America/New_York',
      'Pacific/Auckland',
      'Asia/Kolkata',
      'Australia/Lord_Howe',
    ]) {
      assert.deepEqual(
        parseTiming({ start: '2026-07-01T09:00', end: '2026-07-01T09:30:00', timeZone }, 'Etc/UTC'),
        {
          allDay: false,
          start: '2026-07-01T09:00:00',
          end: '2026-07-01T09:30:00',
          timeZone,
        },
      );
    }
  });

  it('refuses local times a DST change skips or repeats, naming both offsets of a repeat', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['Europe/Berlin', '2026-03-29T02:30:00', /does not exist/],
      ['Europe/Berlin', '2026-10-25T02:30:00', /happens twice.*\+02:00 or \+01:00/],
      ['America/New_York', '2026-03-08T02:15:00', /does not exist/],
      ['America/New_York', '2026-11-01T01:30:00', /happens twice.*-04:00 or -05:00/],
      ['Australia/Lord_Howe', '2026-10-04T02:15:00', /does not exist/],
      ['Pacific/Auckland', '2026-04-05T02:30:00', /happens twice/],
    ];
    for (const [timeZone, start, message] of cases) {
      assert.throws(
        () => parseTiming({ start, end: `${start.slice(0, 10)}T05:00:00`, timeZone }, 'Etc/UTC'),
        (error) => refused('invalid_request', 'start')(error) && message.test((error as Error).message),
        `${timeZone} ${start}`,
      );
    }
  });

  it('takes a repeated local time with the offset that picks one of the two', () => {
    const second = parseTiming(
      { start: '2026-10-25T02:30:00+01:00', end: '2026-10-25T03:30:00+01:00', timeZone: 'Europe/Berlin' },
      'Etc/UTC',
    );
    assert.deepEqual(second, {
      allDay: false,
      start: '2026-10-25T02:30:00',
      end: '2026-10-25T03:30:00',
      timeZone: 'Europe/Berlin',
    });
  });

  it('refuses an offset the zone does not have then, and a local time without a zone', () => {
    assert.throws(
      () =>
        parseTiming(
          { start: '2026-07-01T09:00:00+01:00', end: '2026-07-01T10:00:00+01:00', timeZone: 'Europe/Berlin' },
          'Etc/UTC',
        ),
      refused('invalid_request', 'start'),
    );
    assert.throws(
      () => parseTiming({ start: '2026-07-01T09:00:00', end: '2026-07-01T10:00:00' }, 'Europe/Berlin'),
      refused('time_zone_required', 'timeZone'),
    );
    assert.throws(
      () =>
        parseTiming(
          { start: '2026-07-01T09:00:00Z', end: '2026-07-01T10:00:00Z', timeZone: 'Europe/Berlinn' },
          'Etc/UTC',
        ),
      refused('invalid_time_zone', 'timeZone'),
    );
  });

  it('places instants given with an offset or Z in timeZone, else in the calendar zone', () => {
    assert.deepEqual(
      parseTiming({ start: '2026-07-01T07:00:00Z', end: '2026-07-01T08:00:00.999Z' }, 'Europe/Berlin'),
      {
        allDay: false,
        start: '2026-07-01T09:00:00',
        end: '2026-07-01T10:00:00',
        timeZone: 'Europe/Berlin',
      },
    );
    assert.deepEqual(
      parseTiming(
        { start: '2026-07-01T07:00:00Z', end: '2026-07-01T08:00:00Z', timeZone: 'Asia/Kolkata' },
        'Europe/Berlin',
      ),
      { allDay: false, start: '2026-07-01T12:30:00', end: '2026-07-01T13:30:00', timeZone: 'Asia/Kolkata' },
    );
    // Times read with the offsets of the reader's zone come back so: the calendar's zone checks nothing.
    assert.deepEqual(
      parseTiming({ start: '2026-07-01T09:00:00+02:00', end: '2026-07-01T10:00:00+02:00' }, 'Etc/UTC'),
      { allDay: false, start: '2026-07-01T07:00:00', end: '2026-07-01T08:00:00', timeZone: 'Etc/UTC' },
    );
  });

  it('refuses mixed forms, reversed or overlong spans and unreadable text', () => {
    const zone = { timeZone: 'Europe/Berlin' };
    const cases: Array<[Record<string, string>, string]> = [
      [{ start: '2026-07-01', end: '2026-07-01T10:00:00' }, 'end'],
      [{ start: '2026-07-01T10:00:00', end: '2026-07-01T10:00:00' }, 'end'],
      [{ start: '2026-07-01T10:00:00', end: '2026-07-01T09:00:00' }, 'end'],
      [{ start: '2026-07-01T10:00:00', end: '2027-07-03T10:00:00' }, 'end'],
      [{ start: '2026-07-01 10:00', end: '2026-07-01T11:00:00' }, 'start'],
      [{ start: '2026-13-01T10:00:00', end: '2026-07-01T11:00:00' }, 'start'],
      [{ start: '1899-12-31', end: '1900-01-01' }, 'start'],
      [{ start: 'next tuesday', end: '2026-07-01T11:00:00' }, 'start'],
    ];
    for (const [times, field] of cases) {
      assert.throws(
        () => parseTiming({ ...zone, ...times } as never, 'Etc/UTC'),
        refused('invalid_request', field),
        JSON.stringify(times),
      );
    }
  });
});

describe('whether a fresh read shows a write', () => {
  const read: ProviderOccurrence = {
    providerEventId: 'e',
    start: '2026-03-28T23:30:00',
    timeZone: 'Europe/Berlin',
    duration: 'PT3H',
    showWithoutTime: false,
    title: 'Dentist ',
    status: 'confirmed',
    freeBusyStatus: 'busy',
    responseStatus: 'tentative',
    facts: {
      recurring: false,
      organizer: 'self',
      attendees: false,
      conference: false,
      managedCopy: false,
      userIsAttendee: false,
    },
  };

  it('compares texts, availability, privacy and times as instants (across the DST night)', () => {
    const timing = {
      allDay: false as const,
      start: '2026-03-28T23:30:00',
      end: '2026-03-29T03:30:00',
      timeZone: 'Europe/Berlin',
    };
    assert.equal(
      showsChanges(read, { title: 'Dentist', timing, description: null, privacy: 'public' }),
      true,
    );
    assert.equal(showsChanges(read, { timing: { ...timing, end: '2026-03-29T04:30:00' } }), false);
    assert.equal(showsChanges(read, { title: 'Doctor' }), false);
    // A CalDAV object holds CR and CRLF as the line break it reads back.
    const notes = { ...read, description: 'first\nsecond\nthird' };
    assert.equal(showsChanges(notes, { description: 'first\r\nsecond\rthird' }), true);
    assert.equal(showsChanges(notes, { description: 'first second third' }), false);
    assert.equal(showsChanges(read, { location: 'Main St' }), false);
    assert.equal(showsChanges(read, { freeBusyStatus: 'free' }), false);
    assert.equal(showsChanges(read, { privacy: 'private' }), false);
    assert.equal(
      showsChanges(read, { timing: { allDay: true, startDate: '2026-03-28', endDate: '2026-03-29' } }),
      false,
    );
    const allDay = { ...read, start: '2026-03-28T00:00:00', duration: 'P2D', showWithoutTime: true };
    assert.equal(
      showsChanges(allDay, { timing: { allDay: true, startDate: '2026-03-28', endDate: '2026-03-30' } }),
      true,
    );
    assert.equal(showsResponse(read, 'tentative'), true);
    assert.equal(showsResponse(read, 'accepted'), false);
  });
});
