/**
 * The project's iCalendar fixtures (test/fixtures/ical, see its README), one case each. Expected
 * values are worked out from the files by hand: local wall times, the zone's offset on that day,
 * the rule's calendar arithmetic.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calendarTimeZone, expandIcs } from '../../src/domain/ical/expand.ts';
import {
  assertExpandsWellFormed,
  expandFixture,
  fixture,
  fixtureNames,
  instantOf,
  timing,
  window,
} from './icalFixtures.ts';

describe('every fixture', () => {
  for (const name of fixtureNames()) {
    it(`${name} expands without throwing, into well-formed occurrences`, () =>
      assertExpandsWellFormed(fixture(name), name));
  }
});

describe('exdate-date-on-utc-series.ics', () => {
  it('lets a DATE exclusion knock out the UTC instance on that day', () => {
    const result = expandFixture(
      'exdate-date-on-utc-series.ics',
      '2025-03-01T00:00:00Z',
      '2025-04-01T00:00:00Z',
    );
    // Daily 06:45Z, five times from Mar 3; EXDATE;VALUE=DATE:20250305 removes the 5th.
    assert.deepEqual(timing(result), [
      '2025-03-03T06:45:00 Etc/UTC PT0S',
      '2025-03-04T06:45:00 Etc/UTC PT0S',
      '2025-03-06T06:45:00 Etc/UTC PT0S',
      '2025-03-07T06:45:00 Etc/UTC PT0S',
    ]);
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.recurrenceId),
      ['2025-03-03T06:45:00Z', '2025-03-04T06:45:00Z', '2025-03-06T06:45:00Z', '2025-03-07T06:45:00Z'],
    );
    assert.ok(result.occurrences.every((occurrence) => occurrence.facts.recurring));
  });
});

describe('zoned-series-rdates-exdates-overrides.ics', () => {
  const name = 'zoned-series-rdates-exdates-overrides.ics';
  const options = { selfAddresses: ['Dana.Reyes@Example.org'] };

  it('combines the monthly rule, RDATEs, EXDATEs and both overrides', () => {
    const result = expandFixture(name, '2022-09-01T00:00:00Z', '2023-06-01T00:00:00Z', options);
    // Second Tuesdays at 14:00 New York (EDT until 6 Nov 2022, EST until 12 Mar 2023), Dec 13,
    // Feb 14 and Apr 11 excluded; RDATEs Nov 3, 17 and Dec 1; Sep 13 moved to 16:30; Nov 3 (named
    // by its UTC instant 18:00Z) moved to Nov 4 09:00.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [
        occurrence.recurrenceId,
        occurrence.start,
        occurrence.duration,
      ]),
      [
        ['2022-09-13T18:00:00Z', '2022-09-13T16:30:00', 'PT45M'],
        ['2022-10-11T18:00:00Z', '2022-10-11T14:00:00', 'PT45M'],
        ['2022-11-03T18:00:00Z', '2022-11-04T09:00:00', 'PT45M'],
        ['2022-11-08T19:00:00Z', '2022-11-08T14:00:00', 'PT45M'],
        ['2022-11-17T19:00:00Z', '2022-11-17T14:00:00', 'PT45M'],
        ['2022-12-01T19:00:00Z', '2022-12-01T14:00:00', 'PT45M'],
        ['2023-01-10T19:00:00Z', '2023-01-10T14:00:00', 'PT45M'],
        ['2023-03-14T18:00:00Z', '2023-03-14T14:00:00', 'PT45M'],
        ['2023-05-09T18:00:00Z', '2023-05-09T14:00:00', 'PT45M'],
      ],
    );
    assert.ok(result.occurrences.every((occurrence) => occurrence.timeZone === 'America/New_York'));
    assert.deepEqual(result.skipped, []);
  });

  it('shows the override as written and the master everywhere else', () => {
    const [moved, regular] = expandFixture(
      name,
      '2022-09-01T00:00:00Z',
      '2022-10-12T00:00:00Z',
      options,
    ).occurrences;
    assert.equal(moved?.description, 'Room swap: we meet upstairs');
    assert.equal(moved?.locations, undefined);
    assert.equal(moved?.color, undefined);
    assert.equal(moved?.facts.userIsAttendee, false);
    assert.equal(regular?.description, 'Agenda: mooring fees and the new crane');
    assert.deepEqual(regular?.locations, [{ name: 'Pier 4 office' }]);
    assert.equal(regular?.color, 'teal');
    assert.equal(regular?.privacy, 'public');
    assert.equal(regular?.status, 'confirmed');
    assert.equal(regular?.freeBusyStatus, 'busy');
    assert.deepEqual(regular?.alerts, [{ offset: '-PT10M', action: 'display' }]);
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
    const result = expandFixture(name, '2024-01-10T00:00:00Z', '2024-01-20T00:00:00Z');
    // 15:00Z is 10:00 EST; the period runs 15:00Z–17:00Z.
    assert.deepEqual(timing(result), [
      '2024-01-16T10:00:00 America/New_York PT45M',
      '2024-01-18T10:00:00 America/New_York PT2H',
    ]);
  });
});

describe('google-birthdays-all-day.ics', () => {
  const result = expandFixture(
    'google-birthdays-all-day.ics',
    '2023-01-01T00:00:00Z',
    '2026-01-01T00:00:00Z',
  );

  it('expands the all-day master (COUNT=1 plus RDATEs with a stray Z) and keeps the orphans', () => {
    const view = result.occurrences.map((occurrence) => [
      occurrence.providerEventId,
      occurrence.recurrenceId,
      occurrence.start,
      occurrence.duration,
    ]);
    const master = '2025_BIRTHDAY_5e0c7a21d94b3f68@google.com';
    const orphan = 'BIRTHDAY_5e0c7a21d94b3f68@google.com';
    assert.deepEqual(
      view.filter(([id]) => id === master),
      ['2023-04-03', '2024-04-03', '2025-04-03'].map((day) => [master, day, `${day}T00:00:00`, 'P1D']),
    );
    assert.deepEqual(
      view.filter(([id]) => id === orphan),
      ['2023-04-03', '2024-04-03', '2025-04-03'].map((day) => [orphan, day, `${day}T00:00:00`, 'P1D']),
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
    assert.equal(orphan?.description, 'Noor Haddad has a birthday today.');
    assert.equal(calendarTimeZone(fixture('google-birthdays-all-day.ics')), 'Europe/Madrid');
  });
});

describe('all-day-weekdays-absolute-alarms.ics', () => {
  it('repeats the all-day event on weekdays; free; drops absolute-trigger alarms and empty fields', () => {
    const result = expandFixture(
      'all-day-weekdays-absolute-alarms.ics',
      '2023-08-07T00:00:00Z',
      '2023-08-12T00:00:00Z',
    );
    // All-day dates are compared as if UTC with 26 h slack: Fri Aug 4 ends before the slack, the
    // next Monday (Aug 14) starts after it.
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.start),
      ['2023-08-07', '2023-08-08', '2023-08-09', '2023-08-10', '2023-08-11'].map((day) => `${day}T00:00:00`),
    );
    for (const occurrence of result.occurrences) {
      assert.equal(occurrence.showWithoutTime, true);
      assert.equal(occurrence.duration, 'P1D');
      assert.equal(occurrence.freeBusyStatus, 'free');
      assert.equal(occurrence.alerts, undefined);
      assert.equal(occurrence.description, undefined);
      assert.equal(occurrence.locations, undefined);
      assert.equal(occurrence.title, 'Holiday cover rota');
    }
  });
});

describe('duration-instead-of-dtend.ics', () => {
  const name = 'duration-instead-of-dtend.ics';

  it('keeps DURATION:P1D as a nominal day', () => {
    const result = expandFixture(name, '2025-06-14T00:00:00Z', '2025-06-16T00:00:00Z');
    assert.deepEqual(timing(result), ['2025-06-14T10:00:00 Europe/Berlin P1D']);
    assert.equal(result.occurrences[0]?.recurrenceId, undefined);
    assert.equal(result.occurrences[0]?.facts.recurring, false);
    // Ends Jun 15 10:00 CEST = 08:00Z.
    assert.equal(expandFixture(name, '2025-06-15T07:59:00Z', '2025-06-16T00:00:00Z').occurrences.length, 1);
    assert.equal(expandFixture(name, '2025-06-15T08:00:00Z', '2025-06-16T00:00:00Z').occurrences.length, 0);
  });

  it('lasts 25 hours when the day has 25 (the same event on the day before DST ends)', () => {
    const ics = fixture(name).replace('20250614T100000', '20251025T100000');
    const at = (start: string) =>
      expandIcs(ics, { window: window(start, '2025-10-27T00:00:00Z') }).occurrences.length;
    // Oct 25 10:00 CEST (08:00Z) + P1D = Oct 26 10:00 CET = 09:00Z, not 08:00Z.
    assert.equal(at('2025-10-26T08:30:00Z'), 1);
    assert.equal(at('2025-10-26T09:00:00Z'), 0);
  });
});

describe('override-before-master-zero-length.ics', () => {
  const name = 'override-before-master-zero-length.ics';

  it('applies an override that comes before its master', () => {
    const result = expandFixture(name, '2023-11-01T00:00:00Z', '2024-02-01T00:00:00Z');
    // Last Thursdays at 20:00 Berlin (CET, 19:00Z): Nov 30, Dec 28 (moved to Dec 14), Jan 25.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.recurrenceId, occurrence.start]),
      [
        ['2023-11-30T19:00:00Z', '2023-11-30T20:00:00'],
        ['2023-12-28T19:00:00Z', '2023-12-14T20:00:00'],
        ['2024-01-25T19:00:00Z', '2024-01-25T20:00:00'],
      ],
    );
    for (const occurrence of result.occurrences) {
      assert.equal(occurrence.duration, 'PT0S');
      assert.equal(occurrence.timeZone, 'Europe/Berlin');
      assert.equal(occurrence.freeBusyStatus, 'free');
      assert.match(occurrence.description ?? '', /^Immer am letzten Donnerstag im Monat – <a href=/);
    }
  });

  it('places the zero-length moved instance by start ≤ occurrence < end', () => {
    const moved = (start: string, end: string) =>
      expandFixture(name, start, end).occurrences.filter(
        (occurrence) => occurrence.start === '2023-12-14T20:00:00',
      );
    assert.equal(moved('2023-12-14T19:00:00Z', '2023-12-14T19:00:01Z').length, 1);
    assert.equal(moved('2023-12-14T18:30:00Z', '2023-12-14T19:00:00Z').length, 0);
  });
});

describe('thunderbird-moved-instances.ics', () => {
  it('moves instances of both Berlin series; DTEND wins over a conflicting DURATION', () => {
    const result = expandFixture(
      'thunderbird-moved-instances.ics',
      '2023-11-01T00:00:00Z',
      '2023-12-01T00:00:00Z',
    );
    // UNTIL=20231109T000000Z is 01:00 CET on Nov 9, UNTIL=20231115T020000Z 03:00 on Nov 15: both last days count.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.start, occurrence.duration, occurrence.title]),
      [
        ['2023-11-06T01:00:00', 'PT1H', 'Server maintenance'],
        ['2023-11-07T00:00:00', 'PT1H', 'Server maintenance'],
        ['2023-11-08T02:00:00', 'PT1H', 'Server maintenance'],
        ['2023-11-09T01:00:00', 'PT1H', 'Server maintenance'],
        ['2023-11-13T03:00:00', 'PT1H', 'Night backup check'],
        ['2023-11-14T03:00:00', 'PT1H', 'Night backup check - edited'],
        ['2023-11-15T03:00:00', 'PT1H', 'Night backup check'],
      ],
    );
    const edited = result.occurrences[5];
    assert.equal(edited?.recurrenceId, '2023-11-14T02:00:00Z');
    assert.deepEqual(edited?.locations, [{ name: 'Server room B' }]);
    assert.equal(edited?.description, undefined);
    assert.equal(result.occurrences[4]?.description, 'Notes stay with the series');
  });
});

describe('weekly-utc-exdates-on-previous-day.ics', () => {
  it('matches UTC exclusions against Berlin instances (the previous UTC day)', () => {
    const result = expandFixture(
      'weekly-utc-exdates-on-previous-day.ics',
      '2024-03-01T00:00:00Z',
      '2024-05-01T00:00:00Z',
    );
    // COUNT=8 Tuesdays from Mar 5 at 00:15; 23:15Z on Mar 11 and Mar 25 are 00:15 CET on Mar 12 and 26.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.start, instantOf(occurrence)]),
      [
        ['2024-03-05T00:15:00', '2024-03-04T23:15:00Z'],
        ['2024-03-19T00:15:00', '2024-03-18T23:15:00Z'],
        ['2024-04-02T00:15:00', '2024-04-01T22:15:00Z'],
        ['2024-04-09T00:15:00', '2024-04-08T22:15:00Z'],
        ['2024-04-16T00:15:00', '2024-04-15T22:15:00Z'],
        ['2024-04-23T00:15:00', '2024-04-22T22:15:00Z'],
      ],
    );
    assert.ok(result.occurrences.every((occurrence) => occurrence.privacy === 'public'));
  });
});

describe('duplicate-masters-higher-sequence.ics', () => {
  it('takes the later duplicate master (higher SEQUENCE) with its EXDATE', () => {
    const result = expandFixture(
      'duplicate-masters-higher-sequence.ics',
      '2025-01-01T00:00:00Z',
      '2025-04-01T00:00:00Z',
      { selfAddresses: ['dev@example.org'] },
    );
    // Every other Monday until Mar 3: Jan 6, Jan 20, Feb 3 (excluded), Feb 17, Mar 3; each 7 days long.
    assert.deepEqual(timing(result), [
      '2025-01-06T00:00:00 floating P7D',
      '2025-01-20T00:00:00 floating P7D',
      '2025-02-17T00:00:00 floating P7D',
      '2025-03-03T00:00:00 floating P7D',
    ]);
    for (const occurrence of result.occurrences) {
      assert.equal(occurrence.title, 'Sprint block - edited');
      assert.deepEqual(occurrence.keywords, ['sprint']);
      assert.equal(occurrence.facts.organizer, 'other');
      assert.equal(occurrence.showWithoutTime, true);
    }
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.recurrenceId),
      ['2025-01-06', '2025-01-20', '2025-02-17', '2025-03-03'],
    );
  });
});

describe('utc-exdate-list-across-dst.ics', () => {
  it('applies a folded UTC EXDATE list across the DST change', () => {
    const result = expandFixture(
      'utc-exdate-list-across-dst.ics',
      '2023-10-01T00:00:00Z',
      '2024-03-01T00:00:00Z',
    );
    // Thursdays 17:30 Vienna (15:30Z in CEST, 16:30Z in CET) until Feb 1 16:29:59Z: what the list leaves.
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.recurrenceId),
      [
        '2023-10-26T15:30:00Z',
        '2023-11-09T16:30:00Z',
        '2023-11-23T16:30:00Z',
        '2023-12-07T16:30:00Z',
        '2024-01-11T16:30:00Z',
        '2024-01-18T16:30:00Z',
        '2024-01-25T16:30:00Z',
      ],
    );
    assert.ok(result.occurrences.every((occurrence) => occurrence.duration === 'PT2H'));
    assert.ok(result.occurrences.every((occurrence) => occurrence.start.endsWith('T17:30:00')));
  });
});

describe('school-timetable-new-york-dst.ics', () => {
  const name = 'school-timetable-new-york-dst.ics';
  const newYorkDay = (day: string) => {
    const start = Temporal.PlainDate.from(day).toZonedDateTime('America/New_York');
    return [start.toInstant().toString(), start.add({ days: 1 }).toInstant().toString()] as const;
  };

  it('finds the four Friday lessons between 08:00 and 15:00 New York after DST ended', () => {
    const result = expandFixture(name, '2021-12-10T13:00:00Z', '2021-12-10T20:00:00Z');
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.start, occurrence.title, instantOf(occurrence)]),
      [
        ['2021-12-10T08:15:00', 'Math ', '2021-12-10T13:15:00Z'],
        ['2021-12-10T10:15:00', 'Music', '2021-12-10T15:15:00Z'],
        ['2021-12-10T12:30:00', 'Art', '2021-12-10T17:30:00Z'],
        ['2021-12-10T14:15:00', 'PE', '2021-12-10T19:15:00Z'],
      ],
    );
    assert.equal(expandFixture(name, '2021-12-10T14:00:00Z', '2021-12-10T20:00:00Z').occurrences.length, 3);
  });

  it('keeps wall-clock times across the change and honours the TZID exclusions', () => {
    const before = expandFixture(name, ...newYorkDay('2021-10-29')).occurrences.map(instantOf);
    assert.deepEqual(before, [
      '2021-10-29T12:15:00Z',
      '2021-10-29T14:15:00Z',
      '2021-10-29T16:30:00Z',
      '2021-10-29T18:15:00Z',
    ]);
    // Nov 12: Art and PE are excluded; Math and Music are an hour later in UTC (EST).
    const after = expandFixture(name, ...newYorkDay('2021-11-12')).occurrences.map(instantOf);
    assert.deepEqual(after, ['2021-11-12T13:15:00Z', '2021-11-12T15:15:00Z']);
    assert.deepEqual(expandFixture(name, ...newYorkDay('2021-11-26')).occurrences, []);
  });
});

describe('this-and-future-range.ics', () => {
  it('moves this and all later instances (RDATE included) with RANGE=THISANDFUTURE', () => {
    const result = expandFixture('this-and-future-range.ics', '2025-05-30T00:00:00Z', '2025-06-30T00:00:00Z');
    // Every third day at 08:00Z; from Jun 10 on two hours later and three hours long, Jun 13
    // alone moved to 07:00; from Jun 19 on at 06:15 the next day (22 h 15 min later), 75 minutes.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [
        occurrence.recurrenceId,
        occurrence.start,
        occurrence.duration,
        occurrence.title,
      ]),
      [
        ['2025-06-01T08:00:00Z', '2025-06-01T08:00:00', 'PT1H30M', 'Rota A'],
        ['2025-06-04T08:00:00Z', '2025-06-04T08:00:00', 'PT1H30M', 'Rota A'],
        ['2025-06-07T08:00:00Z', '2025-06-07T08:00:00', 'PT1H30M', 'Rota A'],
        ['2025-06-10T08:00:00Z', '2025-06-10T10:00:00', 'PT3H', 'Rota A (later)'],
        ['2025-06-11T15:00:00Z', '2025-06-11T17:00:00', 'PT3H', 'Rota A (later)'],
        ['2025-06-13T08:00:00Z', '2025-06-13T07:00:00', 'PT2H', 'Rota A (one-off)'],
        ['2025-06-16T08:00:00Z', '2025-06-16T10:00:00', 'PT3H', 'Rota A (later)'],
        ['2025-06-19T08:00:00Z', '2025-06-20T06:15:00', 'PT1H15M', 'Rota A (new slot)'],
        ['2025-06-22T08:00:00Z', '2025-06-23T06:15:00', 'PT1H15M', 'Rota A (new slot)'],
        ['2025-06-25T08:00:00Z', '2025-06-26T06:15:00', 'PT1H15M', 'Rota A (new slot)'],
        ['2025-06-28T08:00:00Z', '2025-06-29T06:15:00', 'PT1H15M', 'Rota A (new slot)'],
      ],
    );
    assert.equal(result.occurrences[0]?.description, ' ninety minutes');
  });

  it('ends with the DATE UNTIL (Jan 15, 2026 is the last day of the rule)', () => {
    const result = expandFixture('this-and-future-range.ics', '2026-01-05T00:00:00Z', '2026-02-05T00:00:00Z');
    // Jan 15 is 228 days (76 steps of three) after Jun 1; Jan 3 moves to Jan 4, before the window.
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.recurrenceId),
      ['2026-01-06T08:00:00Z', '2026-01-09T08:00:00Z', '2026-01-12T08:00:00Z', '2026-01-15T08:00:00Z'],
    );
  });
});

describe('floating-times-x-wr-timezone.ics', () => {
  const name = 'floating-times-x-wr-timezone.ics';

  it('keeps floating times floating and reports the declared zone separately', () => {
    const result = expandFixture(name, '2022-05-12T00:00:00Z', '2022-05-13T00:00:00Z');
    assert.deepEqual(timing(result), ['2022-05-12T19:30:00 floating PT1H45M']);
    assert.equal(result.occurrences[0]?.showWithoutTime, false);
    assert.equal(calendarTimeZone(fixture(name)), 'Europe/Amsterdam');
  });

  it('includes floating occurrences within 26 hours of the window', () => {
    // Local 19:30–21:15 read as UTC; 26 h after its end is May 13 23:15Z.
    assert.equal(expandFixture(name, '2022-05-13T23:00:00Z', '2022-05-14T12:00:00Z').occurrences.length, 1);
    assert.equal(expandFixture(name, '2022-05-13T23:30:00Z', '2022-05-14T12:00:00Z').occurrences.length, 0);
  });
});

describe('all-day-start-date-time-end.ics', () => {
  it('reads a DATE start with a UTC DATE-TIME end as an all-day span', () => {
    const result = expandFixture(
      'all-day-start-date-time-end.ics',
      '2024-07-01T00:00:00Z',
      '2024-09-01T00:00:00Z',
    );
    // Aug 5 up to the end of Aug 22, the day the end's time falls on: 18 days.
    assert.deepEqual(timing(result), ['2024-08-05T00:00:00 floating P18D']);
    assert.equal(result.occurrences[0]?.showWithoutTime, true);
    assert.equal(result.occurrences[0]?.title, "Fermeture estivale – congés d'été");
    assert.equal(result.occurrences[0]?.freeBusyStatus, 'free');
  });
});

describe('vtimezone-only-tzid.ics', () => {
  it('computes a non-IANA TZID from its VTIMEZONE and reports the instant in Etc/UTC', () => {
    const result = expandFixture('vtimezone-only-tzid.ics', '2023-03-01T00:00:00Z', '2023-04-01T00:00:00Z');
    // 07:15 at +08:00 is 23:15Z the day before.
    assert.deepEqual(timing(result), ['2023-03-13T23:15:00 Etc/UTC PT45M']);
    assert.equal(result.occurrences[0]?.status, 'tentative');
    assert.equal(result.occurrences[0]?.title, 'Supply flight call');
  });
});

describe('missing-vtimezones.ics', () => {
  const name = 'missing-vtimezones.ics';
  const result = expandFixture(name, '2020-01-01T00:00:00Z', '2026-01-01T00:00:00Z');

  it('resolves TZIDs without VTIMEZONEs and places a PERIOD RDATE from another zone', () => {
    const series = result.occurrences.filter(
      (occurrence) => occurrence.title === 'Cross-office sync without a UID',
    );
    // 09:00 London (08:00Z) to 13:00 Athens (10:00Z); 18:00 Tokyo (09:00Z) is 10:00 in London.
    assert.deepEqual(
      series.map((occurrence) => [
        occurrence.recurrenceId,
        occurrence.start,
        occurrence.timeZone,
        occurrence.duration,
      ]),
      [
        ['2023-07-04T08:00:00Z', '2023-07-04T09:00:00', 'Europe/London', 'PT2H'],
        ['2024-09-10T09:00:00Z', '2024-09-10T10:00:00', 'Europe/London', 'PT1H30M'],
      ],
    );
    assert.match(series[0]?.providerEventId ?? '', /^generated-[0-9a-f]{32}$/);
    assert.equal(
      expandFixture(name, '2020-01-01T00:00:00Z', '2026-01-01T00:00:00Z').occurrences[0]?.providerEventId,
      result.occurrences[0]?.providerEventId,
    );
  });

  it('returns a lone RECURRENCE-ID event as an orphan and skips the one without DTSTART', () => {
    const orphan = result.occurrences.find((occurrence) => occurrence.timeZone === 'Asia/Kolkata');
    assert.equal(orphan?.start, '2021-06-15T10:00:00');
    assert.equal(orphan?.recurrenceId, '2021-06-15T04:30:00Z');
    assert.equal(orphan?.facts.recurring, true);
    assert.equal(result.occurrences.length, 3);
    assert.deepEqual(
      result.skipped.map((item) => item.reason),
      ['missing DTSTART'],
    );
  });
});

describe('ambiguous-local-times.ics', () => {
  it('resolves repeated local times to the earlier offset, as RFC 5545 says', () => {
    const result = expandFixture('ambiguous-local-times.ics', '2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
    const byUid = Object.fromEntries(
      result.occurrences.map((occurrence) => [occurrence.providerEventId, occurrence]),
    );
    // Winter is +05:30, summer +07:00; on Apr 7 the clocks go back from 05:00 to 03:30, so
    // 04:00:01 comes twice (first at +07:00) and 05:00:01 once (at +05:30).
    assert.equal(byUid['winter-noon']?.start, '2024-07-10T06:30:00');
    assert.equal(byUid['summer-noon']?.start, '2024-12-10T05:00:00');
    assert.equal(byUid['after-repeat']?.start, '2024-04-06T23:30:01');
    assert.equal(byUid['repeated-hour']?.start, '2024-04-06T21:00:01');
    assert.ok(result.occurrences.every((occurrence) => occurrence.timeZone === 'Etc/UTC'));
    assert.equal(
      byUid['repeated-hour']?.title,
      'Clocks go back from 05:00 to 03:30, so 04:00:01 comes twice; RFC 5545 means the first time, still at +07:00.',
    );
  });
});

describe('custom-zone-southern-dst.ics', () => {
  it('uses the custom Auckland VTIMEZONE and the first of two DTSTARTs', () => {
    const result = expandFixture(
      'custom-zone-southern-dst.ics',
      '2023-08-01T00:00:00Z',
      '2023-09-01T00:00:00Z',
    );
    // Aug 15 09:30 is standard time (+12): 21:30Z the day before; no DTEND, so zero length.
    assert.deepEqual(timing(result), ['2023-08-14T21:30:00 Etc/UTC PT0S']);
  });
});

describe('custom-zone-southern-dst.ics as a series', () => {
  it('repeats in the custom zone’s wall-clock time across its DST start', () => {
    const ics = fixture('custom-zone-southern-dst.ics')
      .replace('20230815T093000', '20230916T093000')
      .replace('SUMMARY:', 'RRULE:FREQ=WEEKLY;COUNT=3\nSUMMARY:');
    const result = expandIcs(ics, { window: window('2023-09-01T00:00:00Z', '2023-11-01T00:00:00Z') });
    // The file's DAYLIGHT rule starts +13 on the Sunday between Sep 24 and 30: Sep 24, 2023.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [
        occurrence.recurrenceId,
        occurrence.start,
        occurrence.timeZone,
      ]),
      [
        ['2023-09-15T21:30:00Z', '2023-09-15T21:30:00', 'Etc/UTC'],
        ['2023-09-22T21:30:00Z', '2023-09-22T21:30:00', 'Etc/UTC'],
        ['2023-09-29T20:30:00Z', '2023-09-29T20:30:00', 'Etc/UTC'],
      ],
    );
  });
});

describe('conference-properties.ics', () => {
  const name = 'conference-properties.ics';

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
      { uri: 'https://meet.example.org/incident-review', name: 'Video room' },
      { uri: 'tel:+44-20-7946-0011,,900', name: 'Host line' },
      { uri: 'tel:+44-20-7946-0011,,901', name: 'Participant line' },
      { uri: 'xmpp:incident-review@muc.example.org', name: 'Notes channel' },
    ]);
    assert.equal(occurrence?.facts.conference, true);
  });
});

describe('links-url-attach.ics', () => {
  it('maps URL, ATTACH and LINK properties; a VALUE=UID link is no href', () => {
    const result = expandFixture('links-url-attach.ics', '2025-03-12T00:00:00Z', '2025-03-13T00:00:00Z');
    const byUid = Object.fromEntries(
      result.occurrences.map((occurrence) => [occurrence.providerEventId, occurrence]),
    );
    // The binary ATTACH has no address to link to.
    assert.deepEqual(byUid['kickoff-links@fixtures.example']?.links, [
      { href: 'https://example.org/projects/lighthouse' },
      { href: 'https://example.org/projects/lighthouse/brief.pdf', rel: 'enclosure' },
      { href: 'https://wiki.example.org/lighthouse', rel: 'alternate', title: 'Project wiki' },
      {
        href: 'https://example.org/projects/lighthouse/minutes/2025-03-12',
        rel: 'https://example.org/linkrel/minutes',
      },
      {
        href: 'https://example.org/projects/lighthouse/plan.xml#xpointer(/plan/budget[1])',
        rel: 'https://example.org/linkrel/budget',
      },
    ]);
    assert.equal(byUid['kickoff-follow-up@fixtures.example']?.links, undefined);
    assert.equal(byUid['kickoff-follow-up@fixtures.example']?.start, '2025-03-12T14:00:00');
  });
});

describe('apple-structured-location.ics', () => {
  it('keeps the multi-line location and takes coordinates from the Apple structured location', () => {
    const result = expandFixture(
      'apple-structured-location.ics',
      '2023-10-27T00:00:00Z',
      '2023-10-31T00:00:00Z',
    );
    // Weekdays 09:15 Zurich: Fri Oct 27 (CEST, 07:15Z) and Mon Oct 30 (CET, 08:15Z).
    assert.deepEqual(result.occurrences.map(instantOf), ['2023-10-27T07:15:00Z', '2023-10-30T08:15:00Z']);
    for (const occurrence of result.occurrences) {
      assert.deepEqual(occurrence.locations, [
        { name: 'Mühlegasse 12\n8001 Zürich\nSchweiz', coordinates: 'geo:47.373878,8.545094' },
      ]);
      assert.equal(occurrence.duration, 'PT20M');
    }
  });
});

describe('other fixtures', () => {
  it('windows-tzid-all-day-series: Windows TZID overrides of all-day series, UTC UNTIL read in the calendar zone', () => {
    const result = expandFixture(
      'windows-tzid-all-day-series.ics',
      '2022-01-01T00:00:00Z',
      '2023-01-01T00:00:00Z',
    );
    const paper = result.occurrences.filter((occurrence) => occurrence.title === 'Paper recycling');
    // Every other Tuesday from Mar 1; UNTIL 2022-08-29T22:00Z is Aug 30 00:00 in Berlin, so Aug 30 counts.
    // Overrides move Apr 12, May 24 and Aug 2 to the Wednesday.
    assert.deepEqual(
      paper.map((occurrence) => [occurrence.recurrenceId, occurrence.start.slice(0, 10)]),
      [
        ['2022-03-01', '2022-03-01'],
        ['2022-03-15', '2022-03-15'],
        ['2022-03-29', '2022-03-29'],
        ['2022-04-12', '2022-04-13'],
        ['2022-04-26', '2022-04-26'],
        ['2022-05-10', '2022-05-10'],
        ['2022-05-24', '2022-05-25'],
        ['2022-06-07', '2022-06-07'],
        ['2022-06-21', '2022-06-21'],
        ['2022-07-05', '2022-07-05'],
        ['2022-07-19', '2022-07-19'],
        ['2022-08-02', '2022-08-03'],
        ['2022-08-16', '2022-08-16'],
        ['2022-08-30', '2022-08-30'],
      ],
    );
    const garden = result.occurrences.filter((occurrence) => occurrence.title === 'Garden waste');
    assert.equal(garden.length, 14);
    assert.equal(garden.at(-1)?.start, '2022-09-06T00:00:00');
    assert.ok(result.occurrences.every((occurrence) => occurrence.freeBusyStatus === 'free'));
  });

  it('thunderbird-overrides-by-sequence: the override with the higher SEQUENCE moves or relocates its instance', () => {
    const result = expandFixture(
      'thunderbird-overrides-by-sequence.ics',
      '2025-05-04T00:00:00Z',
      '2025-05-15T00:00:00Z',
    );
    // Daily 08:30 Lisbon (WEST) until May 11 07:30Z; May 7 moved to 10:30 by its SEQUENCE:2
    // version (the SEQUENCE:1 one after it says 10:00), May 8 gets a location.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.start, occurrence.locations?.[0]?.name]),
      [
        ['2025-05-05T08:30:00', undefined],
        ['2025-05-06T08:30:00', undefined],
        ['2025-05-07T10:30:00', undefined],
        ['2025-05-08T08:30:00', 'Sala 2, piso 1'],
        ['2025-05-09T08:30:00', undefined],
        ['2025-05-10T08:30:00', undefined],
        ['2025-05-11T08:30:00', undefined],
      ],
    );
  });

  it('confidential-yearly-all-day: CONFIDENTIAL → secret, multi-value CATEGORIES → keywords', () => {
    const [occurrence] = expandFixture(
      'confidential-yearly-all-day.ics',
      '2024-10-20T00:00:00Z',
      '2024-10-23T00:00:00Z',
    ).occurrences;
    assert.equal(occurrence?.start, '2024-10-21T00:00:00');
    assert.equal(occurrence?.recurrenceId, '2024-10-21');
    assert.equal(occurrence?.privacy, 'secret');
    assert.equal(occurrence?.freeBusyStatus, 'free');
    assert.deepEqual(occurrence?.keywords, ['FAMILY', 'WEDDING DAY', 'REMEMBER']);
  });

  it('utc-weekly-open-ended: an open-ended weekly UTC series stops at the window', () => {
    const result = expandFixture('utc-weekly-open-ended.ics', '2024-03-01T00:00:00Z', '2024-03-31T00:00:00Z');
    // Mondays 16:00Z (Jan 2, 2023 was a Monday).
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.start),
      ['2024-03-04T16:00:00', '2024-03-11T16:00:00', '2024-03-18T16:00:00', '2024-03-25T16:00:00'],
    );
  });

  it('utc-single-event and vtimezone-without-events: a single UTC event; a file with only a VTIMEZONE', () => {
    assert.deepEqual(
      timing(expandFixture('utc-single-event.ics', '2023-05-02T00:00:00Z', '2023-05-03T00:00:00Z')),
      ['2023-05-02T13:45:00 Etc/UTC PT1H'],
    );
    assert.deepEqual(
      expandFixture('vtimezone-without-events.ics', '1970-01-01T00:00:00Z', '2030-01-01T00:00:00Z'),
      {
        occurrences: [],
        skipped: [],
      },
    );
  });

  it('community-calendar-berlin: a monthly series with exclusions, moves and a UTC UNTIL', () => {
    const result = expandFixture(
      'community-calendar-berlin.ics',
      '2021-06-01T00:00:00Z',
      '2021-12-31T00:00:00Z',
    );
    assert.deepEqual(result.skipped, []);
    const repairCafe = result.occurrences.filter(
      (occurrence) => occurrence.providerEventId === '3k8q2v7m1c0r5t9w4x6z1a2b3c@google.com',
    );
    // Last Saturdays 10:00 Berlin: Jun 26; Jul 31 and Aug 28 excluded; Sep 25 → Sep 18; Oct 30 → Oct 23;
    // Nov 27 10:00 CET (09:00Z) is after UNTIL 2021-11-26T22:59:59Z.
    assert.deepEqual(
      repairCafe.map((occurrence) => [occurrence.recurrenceId, occurrence.start, occurrence.duration]),
      [
        ['2021-06-26T08:00:00Z', '2021-06-26T10:00:00', 'PT4H'],
        ['2021-09-25T08:00:00Z', '2021-09-18T10:00:00', 'PT4H'],
        ['2021-10-30T08:00:00Z', '2021-10-23T10:00:00', 'PT4H'],
      ],
    );
    assert.ok(repairCafe.every((occurrence) => occurrence.title === 'Werkhaus unterwegs: ReparaturCafé'));
  });
});
