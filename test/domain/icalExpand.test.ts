/** expandIcs on small hand-written calendars: bounds, errors, mapping rules, options. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calendarTimeZone, type ExpandOptions, expandIcs } from '../../src/domain/ical/expand.ts';
import { isAppError } from '../../src/errors.ts';
import { timing, window } from './icalFixtures.ts';

const calendar = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', ...lines, 'END:VCALENDAR'].join('\r\n');
const vevent = (...lines: string[]) => ['BEGIN:VEVENT', ...lines, 'END:VEVENT'];
const june2024 = window('2024-06-01T00:00:00Z', '2024-07-01T00:00:00Z');
const expand = (ics: string, options: Partial<ExpandOptions> = {}) =>
  expandIcs(ics, { window: june2024, ...options });

describe('expandIcs bounds', () => {
  it('gives up on a FREQ=SECONDLY rule from 1990 instead of hanging', () => {
    const started = performance.now();
    const result = expand(
      calendar(
        ...vevent('UID:secondly', 'DTSTART:19900101T000000Z', 'RRULE:FREQ=SECONDLY', 'SUMMARY:tick'),
        ...vevent('UID:fine', 'DTSTART:20240610T090000Z', 'SUMMARY:fine'),
      ),
    );
    assert.ok(performance.now() - started < 20_000);
    assert.equal(result.skipped.length, 1);
    assert.equal(result.skipped[0]?.providerEventId, 'secondly');
    assert.match(result.skipped[0]?.reason ?? '', /more than 200000 steps/);
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.providerEventId),
      ['fine'],
    );
  });

  it('gives up on a rule that can never match (no 30 February)', () => {
    const result = expand(
      calendar(
        ...vevent('UID:never', 'DTSTART:20240101T090000Z', 'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30'),
      ),
    );
    assert.deepEqual(result.occurrences, []);
    assert.equal(result.skipped[0]?.providerEventId, 'never');
  });

  it('does not iterate an open-ended rule past the window', () => {
    const result = expand(calendar(...vevent('UID:daily', 'DTSTART:19700101T090000Z', 'RRULE:FREQ=DAILY')));
    assert.equal(result.occurrences.length, 30);
    assert.deepEqual(result.skipped, []);
  });

  it('caps occurrences per event and says so', () => {
    const result = expand(
      calendar(...vevent('UID:hourly', 'DTSTART:20240601T000000Z', 'RRULE:FREQ=HOURLY')),
      {
        maxOccurrencesPerEvent: 5,
      },
    );
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.start),
      ['00', '01', '02', '03', '04'].map((hour) => `2024-06-01T${hour}:00:00`),
    );
    assert.deepEqual(result.skipped, [
      { providerEventId: 'hourly', reason: 'more than 5 occurrences in the window; the rest are left out' },
    ]);
  });

  it('reports a rule ical.js cannot read', () => {
    const result = expand(
      calendar(...vevent('UID:odd', 'DTSTART:20240601T000000Z', 'RRULE:FREQ=DAILY;INTERVAL=abc')),
    );
    assert.deepEqual(result.occurrences, []);
    assert.equal(result.skipped[0]?.providerEventId, 'odd');
    assert.match(result.skipped[0]?.reason ?? '', /^malformed component: .*abc/);
  });
});

describe('expandIcs time zones', () => {
  it('skips an event whose TZID is unknown and has no VTIMEZONE, never making it floating', () => {
    const result = expand(
      calendar(
        ...vevent('UID:mars', 'DTSTART;TZID=Mars/Olympus_Mons:20240610T090000', 'SUMMARY:on Mars'),
        ...vevent('UID:earth', 'DTSTART;TZID=Europe/Berlin:20240610T090000'),
      ),
    );
    assert.deepEqual(result.skipped, [
      { providerEventId: 'mars', reason: 'unknown time zone "Mars/Olympus_Mons"' },
    ]);
    assert.deepEqual(timing(result), ['2024-06-10T09:00:00 Europe/Berlin PT0S']);
  });

  it('skips an event whose EXDATE names an unknown zone', () => {
    const result = expand(
      calendar(
        ...vevent(
          'UID:x',
          'DTSTART;TZID=Europe/Berlin:20240610T090000',
          'RRULE:FREQ=DAILY;COUNT=3',
          'EXDATE;TZID=Nowhere/Special:20240611T090000',
        ),
      ),
    );
    assert.deepEqual(result.occurrences, []);
    assert.equal(result.skipped[0]?.reason, 'unknown time zone "Nowhere/Special"');
  });

  it('reads Windows, vendor-prefixed and quoted TZIDs as IANA zones', () => {
    const result = expand(
      calendar(
        ...vevent('UID:a', 'DTSTART;TZID=W. Europe Standard Time:20240610T090000'),
        ...vevent('UID:b', 'DTSTART;TZID=/mozilla.org/20050126_1/America/New_York:20240610T090000'),
        ...vevent('UID:c', 'DTSTART;TZID="Asia/Tokyo":20240610T090000'),
        ...vevent('UID:d', 'DTSTART;TZID=UTC:20240610T090000'),
      ),
    );
    // In order of their instants: 00:00Z, 07:00Z, 09:00Z, 13:00Z.
    assert.deepEqual(timing(result), [
      '2024-06-10T09:00:00 Asia/Tokyo PT0S',
      '2024-06-10T09:00:00 Europe/Berlin PT0S',
      '2024-06-10T09:00:00 Etc/UTC PT0S',
      '2024-06-10T09:00:00 America/New_York PT0S',
    ]);
  });

  it('moves a start in the spring-forward gap ahead, as RFC 5545 says', () => {
    const result = expandIcs(calendar(...vevent('UID:gap', 'DTSTART;TZID=Europe/Berlin:20240331T023000')), {
      window: window('2024-03-30T00:00:00Z', '2024-04-01T00:00:00Z'),
    });
    // 02:30 does not exist on Mar 31; the offset before the gap (+01:00) makes it 01:30Z = 03:30 CEST.
    assert.deepEqual(timing(result), ['2024-03-31T03:30:00 Europe/Berlin PT0S']);
  });

  it('keeps the wall-clock time of a daily series across DST and measures DTEND in the zone', () => {
    const result = expandIcs(
      calendar(
        ...vevent(
          'UID:dst',
          'DTSTART;TZID=America/New_York:20240309T233000',
          'DTEND;TZID=America/New_York:20240310T043000',
          'RRULE:FREQ=DAILY;COUNT=2',
        ),
      ),
      { window: window('2024-03-09T00:00:00Z', '2024-03-12T00:00:00Z') },
    );
    // 23:30 EST to 04:30 EDT is 4 hours of real time across the skipped hour.
    assert.deepEqual(timing(result), [
      '2024-03-09T23:30:00 America/New_York PT4H',
      '2024-03-10T23:30:00 America/New_York PT4H',
    ]);
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.recurrenceId),
      ['2024-03-10T04:30:00Z', '2024-03-11T03:30:00Z'],
    );
  });

  it('reads X-WR-TIMEZONE as the calendar zone', () => {
    assert.equal(calendarTimeZone(calendar('X-WR-TIMEZONE:Europe/Vienna')), 'Europe/Vienna');
    assert.equal(calendarTimeZone(calendar('X-WR-TIMEZONE:Romance Standard Time')), 'Europe/Paris');
    assert.equal(calendarTimeZone(calendar('X-WR-TIMEZONE:Somewhere')), undefined);
    assert.equal(calendarTimeZone(calendar()), undefined);
  });
});

describe('expandIcs recurrence', () => {
  it('expands a floating series with a floating EXDATE and reports local recurrence ids', () => {
    const result = expand(
      calendar(
        ...vevent('UID:f', 'DTSTART:20240610T090000', 'RRULE:FREQ=DAILY;COUNT=3', 'EXDATE:20240611T090000'),
      ),
    );
    assert.deepEqual(timing(result), [
      '2024-06-10T09:00:00 floating PT0S',
      '2024-06-12T09:00:00 floating PT0S',
    ]);
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.recurrenceId),
      ['2024-06-10T09:00:00', '2024-06-12T09:00:00'],
    );
  });

  it('returns a cancelled override as cancelled', () => {
    const result = expand(
      calendar(
        ...vevent('UID:s', 'DTSTART:20240610T090000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;COUNT=3'),
        ...vevent('UID:s', 'RECURRENCE-ID:20240611T090000Z', 'DTSTART:20240611T090000Z', 'STATUS:CANCELLED'),
      ),
    );
    assert.deepEqual(
      result.occurrences.map((occurrence) => [
        occurrence.recurrenceId,
        occurrence.status,
        occurrence.duration,
      ]),
      [
        ['2024-06-10T09:00:00Z', 'confirmed', 'PT1H'],
        ['2024-06-11T09:00:00Z', 'cancelled', 'PT1H'],
        ['2024-06-12T09:00:00Z', 'confirmed', 'PT1H'],
      ],
    );
  });

  it('includes an override moved into the window from outside it', () => {
    const result = expand(
      calendar(
        ...vevent('UID:m', 'DTSTART:20240501T090000Z', 'RRULE:FREQ=MONTHLY;COUNT=3'),
        ...vevent('UID:m', 'RECURRENCE-ID:20240701T090000Z', 'DTSTART:20240615T090000Z'),
      ),
    );
    // Jun 1 is an instance; Jul 1 moved to Jun 15.
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.recurrenceId, occurrence.start]),
      [
        ['2024-06-01T09:00:00Z', '2024-06-01T09:00:00'],
        ['2024-07-01T09:00:00Z', '2024-06-15T09:00:00'],
      ],
    );
  });

  it('pulls later instances moved earlier by THISANDFUTURE in from past the window', () => {
    const result = expand(
      calendar(
        ...vevent('UID:t', 'DTSTART:20240601T090000Z', 'RRULE:FREQ=WEEKLY'),
        ...vevent('UID:t', 'RECURRENCE-ID;RANGE=THISANDFUTURE:20240608T090000Z', 'DTSTART:20240604T090000Z'),
      ),
    );
    // From Jun 8 on, every instance is 4 days earlier: Jul 6 lands on Jul 2 (outside), Jun 29 on Jun 25.
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.start.slice(0, 10)),
      ['2024-06-01', '2024-06-04', '2024-06-11', '2024-06-18', '2024-06-25'],
    );
    const july = expandIcs(
      calendar(
        ...vevent('UID:t', 'DTSTART:20240601T090000Z', 'RRULE:FREQ=WEEKLY'),
        ...vevent('UID:t', 'RECURRENCE-ID;RANGE=THISANDFUTURE:20240608T090000Z', 'DTSTART:20240604T090000Z'),
      ),
      { window: window('2024-07-01T00:00:00Z', '2024-07-03T00:00:00Z') },
    );
    assert.deepEqual(
      july.occurrences.map((occurrence) => [occurrence.recurrenceId, occurrence.start]),
      [['2024-07-06T09:00:00Z', '2024-07-02T09:00:00']],
    );
  });

  it('matches an override named in another zone by its instant', () => {
    const result = expand(
      calendar(
        ...vevent('UID:z', 'DTSTART;TZID=Europe/Berlin:20240610T090000', 'RRULE:FREQ=DAILY;COUNT=2'),
        ...vevent(
          'UID:z',
          'RECURRENCE-ID;TZID=America/New_York:20240611T030000',
          'DTSTART;TZID=Europe/Berlin:20240611T100000',
        ),
      ),
    );
    assert.deepEqual(timing(result), [
      '2024-06-10T09:00:00 Europe/Berlin PT0S',
      '2024-06-11T10:00:00 Europe/Berlin PT0S',
    ]);
  });

  it('lets the later of two versions of an override win (SEQUENCE)', () => {
    const result = expand(
      calendar(
        ...vevent('UID:v', 'DTSTART:20240610T090000Z', 'RRULE:FREQ=DAILY;COUNT=1'),
        ...vevent(
          'UID:v',
          'RECURRENCE-ID:20240610T090000Z',
          'DTSTART:20240610T120000Z',
          'SEQUENCE:3',
          'SUMMARY:new',
        ),
        ...vevent(
          'UID:v',
          'RECURRENCE-ID:20240610T090000Z',
          'DTSTART:20240610T110000Z',
          'SEQUENCE:2',
          'SUMMARY:old',
        ),
      ),
    );
    assert.deepEqual(
      result.occurrences.map((occurrence) => [occurrence.start, occurrence.title]),
      [['2024-06-10T12:00:00', 'new']],
    );
  });
});

describe('expandIcs errors', () => {
  it('throws invalid_request for text that is not iCalendar', () => {
    for (const text of ['', 'hello world', '<html>BEGIN:VCALENDAR</html>', '{"items":[]}']) {
      assert.throws(
        () => expand(text),
        (error) => isAppError(error) && error.code === 'invalid_request',
        JSON.stringify(text),
      );
    }
  });

  it('reports a malformed component and keeps the others', () => {
    const result = expand(
      calendar(
        ...vevent('UID:broken', 'DTSTART:20240610T090000Z', 'this line has no colon'),
        ...vevent('UID:bad-date', 'DTSTART:20240631T090000Z'),
        ...vevent('UID:good', 'DTSTART:20240610T090000Z'),
      ),
    );
    assert.deepEqual(
      result.occurrences.map((occurrence) => occurrence.providerEventId),
      ['good'],
    );
    assert.deepEqual(
      result.skipped.map((item) => item.providerEventId),
      ['broken', 'bad-date'],
    );
    assert.match(result.skipped[0]?.reason ?? '', /^malformed component/);
    assert.match(result.skipped[1]?.reason ?? '', /malformed date/);
  });

  it('reports a component that never ends', () => {
    const result = expand(
      ['BEGIN:VCALENDAR', ...vevent('UID:ok', 'DTSTART:20240610T090000Z'), 'BEGIN:VEVENT', 'UID:open'].join(
        '\n',
      ),
    );
    assert.equal(result.occurrences.length, 1);
    assert.deepEqual(result.skipped, [
      { providerEventId: 'open', reason: 'malformed component: it does not end' },
    ]);
    const cut = expand(calendar('BEGIN:VEVENT', 'UID:cut', 'this is not a content line'));
    assert.deepEqual(cut, {
      occurrences: [],
      skipped: [{ providerEventId: 'cut', reason: 'malformed component: it does not end' }],
    });
  });
});

describe('expandIcs mapping', () => {
  const rich = calendar(
    ...vevent(
      'UID:rich',
      'DTSTART;TZID=Europe/Berlin:20240610T090000',
      'DTEND;TZID=Europe/Berlin:20240610T103000',
      'SUMMARY:Planning',
      'DESCRIPTION:Agenda\\nfirst',
      'LOCATION:Room 1',
      'GEO:52.52;13.405',
      'URL:https://example.com/event',
      'ATTACH:https://example.com/slides.pdf',
      'ATTACH;ENCODING=BASE64;VALUE=BINARY:aGVsbG8=',
      'LINK;REL=Alternate;LABEL=Agenda:https://example.com/agenda',
      'CATEGORIES:work,planning',
      'CATEGORIES:work',
      'COLOR:teal',
      'CLASS:X-SECRETIVE',
      'TRANSP:OPAQUE',
      'STATUS:TENTATIVE',
      'X-GOOGLE-CONFERENCE:https://meet.google.com/abc',
      'ORGANIZER;CN=Boss:mailto:boss@example.com',
      'ATTENDEE;PARTSTAT=DECLINED:MAILTO:Me@Example.com',
      'ATTENDEE;PARTSTAT=ACCEPTED:mailto:boss@example.com',
      'BEGIN:VALARM',
      'ACTION:DISPLAY',
      'TRIGGER:-PT15M',
      'END:VALARM',
      'BEGIN:VALARM',
      'ACTION:EMAIL',
      'TRIGGER;RELATED=END:PT10M',
      'END:VALARM',
      'BEGIN:VALARM',
      'ACTION:AUDIO',
      'TRIGGER:-PT1H',
      'END:VALARM',
      'BEGIN:VALARM',
      'ACTION:DISPLAY',
      'TRIGGER;VALUE=DATE-TIME:20240610T060000Z',
      'END:VALARM',
    ),
  );

  it('maps every field of DESIGN §4', () => {
    const [occurrence] = expand(rich, {
      selfAddresses: ['me@example.com'],
      version: '"etag-1"',
    }).occurrences;
    assert.deepEqual(occurrence, {
      providerEventId: 'rich',
      start: '2024-06-10T09:00:00',
      timeZone: 'Europe/Berlin',
      showWithoutTime: false,
      duration: 'PT1H30M',
      title: 'Planning',
      description: 'Agenda\nfirst',
      locations: [{ name: 'Room 1', coordinates: 'geo:52.52,13.405' }],
      links: [
        { href: 'https://example.com/event' },
        { href: 'https://example.com/slides.pdf', rel: 'enclosure' },
        { href: 'https://example.com/agenda', rel: 'alternate', title: 'Agenda' },
      ],
      keywords: ['work', 'planning'],
      color: 'teal',
      status: 'tentative',
      freeBusyStatus: 'busy',
      privacy: 'private',
      alerts: [
        { offset: '-PT15M', action: 'display' },
        { offset: 'PT1H40M', action: 'email' },
      ],
      responseStatus: 'declined',
      organizer: { email: 'boss@example.com', name: 'Boss', self: false },
      attendees: [
        { email: 'Me@Example.com', optional: false, response: 'declined', self: true },
        { email: 'boss@example.com', optional: false, response: 'accepted', self: false },
      ],
      facts: {
        recurring: false,
        organizer: 'other',
        attendees: true,
        userIsAttendee: true,
        conference: true,
        managedCopy: false,
        version: '"etag-1"',
      },
    });
  });

  it('knows when the user organises, and when it cannot tell', () => {
    const own = expand(rich, { selfAddresses: ['boss@example.com'] }).occurrences[0];
    assert.equal(own?.facts.organizer, 'self');
    assert.equal(own?.facts.userIsAttendee, false);
    assert.equal(own?.facts.attendees, true);
    assert.equal(own?.responseStatus, 'accepted');
    const anonymous = expand(rich).occurrences[0];
    assert.equal(anonymous?.facts.organizer, 'unknown');
    assert.equal(anonymous?.responseStatus, undefined);
  });

  it('uses RFC defaults and leaves out what is empty', () => {
    const [occurrence] = expand(
      calendar(...vevent('UID:bare', 'DTSTART;VALUE=DATE:20240610', 'SUMMARY:', 'LOCATION: ', 'CATEGORIES:')),
      { managedCopy: true },
    ).occurrences;
    assert.deepEqual(occurrence, {
      providerEventId: 'bare',
      start: '2024-06-10T00:00:00',
      showWithoutTime: true,
      duration: 'P1D',
      status: 'confirmed',
      freeBusyStatus: 'busy',
      facts: {
        recurring: false,
        organizer: 'none',
        attendees: false,
        userIsAttendee: false,
        conference: false,
        managedCopy: true,
      },
    });
  });

  it('normalises DURATION and takes whole days for all-day events', () => {
    const result = expand(
      calendar(
        ...vevent('UID:a', 'DTSTART:20240610T090000Z', 'DURATION:P1W'),
        ...vevent('UID:b', 'DTSTART;VALUE=DATE:20240611', 'DURATION:P1W'),
        ...vevent('UID:c', 'DTSTART:20240612T090000Z', 'DTEND:20240612T080000Z'),
        ...vevent('UID:d', 'DTSTART:20240613T090000Z', 'DTEND:20240614T120000Z', 'DURATION:PT1H'),
      ),
    );
    assert.deepEqual(timing(result), [
      '2024-06-10T09:00:00 Etc/UTC P1W',
      '2024-06-11T00:00:00 floating P7D',
      '2024-06-12T09:00:00 Etc/UTC PT0S',
      '2024-06-13T09:00:00 Etc/UTC P1DT3H',
    ]);
  });
});
