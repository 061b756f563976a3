/**
 * The shared real-world fixtures (../shared/fixtures/ical, see its SOURCES.md). Expected values
 * are worked out from the files by hand: local wall times, the zone's offset on that day, the
 * rule's calendar arithmetic.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calendarTimeZone, expandIcs } from '../../src/domain/ical/expand.ts';
import { assertOccurrenceShape } from '../helpers/occurrenceShape.ts';
import { expandFixture, fixture, fixtureNames, instantOf, timing, window } from './icalFixtures.ts';

describe('every shared fixture', () => {
  for (const name of fixtureNames()) {
    it(`${name} expands without throwing, into well-formed occurrences`, () => {
      const result = expandFixture(name, '1990-01-01T00:00:00Z', '2030-01-01T00:00:00Z');
      for (const occurrence of result.occurrences) assertOccurrenceShape(occurrence, name);
      for (const item of result.skipped) assert.ok(item.reason.length > 0);
    });
  }
});

describe('icaljs__rdate_exdate.ics', () => {
  it('lets a DATE exclusion knock out the UTC instance on that day', () => {
    const result = expandFixture('icaljs__rdate_exdate.ics', '2024-06-01T00:00:00Z', '2024-07-01T00:00:00Z');
    assert.deepEqual(timing(result), [
      '2024-06-09T03:00:00 Etc/UTC PT0S',
      '2024-06-10T03:00:00 Etc/UTC PT0S',
      '2024-06-12T03:00:00 Etc/UTC PT0S',
    ]);
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.recurrenceId),
      ['2024-06-09T03:00:00Z', '2024-06-10T03:00:00Z', '2024-06-12T03:00:00Z'],
    );
    assert.ok(result.occurrences.every((occurrence) => occurrence.facts.recurring));
  });
});

describe('icaljs__recur_instances.ics', () => {
  const name = 'icaljs__recur_instances.ics';
  const options = { selfAddresses: ['CalMozilla1@Gmail.com'] };

  it('combines the monthly rule, RDATEs, EXDATEs and both overrides', () => {
    const result = expandFixture(name, '2012-10-01T00:00:00Z', '2013-06-01T00:00:00Z', options);
    // First Tuesdays at 10:00 Los Angeles (PDT until 4 Nov 2012, PST until 10 Mar 2013), Dec 4,
    // Feb 5 and Apr 2 excluded; RDATEs Nov 5, 10, 30; Oct 2 moved to 15:00; Nov 5 (named by its
    // UTC instant 18:00Z) moved to Nov 6 20:00.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [
        occurrence.recurrenceId,
        occurrence.start,
        occurrence.duration,
      ]),
      [
        ['2012-10-02T17:00:00Z', '2012-10-02T15:00:00', 'PT30M'],
        ['2012-11-06T18:00:00Z', '2012-11-06T10:00:00', 'PT30M'],
        ['2012-11-05T18:00:00Z', '2012-11-06T20:00:00', 'PT30M'],
        ['2012-11-10T18:00:00Z', '2012-11-10T10:00:00', 'PT30M'],
        ['2012-11-30T18:00:00Z', '2012-11-30T10:00:00', 'PT30M'],
        ['2013-01-01T18:00:00Z', '2013-01-01T10:00:00', 'PT30M'],
        ['2013-03-05T18:00:00Z', '2013-03-05T10:00:00', 'PT30M'],
        ['2013-05-07T17:00:00Z', '2013-05-07T10:00:00', 'PT30M'],
      ],
    );
    assert.ok(result.occurrences.every((occurrence) => occurrence.timeZone === 'America/Los_Angeles'));
    assert.deepEqual(result.skipped, []);
  });

  it('shows the override as written and the master everywhere else', () => {
    const [moved, regular] = expandFixture(
      name,
      '2012-10-01T00:00:00Z',
      '2012-11-07T00:00:00Z',
      options,
    ).occurrences;
    assert.equal(moved?.description, 'I HAZ CHANGED!');
    assert.equal(moved?.locations, undefined);
    assert.equal(moved?.color, undefined);
    assert.equal(moved?.facts.userIsAttendee, false);
    assert.equal(regular?.description, 'IAM FOO');
    assert.deepEqual(regular?.locations, [{ name: 'PLACE' }]);
    assert.equal(regular?.color, 'red');
    assert.equal(regular?.privacy, 'public');
    assert.equal(regular?.status, 'confirmed');
    assert.equal(regular?.freeBusyStatus, 'busy');
    assert.deepEqual(regular?.alerts, [{ offset: '-PT5M', action: 'display' }]);
    assert.equal(regular?.responseStatus, 'accepted');
    assert.deepEqual(regular?.facts, {
      recurring: true,
      organizer: 'other',
      attendees: true,
      userIsAttendee: true,
      conference: false,
      managedCopy: false,
    });
  });

  it('gives an RDATE PERIOD its own length', () => {
    const result = expandFixture(name, '2023-11-20T00:00:00Z', '2023-11-30T00:00:00Z');
    // 09:00Z is 01:00 PST; the period runs 09:00Z–12:30Z.
    assert.deepEqual(timing(result), [
      '2023-11-23T01:00:00 America/Los_Angeles PT30M',
      '2023-11-25T01:00:00 America/Los_Angeles PT3H30M',
    ]);
  });
});

describe('icaljs__google_birthday.ics', () => {
  const result = expandFixture('icaljs__google_birthday.ics', '2012-01-01T00:00:00Z', '2015-01-01T00:00:00Z');

  it('expands the all-day master (COUNT=1 plus RDATEs with a stray Z) and keeps the orphans', () => {
    const view = result.occurrences.map((occurrence) => [
      occurrence.providerEventId,
      occurrence.recurrenceId,
      occurrence.start,
      occurrence.duration,
    ]);
    const master = '2014_BIRTHDAY_79d389868f96182e@google.com';
    const orphan = 'BIRTHDAY_79d389868f96182e@google.com';
    assert.deepEqual(
      view.filter(([id]) => id === master),
      ['2012-12-10', '2013-12-10', '2014-12-10'].map((day) => [master, day, `${day}T00:00:00`, 'P1D']),
    );
    assert.deepEqual(
      view.filter(([id]) => id === orphan),
      ['2012-12-10', '2013-12-10', '2014-12-10'].map((day) => [orphan, day, `${day}T00:00:00`, 'P1D']),
    );
    assert.equal(result.occurrences.length, 6);
  });

  it('marks the feed as all-day, managed, public', () => {
    for (const occurrence of result.occurrences) {
      assert.equal(occurrence.showWithoutTime, true);
      assert.equal(occurrence.timeZone, undefined);
      assert.equal(occurrence.privacy, 'public');
      assert.equal(occurrence.facts.managedCopy, true);
      assert.equal(occurrence.facts.recurring, true);
      assert.equal(occurrence.facts.organizer, 'none');
    }
    const orphan = result.occurrences.find((occurrence) =>
      occurrence.providerEventId.startsWith('BIRTHDAY_'),
    );
    assert.equal(orphan?.description, "Today is PErson #2's birthday!");
    assert.equal(calendarTimeZone(fixture('icaljs__google_birthday.ics')), 'America/Los_Angeles');
  });
});

describe('icaljs__day_long_recur_yearly.ics', () => {
  it('repeats the all-day event on weekdays; free; drops absolute-trigger alarms and empty fields', () => {
    const result = expandFixture(
      'icaljs__day_long_recur_yearly.ics',
      '2012-08-06T00:00:00Z',
      '2012-08-11T00:00:00Z',
    );
    // All-day dates are compared as if UTC with 26 h slack: Fri Aug 3 ends before the slack, the
    // next Monday (Aug 13) starts after it.
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.start),
      ['2012-08-06', '2012-08-07', '2012-08-08', '2012-08-09', '2012-08-10'].map((day) => `${day}T00:00:00`),
    );
    for (const occurrence of result.occurrences) {
      assert.equal(occurrence.showWithoutTime, true);
      assert.equal(occurrence.duration, 'P1D');
      assert.equal(occurrence.freeBusyStatus, 'free');
      assert.equal(occurrence.alerts, undefined);
      assert.equal(occurrence.description, undefined);
      assert.equal(occurrence.locations, undefined);
      assert.equal(occurrence.title, 'Day Long Event');
    }
  });
});

describe('icaljs__duration_instead_of_dtend.ics', () => {
  const name = 'icaljs__duration_instead_of_dtend.ics';

  it('keeps DURATION:P1D as a nominal day', () => {
    const result = expandFixture(name, '2012-06-30T00:00:00Z', '2012-07-02T00:00:00Z');
    assert.deepEqual(timing(result), ['2012-06-30T06:00:00 America/Los_Angeles P1D']);
    assert.equal(result.occurrences[0]?.recurrenceId, undefined);
    assert.equal(result.occurrences[0]?.facts.recurring, false);
    // Ends Jul 1 06:00 PDT = 13:00Z.
    assert.equal(expandFixture(name, '2012-07-01T12:59:00Z', '2012-07-02T00:00:00Z').occurrences.length, 1);
    assert.equal(expandFixture(name, '2012-07-01T13:00:00Z', '2012-07-02T00:00:00Z').occurrences.length, 0);
  });

  it('lasts 25 hours when the day has 25 (the same event on the day before DST ends)', () => {
    const ics = fixture(name).replace('20120630T060000', '20121103T060000');
    const at = (start: string) =>
      expandIcs(ics, { window: window(start, '2012-11-05T00:00:00Z') }).occurrences.length;
    // Nov 3 06:00 PDT (13:00Z) + P1D = Nov 4 06:00 PST = 14:00Z, not 13:00Z.
    assert.equal(at('2012-11-04T13:30:00Z'), 1);
    assert.equal(at('2012-11-04T14:00:00Z'), 0);
  });
});

describe('recurring__issue_62_moved_event.ics', () => {
  const name = 'recurring__issue_62_moved_event.ics';

  it('applies an override that comes before its master', () => {
    const result = expandFixture(name, '2021-11-01T00:00:00Z', '2022-02-01T00:00:00Z');
    // Last Fridays at 21:30 Berlin (CET, 20:30Z): Nov 26, Dec 31 (moved to Dec 17), Jan 28.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.recurrenceId, occurrence.start]),
      [
        ['2021-11-26T20:30:00Z', '2021-11-26T21:30:00'],
        ['2021-12-31T20:30:00Z', '2021-12-17T21:30:00'],
        ['2022-01-28T20:30:00Z', '2022-01-28T21:30:00'],
      ],
    );
    for (const occurrence of result.occurrences) {
      assert.equal(occurrence.duration, 'PT0S');
      assert.equal(occurrence.timeZone, 'Europe/Berlin');
      assert.equal(occurrence.freeBusyStatus, 'free');
      assert.match(occurrence.description ?? '', /^Jeden letzten Freitag im Monat <a href=/);
    }
  });

  it('places the zero-length moved instance by start ≤ occurrence < end', () => {
    const moved = (start: string, end: string) =>
      expandFixture(name, start, end).occurrences.filter(
        (occurrence) => occurrence.start === '2021-12-17T21:30:00',
      );
    assert.equal(moved('2021-12-17T20:30:00Z', '2021-12-17T20:30:01Z').length, 1);
    assert.equal(moved('2021-12-17T20:00:00Z', '2021-12-17T20:30:00Z').length, 0);
  });
});

describe('recurring__recurring_events_moved.ics', () => {
  it('moves instances of both Berlin series; DTEND wins over a conflicting DURATION', () => {
    const result = expandFixture(
      'recurring__recurring_events_moved.ics',
      '2019-03-01T00:00:00Z',
      '2019-04-01T00:00:00Z',
    );
    // UNTIL=20190310T010000Z is 02:00 CET on Mar 10, UNTIL=20190320T030000Z 04:00 on Mar 20: both last days count.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.start, occurrence.duration, occurrence.title]),
      [
        ['2019-03-07T02:00:00', 'PT1H', 'New Event'],
        ['2019-03-08T01:00:00', 'PT1H', 'New Event'],
        ['2019-03-09T03:00:00', 'PT1H', 'New Event'],
        ['2019-03-10T02:00:00', 'PT1H', 'New Event'],
        ['2019-03-18T04:00:00', 'PT1H', 'test7'],
        ['2019-03-19T04:00:00', 'PT1H', 'test7 - edited'],
        ['2019-03-20T04:00:00', 'PT1H', 'test7'],
      ],
    );
    const edited = result.occurrences[5];
    assert.equal(edited?.recurrenceId, '2019-03-19T03:00:00Z');
    assert.deepEqual(edited?.locations, [{ name: 'location' }]);
    assert.equal(edited?.description, undefined);
    assert.equal(result.occurrences[4]?.description, 'description should be the same');
  });
});

describe('recurring__each_week_but_two_deleted.ics', () => {
  it('matches UTC exclusions against Berlin instances (the previous UTC day)', () => {
    const result = expandFixture(
      'recurring__each_week_but_two_deleted.ics',
      '2019-03-01T00:00:00Z',
      '2019-05-01T00:00:00Z',
    );
    // COUNT=8 Mondays from Mar 4 at 00:30; 23:30Z on Mar 10 and Mar 24 are 00:30 CET on Mar 11 and 25.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.start, instantOf(occurrence)]),
      [
        ['2019-03-04T00:30:00', '2019-03-03T23:30:00Z'],
        ['2019-03-18T00:30:00', '2019-03-17T23:30:00Z'],
        ['2019-04-01T00:30:00', '2019-03-31T22:30:00Z'],
        ['2019-04-08T00:30:00', '2019-04-07T22:30:00Z'],
        ['2019-04-15T00:30:00', '2019-04-14T22:30:00Z'],
        ['2019-04-22T00:30:00', '2019-04-21T22:30:00Z'],
      ],
    );
    assert.ok(result.occurrences.every((occurrence) => occurrence.privacy === 'public'));
  });
});

describe('recurring__issue_148_ignored_exdate.ics', () => {
  it('takes the later duplicate master (higher SEQUENCE) with its EXDATE', () => {
    const result = expandFixture(
      'recurring__issue_148_ignored_exdate.ics',
      '2024-06-01T00:00:00Z',
      '2024-09-01T00:00:00Z',
      { selfAddresses: ['someone@example.com'] },
    );
    // Every other Monday until Aug 1: Jul 1, Jul 15 (excluded), Jul 29; each 7 days long.
    assert.deepEqual(timing(result), [
      '2024-07-01T00:00:00 floating P7D',
      '2024-07-29T00:00:00 floating P7D',
    ]);
    for (const occurrence of result.occurrences) {
      assert.equal(occurrence.title, 'test123 - edited');
      assert.deepEqual(occurrence.keywords, ['other']);
      assert.equal(occurrence.facts.organizer, 'other');
      assert.equal(occurrence.showWithoutTime, true);
    }
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.recurrenceId),
      ['2024-07-01', '2024-07-29'],
    );
  });
});

describe('recurring__issue_20_exdate_ignored.ics', () => {
  it('applies a folded UTC EXDATE list across the DST change', () => {
    const result = expandFixture(
      'recurring__issue_20_exdate_ignored.ics',
      '2019-10-01T00:00:00Z',
      '2020-03-01T00:00:00Z',
    );
    // Tuesdays 16:15 Berlin (14:15Z in CEST, 15:15Z in CET) until Feb 4 16:14:59: what the list leaves.
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.recurrenceId),
      [
        '2019-10-29T15:15:00Z',
        '2019-11-12T15:15:00Z',
        '2019-12-10T15:15:00Z',
        '2020-01-07T15:15:00Z',
        '2020-01-14T15:15:00Z',
        '2020-01-21T15:15:00Z',
        '2020-01-28T15:15:00Z',
      ],
    );
    assert.ok(result.occurrences.every((occurrence) => occurrence.duration === 'PT1H30M'));
    assert.ok(result.occurrences.every((occurrence) => occurrence.start.endsWith('T16:15:00')));
  });
});

describe('recurring__issue_48_dst.ics', () => {
  const name = 'recurring__issue_48_dst.ics';
  const chicagoDay = (day: string) => {
    const start = Temporal.PlainDate.from(day).toZonedDateTime('America/Chicago');
    return [start.toInstant().toString(), start.add({ days: 1 }).toInstant().toString()] as const;
  };

  it('finds the four Friday events between 08:00 and 15:00 Chicago after DST ended', () => {
    const result = expandFixture(name, '2020-12-11T14:00:00Z', '2020-12-11T21:00:00Z');
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.start, occurrence.title, instantOf(occurrence)]),
      [
        ['2020-12-11T08:15:00', 'Event#1 ', '2020-12-11T14:15:00Z'],
        ['2020-12-11T10:15:00', 'Event#2', '2020-12-11T16:15:00Z'],
        ['2020-12-11T12:30:00', 'Event#3', '2020-12-11T18:30:00Z'],
        ['2020-12-11T14:15:00', 'Event#4', '2020-12-11T20:15:00Z'],
      ],
    );
    assert.equal(expandFixture(name, '2020-12-11T15:00:00Z', '2020-12-11T21:00:00Z').occurrences.length, 3);
  });

  it('keeps wall-clock times across the change and honours the TZID exclusions', () => {
    const before = expandFixture(name, ...chicagoDay('2020-10-30')).occurrences.map(instantOf);
    assert.deepEqual(before, ['2020-10-30T15:15:00Z', '2020-10-30T19:15:00Z']);
    // Nov 6: Event#4 and the new Friday Event#3 are excluded; Event#2 is now 16:15Z.
    const after = expandFixture(name, ...chicagoDay('2020-11-06')).occurrences.map(instantOf);
    assert.deepEqual(after, ['2020-11-06T16:15:00Z']);
    assert.deepEqual(expandFixture(name, ...chicagoDay('2020-11-27')).occurrences, []);
  });
});

describe('recurring__issue_75_range_parameter.ics', () => {
  it('moves this and all later instances (RDATE included) with RANGE=THISANDFUTURE', () => {
    const result = expandFixture(
      'recurring__issue_75_range_parameter.ics',
      '2024-08-30T00:00:00Z',
      '2024-09-30T00:00:00Z',
    );
    assert.deepEqual(
      result.occurrences.map((occurrence) => [
        occurrence.recurrenceId,
        occurrence.start,
        occurrence.duration,
        occurrence.title,
      ]),
      [
        ['2024-09-01T12:00:00Z', '2024-09-01T12:00:00', 'PT2H', 'ORIGINAL EVENT'],
        ['2024-09-03T12:00:00Z', '2024-09-03T12:00:00', 'PT2H', 'ORIGINAL EVENT'],
        ['2024-09-05T12:00:00Z', '2024-09-05T12:00:00', 'PT2H', 'ORIGINAL EVENT'],
        ['2024-09-07T12:00:00Z', '2024-09-07T12:00:00', 'PT2H', 'ORIGINAL EVENT'],
        ['2024-09-09T12:00:00Z', '2024-09-09T12:00:00', 'PT2H', 'ORIGINAL EVENT'],
        ['2024-09-11T12:00:00Z', '2024-09-11T12:00:00', 'PT2H', 'ORIGINAL EVENT'],
        ['2024-09-13T12:00:00Z', '2024-09-13T09:00:00', 'PT7H', 'MODIFIED EVENT'],
        ['2024-09-14T09:00:00Z', '2024-09-14T06:00:00', 'PT7H', 'MODIFIED EVENT'],
        ['2024-09-15T12:00:00Z', '2024-09-15T17:00:00', 'PT2H', 'MODIFIED EVENT'],
        ['2024-09-17T12:00:00Z', '2024-09-17T09:00:00', 'PT7H', 'MODIFIED EVENT'],
        ['2024-09-19T12:00:00Z', '2024-09-19T09:00:00', 'PT7H', 'MODIFIED EVENT'],
        ['2024-09-21T12:00:00Z', '2024-09-22T14:22:00', 'PT1H51M', 'EDITED EVENT'],
        ['2024-09-23T12:00:00Z', '2024-09-24T14:22:00', 'PT1H51M', 'EDITED EVENT'],
        ['2024-09-25T12:00:00Z', '2024-09-26T14:22:00', 'PT1H51M', 'EDITED EVENT'],
        ['2024-09-27T12:00:00Z', '2024-09-28T14:22:00', 'PT1H51M', 'EDITED EVENT'],
      ],
    );
    assert.equal(result.occurrences[0]?.description, ' 2 hours long');
  });

  it('ends with the DATE UNTIL (Sep 20, 2025 is the last day of the rule)', () => {
    const result = expandFixture(
      'recurring__issue_75_range_parameter.ics',
      '2025-09-16T00:00:00Z',
      '2025-10-15T00:00:00Z',
    );
    // Every other day from 2024-09-01 (384 days before Sep 20): 16, 18, 20 remain, shifted by +1 day 2h22m.
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.recurrenceId),
      ['2025-09-16T12:00:00Z', '2025-09-18T12:00:00Z', '2025-09-20T12:00:00Z'],
    );
  });
});

describe('recurring__issue_86_x_wr_timezone_without_time_zone_in_dt.ics', () => {
  const name = 'recurring__issue_86_x_wr_timezone_without_time_zone_in_dt.ics';

  it('keeps floating times floating and reports the declared zone separately', () => {
    const result = expandFixture(name, '2021-09-16T00:00:00Z', '2021-09-17T00:00:00Z');
    assert.deepEqual(timing(result), ['2021-09-16T21:00:00 floating PT1H45M']);
    assert.equal(result.occurrences[0]?.showWithoutTime, false);
    assert.equal(calendarTimeZone(fixture(name)), 'Europe/Brussels');
  });

  it('includes floating occurrences within 26 hours of the window', () => {
    // Local 21:00–22:45 read as UTC; 26 h after its end is Sep 18 00:45Z.
    assert.equal(expandFixture(name, '2021-09-18T00:00:00Z', '2021-09-19T00:00:00Z').occurrences.length, 1);
    assert.equal(expandFixture(name, '2021-09-18T01:00:00Z', '2021-09-19T00:00:00Z').occurrences.length, 0);
  });
});

describe('recurring__issue_201_mixed_datetime_and_date.ics', () => {
  it('reads a DATE start with a UTC DATE-TIME end as an all-day span', () => {
    const result = expandFixture(
      'recurring__issue_201_mixed_datetime_and_date.ics',
      '2023-07-01T00:00:00Z',
      '2023-09-01T00:00:00Z',
    );
    // Jul 24 up to Aug 17 00:00: 24 days.
    assert.deepEqual(timing(result), ['2023-07-24T00:00:00 floating P24D']);
    assert.equal(result.occurrences[0]?.showWithoutTime, true);
    assert.equal(result.occurrences[0]?.title, 'Congés');
    assert.equal(result.occurrences[0]?.freeBusyStatus, 'free');
  });
});

describe('icalendar__issue_218_bad_tzid.ics', () => {
  it('computes a non-IANA TZID from its VTIMEZONE and reports the instant in Etc/UTC', () => {
    const result = expandFixture(
      'icalendar__issue_218_bad_tzid.ics',
      '2017-02-01T00:00:00Z',
      '2017-03-01T00:00:00Z',
    );
    // 23:00 at +11:00 is 12:00Z.
    assert.deepEqual(timing(result), ['2017-02-28T12:00:00 Etc/UTC PT30M']);
    assert.equal(result.occurrences[0]?.status, 'confirmed');
    assert.equal(result.occurrences[0]?.title, 'TESTIN');
  });
});

describe('icalendar__issue_722_missing_timezones.ics', () => {
  const name = 'icalendar__issue_722_missing_timezones.ics';
  const result = expandFixture(name, '2014-01-01T00:00:00Z', '2025-01-01T00:00:00Z');

  it('resolves TZIDs without VTIMEZONEs and places a PERIOD RDATE from another zone', () => {
    const series = result.occurrences.filter(
      (occurrence) => occurrence.title === 'an event with a custom tz name',
    );
    // 08:00 New York (12:00Z) to 08:00 Los Angeles (15:00Z); 12:00 Berlin (10:00Z) is 06:00 New York.
    assert.deepEqual(
      series.map((occurrence) => [
        occurrence.recurrenceId,
        occurrence.start,
        occurrence.timeZone,
        occurrence.duration,
      ]),
      [
        ['2014-08-29T12:00:00Z', '2014-08-29T08:00:00', 'America/New_York', 'PT3H'],
        ['2024-09-13T10:00:00Z', '2024-09-13T06:00:00', 'America/New_York', 'PT2H'],
      ],
    );
    assert.match(series[0]?.providerEventId ?? '', /^generated-[0-9a-f]{32}$/);
    assert.equal(
      expandFixture(name, '2014-01-01T00:00:00Z', '2025-01-01T00:00:00Z').occurrences[0]?.providerEventId,
      result.occurrences[0]?.providerEventId,
    );
  });

  it('returns a lone RECURRENCE-ID event as an orphan and skips the one without DTSTART', () => {
    const orphan = result.occurrences.find((occurrence) => occurrence.timeZone === 'Europe/Moscow');
    assert.equal(orphan?.start, '2019-03-09T02:00:00');
    assert.equal(orphan?.recurrenceId, '2019-03-08T23:00:00Z');
    assert.equal(orphan?.facts.recurring, true);
    assert.equal(result.occurrences.length, 3);
    assert.deepEqual(
      result.skipped.map((item) => item.reason),
      ['missing DTSTART'],
    );
  });
});

describe('icalendar__issue_722_timezone_transition_ambiguity.ics', () => {
  it('resolves repeated local times to the earlier offset, as RFC 5545 says', () => {
    const result = expandFixture(
      'icalendar__issue_722_timezone_transition_ambiguity.ics',
      '2024-01-01T00:00:00Z',
      '2025-01-01T00:00:00Z',
    );
    const byUid = Object.fromEntries(
      result.occurrences.map((occurrence) => [occurrence.providerEventId, occurrence]),
    );
    // Winter is +12, summer +10; 07:00:01 on May 5 still falls before the 08:00 fall-back.
    assert.equal(byUid['0']?.start, '2024-03-02T20:00:00');
    assert.equal(byUid['1']?.start, '2024-08-02T22:00:00');
    assert.equal(byUid['2']?.start, '2024-05-04T22:00:01');
    assert.equal(byUid['3']?.start, '2024-05-04T19:00:01');
    assert.ok(result.occurrences.every((occurrence) => occurrence.timeZone === 'Etc/UTC'));
    assert.equal(
      byUid['3']?.title,
      'Transition is from 8am -> 6am, so 7:00:01 is winter RFC5545 does not allow us to be at the later TZ.',
    );
  });
});

describe('icalendar__pacific_fiji.ics', () => {
  it('uses the custom Fiji VTIMEZONE and the first of two DTSTARTs', () => {
    const result = expandFixture(
      'icalendar__pacific_fiji.ics',
      '2014-08-01T00:00:00Z',
      '2014-09-01T00:00:00Z',
    );
    // Aug 29 08:00 is standard time (+12): 20:00Z the day before; no DTEND, so zero length.
    assert.deepEqual(timing(result), ['2014-08-28T20:00:00 Etc/UTC PT0S']);
  });
});

describe('icalendar__pacific_fiji.ics as a series', () => {
  it('repeats in the custom zone’s wall-clock time across its DST start', () => {
    const ics = fixture('icalendar__pacific_fiji.ics')
      .replace('20140829T080000', '20141019T080000')
      .replace('SUMMARY:', 'RRULE:FREQ=WEEKLY;COUNT=3\nSUMMARY:');
    const result = expandIcs(ics, { window: window('2014-10-01T00:00:00Z', '2014-12-01T00:00:00Z') });
    // The file's DAYLIGHT rule starts +13 on the Sunday between Oct 21 and 27: Oct 26, 2014.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [
        occurrence.recurrenceId,
        occurrence.start,
        occurrence.timeZone,
      ]),
      [
        ['2014-10-18T20:00:00Z', '2014-10-18T20:00:00', 'Etc/UTC'],
        ['2014-10-25T19:00:00Z', '2014-10-25T19:00:00', 'Etc/UTC'],
        ['2014-11-01T19:00:00Z', '2014-11-01T19:00:00', 'Etc/UTC'],
      ],
    );
  });
});

describe('icalendar__rfc_7986_conferences.ics', () => {
  const name = 'icalendar__rfc_7986_conferences.ics';

  it('skips the VEVENT, which has neither UID nor DTSTART', () => {
    const result = expandFixture(name, '2000-01-01T00:00:00Z', '2030-01-01T00:00:00Z');
    assert.deepEqual(result.occurrences, []);
    assert.deepEqual(
      result.skipped.map((item) => item.reason),
      ['missing DTSTART'],
    );
  });

  it('maps CONFERENCE properties (folded mid-parameter) to virtual locations', () => {
    const ics = fixture(name).replace('BEGIN:VEVENT\n', 'BEGIN:VEVENT\nUID:conf\nDTSTART:20250101T100000Z\n');
    const [occurrence] = expandIcs(ics, {
      window: window('2025-01-01T00:00:00Z', '2025-01-02T00:00:00Z'),
    }).occurrences;
    assert.deepEqual(occurrence?.virtualLocations, [
      { uri: 'tel:+1-412-555-0123,,,654321', name: 'Moderator dial-in' },
      { uri: 'tel:+1-412-555-0123,,,555123', name: 'Attendee dial-in' },
      { uri: 'tel:+1-888-555-0456,,,555123', name: 'Attendee dial-in' },
      { uri: 'xmpp:chat-123@conference.example.com', name: 'Chat room' },
      { uri: 'https://chat.example.com/audio?id=123456', name: 'Attendee dial-in' },
    ]);
    assert.equal(occurrence?.facts.conference, true);
  });
});

describe('icalendar__rfc_9253_examples.ics', () => {
  it('maps LINK properties; a VALUE=UID link is no href', () => {
    const result = expandFixture(
      'icalendar__rfc_9253_examples.ics',
      '2025-10-28T00:00:00Z',
      '2025-10-29T00:00:00Z',
    );
    const byUid = Object.fromEntries(
      result.occurrences.map((occurrence) => [occurrence.providerEventId, occurrence]),
    );
    assert.deepEqual(byUid['links-rfc-9253-section-8.2']?.links, [
      { href: 'https://example.com/events', rel: 'source', title: 'Venue' },
      {
        href: 'https://example.com/tasks/01234567-abcd1234.ics',
        rel: 'https://example.com/linkrel/derivedFrom',
      },
      {
        href: 'https://example.com/xmlDocs/bidFramework.xml#xpointer(descendant::CostStruc/range-to(following::CostStrucEND[1]))',
        rel: 'https://example.com/linkrel/costStructure',
      },
    ]);
    assert.equal(byUid['links-rfc-9253-uid']?.links, undefined);
    assert.equal(byUid['links-rfc-9253-uid']?.start, '2025-10-28T09:22:39');
  });
});

describe('icalendar__x_location.ics', () => {
  it('keeps the multi-line location and takes coordinates from the Apple structured location', () => {
    const result = expandFixture('icalendar__x_location.ics', '2016-10-28T00:00:00Z', '2016-11-01T00:00:00Z');
    // Weekdays 14:00 Zurich: Fri Oct 28 (CEST, 12:00Z) and Mon Oct 31 (CET, 13:00Z).
    assert.deepEqual(result.occurrences.map(instantOf), ['2016-10-28T12:00:00Z', '2016-10-31T13:00:00Z']);
    for (const occurrence of result.occurrences) {
      assert.deepEqual(occurrence.locations, [
        { name: 'Roadstar 16\n12764 Happyville\nDenmark', coordinates: 'geo:52.382762,7.528319' },
      ]);
      assert.equal(occurrence.duration, 'PT30M');
    }
  });
});

describe('other fixtures', () => {
  it('recurring__issue_28: Windows TZID overrides of all-day series, UTC UNTIL read in the calendar zone', () => {
    const result = expandFixture(
      'recurring__issue_28_rrule_with_UTC_endinginZ.ics',
      '2020-01-01T00:00:00Z',
      '2021-01-01T00:00:00Z',
    );
    const refuse = result.occurrences.filter((occurrence) => occurrence.title === 'Refuse black bin');
    // Every other Thursday from Apr 2; UNTIL 2020-09-16T23:00Z is Sep 17 00:00 in London, so Sep 17 counts.
    // Overrides move Apr 16, May 28 and Sep 3 to the Friday.
    assert.deepEqual(
      refuse.map((occurrence) => [occurrence.recurrenceId, occurrence.start.slice(0, 10)]),
      [
        ['2020-04-02', '2020-04-02'],
        ['2020-04-16', '2020-04-17'],
        ['2020-04-30', '2020-04-30'],
        ['2020-05-14', '2020-05-14'],
        ['2020-05-28', '2020-05-29'],
        ['2020-06-11', '2020-06-11'],
        ['2020-06-25', '2020-06-25'],
        ['2020-07-09', '2020-07-09'],
        ['2020-07-23', '2020-07-23'],
        ['2020-08-06', '2020-08-06'],
        ['2020-08-20', '2020-08-20'],
        ['2020-09-03', '2020-09-04'],
        ['2020-09-17', '2020-09-17'],
      ],
    );
    const blue = result.occurrences.filter((occurrence) => occurrence.title === 'Blue Recycle bin');
    assert.equal(blue.length, 13);
    assert.equal(blue.at(-1)?.start, '2020-09-24T00:00:00');
    assert.ok(result.occurrences.every((occurrence) => occurrence.freeBusyStatus === 'free'));
  });

  it('recurring__issue_223: the override with the higher SEQUENCE moves or relocates its instance', () => {
    const result = expandFixture(
      'recurring__issue_223_thunderbird.ics',
      '2025-04-20T00:00:00Z',
      '2025-05-01T00:00:00Z',
    );
    // Daily 09:00 London (BST) until Apr 27 08:00Z; Apr 24 moved to 11:00, Apr 25 gets a location.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.start, occurrence.locations?.[0]?.name]),
      [
        ['2025-04-23T09:00:00', undefined],
        ['2025-04-24T11:00:00', undefined],
        ['2025-04-25T09:00:00', 'new place'],
        ['2025-04-26T09:00:00', undefined],
        ['2025-04-27T09:00:00', undefined],
      ],
    );
  });

  it('recurring__issue_179: CONFIDENTIAL → secret, multi-value CATEGORIES → keywords', () => {
    const [occurrence] = expandFixture(
      'recurring__issue_179_example.ics',
      '2024-11-01T00:00:00Z',
      '2024-11-04T00:00:00Z',
    ).occurrences;
    assert.equal(occurrence?.start, '2024-11-02T00:00:00');
    assert.equal(occurrence?.recurrenceId, '2024-11-02');
    assert.equal(occurrence?.privacy, 'secret');
    assert.equal(occurrence?.freeBusyStatus, 'free');
    assert.deepEqual(occurrence?.keywords, ['ANNIVERSARY', 'PERSONAL', 'SPECIAL OCCASION']);
  });

  it('tsdav__13: an open-ended weekly UTC series stops at the window', () => {
    const result = expandFixture('tsdav__13.ics', '2024-03-01T00:00:00Z', '2024-03-31T00:00:00Z');
    // Thursdays 09:00Z (Mar 10, 2022 was a Thursday).
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.start),
      ['2024-03-07T09:00:00', '2024-03-14T09:00:00', '2024-03-21T09:00:00', '2024-03-28T09:00:00'],
    );
  });

  it('tsdav__1 and RRULE_UNTIL_test: a single UTC event; a file with only a VTIMEZONE', () => {
    assert.deepEqual(timing(expandFixture('tsdav__1.ics', '2021-04-01T00:00:00Z', '2021-04-02T00:00:00Z')), [
      '2021-04-01T09:08:00 Etc/UTC PT1H',
    ]);
    assert.deepEqual(
      expandFixture('icaljs__RRULE_UNTIL_test.ics', '1970-01-01T00:00:00Z', '2030-01-01T00:00:00Z'),
      {
        occurrences: [],
        skipped: [],
      },
    );
  });

  it('recurring__daylight_saving_time: a monthly series with exclusions, moves and a UTC UNTIL', () => {
    const result = expandFixture(
      'recurring__daylight_saving_time.ics',
      '2018-06-01T00:00:00Z',
      '2018-12-31T00:00:00Z',
    );
    assert.deepEqual(result.skipped, []);
    const repairCafe = result.occurrences.filter(
      (occurrence) => occurrence.providerEventId === '52uuaoruefesorque1gpjabr6t@google.com',
    );
    // Last Saturdays 11:00 Berlin: Jun 30; Jul 28 and Aug 25 excluded; Sep 29 → Sep 22; Oct 27 → Oct 20;
    // Nov 24 11:00 CET (10:00Z) is after UNTIL 2018-11-23T22:59:59Z.
    assert.deepEqual(
      repairCafe.map((occurrence) => [occurrence.recurrenceId, occurrence.start, occurrence.duration]),
      [
        ['2018-06-30T09:00:00Z', '2018-06-30T11:00:00', 'PT4H'],
        ['2018-09-29T09:00:00Z', '2018-09-22T11:00:00', 'PT4H'],
        ['2018-10-27T09:00:00Z', '2018-10-20T11:00:00', 'PT4H'],
      ],
    );
    assert.ok(repairCafe.every((occurrence) => occurrence.title === 'mB-onTour: repairCafé'));
  });
});
