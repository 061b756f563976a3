/**
 * Writing iCalendar objects, read back through the service's own expansion: new events in
 * several zones (VTIMEZONEs from Temporal's rules), edits that keep what they do not change,
 * occurrence edits and deletions that leave the series alone, and answers to invitations.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandIcs } from '../../src/domain/ical/expand.ts';
import { editObject, newEventObject } from '../../src/domain/ical/objectEdits.ts';
import { zoneDefinition } from '../../src/domain/ical/zoneDefinition.ts';
import { AppError } from '../../src/errors.ts';
import { vcalendar } from '../helpers/radicaleCalendars.ts';

const now = Temporal.Instant.from('2026-03-01T12:00:00Z');
const year = {
  start: Temporal.Instant.from('2026-01-01T00:00:00Z'),
  end: Temporal.Instant.from('2027-01-01T00:00:00Z'),
};
const read = (ics: string, selfAddresses: string[] = []) =>
  expandIcs(ics, { window: year, selfAddresses }).occurrences.map((o) => ({
    title: o.title,
    start: o.start,
    timeZone: o.timeZone,
    duration: o.duration,
    recurrenceId: o.recurrenceId,
  }));

describe('new event objects', () => {
  it('place local times exactly in their zone, across DST changes', () => {
    const cases: Array<[string, string, string, string]> = [
      ['Europe/Berlin', '2026-03-28T23:30:00', '2026-03-29T03:30:00', 'PT3H'],
      ['Europe/Berlin', '2026-10-24T23:30:00', '2026-10-25T03:30:00', 'PT5H'],
      ['America/New_York', '2026-03-07T22:00:00', '2026-03-08T04:00:00', 'PT5H'],
      ['Australia/Lord_Howe', '2026-10-03T23:00:00', '2026-10-04T03:00:00', 'PT3H30M'],
      ['Asia/Kolkata', '2026-06-01T09:00:00', '2026-06-01T09:45:00', 'PT45M'],
      ['Etc/UTC', '2026-06-01T09:00:00', '2026-06-01T10:00:00', 'PT1H'],
    ];
    for (const [timeZone, start, end, duration] of cases) {
      const ics = newEventObject(
        { title: 'Call', timing: { allDay: false, start, end, timeZone } },
        'uid-1',
        now,
      );
      assert.deepEqual(
        read(ics),
        [{ title: 'Call', start, timeZone, duration, recurrenceId: undefined }],
        timeZone,
      );
    }
  });

  it('writes all-day events as dates, and the other fields as iCalendar says', () => {
    const ics = newEventObject(
      {
        title: 'Offsite',
        timing: { allDay: true, startDate: '2026-10-24', endDate: '2026-10-26' },
        description: 'Bring boots',
        location: 'Hut',
        privacy: 'private',
        freeBusyStatus: 'free',
      },
      'uid-2',
      now,
    );
    assert.match(ics, /DTSTART;VALUE=DATE:20261024\r\nDTEND;VALUE=DATE:20261026/);
    assert.match(ics, /UID:uid-2/);
    assert.match(ics, /CLASS:PRIVATE/);
    assert.match(ics, /TRANSP:TRANSPARENT/);
    const [offsite] = expandIcs(ics, { window: year }).occurrences;
    assert.deepEqual(
      [offsite?.start, offsite?.duration, offsite?.showWithoutTime, offsite?.description, offsite?.privacy],
      ['2026-10-24T00:00:00', 'P2D', true, 'Bring boots', 'private'],
    );
  });

  it('defines zones from Temporal: Lord Howe moves by half an hour, Kolkata never', () => {
    const lordHowe = zoneDefinition('Australia/Lord_Howe', Temporal.PlainDate.from('2026-10-04')).toString();
    assert.match(
      lordHowe,
      /BEGIN:DAYLIGHT\r\nDTSTART:20261004T020000\r\nTZOFFSETFROM:\+1030\r\nTZOFFSETTO:\+1100/,
    );
    const kolkata = zoneDefinition('Asia/Kolkata', Temporal.PlainDate.from('2026-06-01')).toString();
    assert.equal((kolkata.match(/BEGIN:STANDARD/g) ?? []).length, 1);
    assert.doesNotMatch(kolkata, /DAYLIGHT/);
  });
});

const series = vcalendar(
  [
    'UID:standup',
    'DTSTART;TZID=Europe/Berlin:20260323T090000',
    'DTEND;TZID=Europe/Berlin:20260323T091500',
    'RRULE:FREQ=WEEKLY;COUNT=3',
    'SUMMARY:Standup',
    'X-VENDOR-FLAG:keep me',
  ],
  ['UID:other', 'DTSTART:20260401T100000Z', 'DTEND:20260401T110000Z', 'SUMMARY:Other'],
);

describe('edits of existing objects', () => {
  it('change one occurrence through an override; the series and other events stay as they were', () => {
    const edited = editObject(
      series,
      'standup',
      {
        kind: 'fields',
        recurrenceId: '2026-03-30T07:00:00Z',
        fields: {
          title: 'Standup (late)',
          timing: {
            allDay: false,
            start: '2026-03-30T11:00:00',
            end: '2026-03-30T11:30:00',
            timeZone: 'Europe/Berlin',
          },
        },
      },
      now,
    );
    assert.match(edited, /RECURRENCE-ID;TZID=Europe\/Berlin:20260330T090000/);
    assert.match(edited, /X-VENDOR-FLAG:keep me/);
    assert.deepEqual(
      read(edited).map((o) => [o.title, o.start, o.duration, o.recurrenceId]),
      [
        ['Standup', '2026-03-23T09:00:00', 'PT15M', '2026-03-23T08:00:00Z'],
        ['Standup (late)', '2026-03-30T11:00:00', 'PT30M', '2026-03-30T07:00:00Z'],
        ['Other', '2026-04-01T10:00:00', 'PT1H', undefined],
        ['Standup', '2026-04-06T09:00:00', 'PT15M', '2026-04-06T07:00:00Z'],
      ],
    );
    // A second edit of the same occurrence changes its override, not a new one.
    const again = editObject(
      edited,
      'standup',
      { kind: 'fields', recurrenceId: '2026-03-30T07:00:00Z', fields: { title: 'Standup (later)' } },
      now,
    );
    assert.equal((again.match(/RECURRENCE-ID/g) ?? []).length, 1);
    assert.deepEqual(
      read(again)
        .filter((o) => o.recurrenceId === '2026-03-30T07:00:00Z')
        .map((o) => [o.title, o.start]),
      [['Standup (later)', '2026-03-30T11:00:00']],
    );
  });

  it('renames a series with its overrides, and deletes one occurrence with an EXDATE in the master’s form', () => {
    const moved = editObject(
      series,
      'standup',
      { kind: 'fields', recurrenceId: '2026-03-30T07:00:00Z', fields: { description: 'moved' } },
      now,
    );
    const renamed = editObject(moved, 'standup', { kind: 'series', fields: { title: 'Sync' } }, now);
    assert.deepEqual(
      read(renamed)
        .filter((o) => o.title !== 'Other')
        .map((o) => o.title),
      ['Sync', 'Sync', 'Sync'],
    );
    const deleted = editObject(
      renamed,
      'standup',
      { kind: 'delete-occurrence', recurrenceId: '2026-03-30T07:00:00Z' },
      now,
    );
    assert.match(deleted, /EXDATE;TZID=Europe\/Berlin:20260330T090000/);
    assert.doesNotMatch(deleted, /RECURRENCE-ID/, 'the override of a deleted occurrence goes too');
    assert.deepEqual(
      read(deleted).map((o) => o.start),
      ['2026-03-23T09:00:00', '2026-04-01T10:00:00', '2026-04-06T09:00:00'],
    );
    const daily = vcalendar([
      'UID:d',
      'DTSTART;VALUE=DATE:20260601',
      'RRULE:FREQ=DAILY;COUNT=3',
      'SUMMARY:Day',
    ]);
    assert.match(
      editObject(daily, 'd', { kind: 'delete-occurrence', recurrenceId: '2026-06-02' }, now),
      /EXDATE;VALUE=DATE:20260602/,
    );
    const utc = vcalendar([
      'UID:u',
      'DTSTART:20260601T080000Z',
      'DURATION:PT1H',
      'RRULE:FREQ=DAILY;COUNT=3',
      'SUMMARY:U',
    ]);
    const utcDeleted = editObject(
      utc,
      'u',
      { kind: 'delete-occurrence', recurrenceId: '2026-06-02T08:00:00Z' },
      now,
    );
    assert.match(utcDeleted, /EXDATE:20260602T080000Z/);
    assert.equal(read(utcDeleted).length, 2);
  });

  it('changes, clears and stamps fields of a single event, keeping the rest', () => {
    const single = vcalendar([
      'UID:s',
      'DTSTART;TZID=Europe/Berlin:20260601T090000',
      'DTEND;TZID=Europe/Berlin:20260601T100000',
      'SUMMARY:Old',
      'DESCRIPTION:Notes',
      'LOCATION:Room',
      'SEQUENCE:4',
      'X-KEEP:yes',
    ]);
    const edited = editObject(
      single,
      's',
      { kind: 'fields', fields: { title: 'New', description: null } },
      now,
    );
    assert.match(edited, /SUMMARY:New/);
    assert.doesNotMatch(edited, /DESCRIPTION/);
    assert.match(edited, /LOCATION:Room/);
    assert.match(edited, /SEQUENCE:5/);
    assert.match(edited, /X-KEEP:yes/);
    assert.match(edited, /LAST-MODIFIED:20260301T120000Z/);
    assert.throws(
      () => editObject(single, 'missing', { kind: 'fields', fields: { title: 'x' } }, now),
      (error) => error instanceof AppError && error.code === 'not_found',
    );
  });

  it('answers an invitation for the user only, with a comment, without raising SEQUENCE', () => {
    const invite = vcalendar([
      'UID:i',
      'DTSTART;TZID=Europe/Berlin:20260601T090000',
      'DTEND;TZID=Europe/Berlin:20260601T100000',
      'SUMMARY:Review',
      'SEQUENCE:2',
      'ORGANIZER:mailto:boss@example.org',
      'ATTENDEE;PARTSTAT=ACCEPTED:mailto:boss@example.org',
      'ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:Ana@Example.org',
    ]);
    const answered = editObject(
      invite,
      'i',
      {
        kind: 'respond',
        response: 'tentative',
        comment: 'Might be late',
        selfAddresses: ['ana@example.org'],
      },
      now,
    );
    assert.match(answered, /ATTENDEE;PARTSTAT=TENTATIVE:mailto:Ana@Example\.org/);
    assert.match(answered, /ATTENDEE;PARTSTAT=ACCEPTED:mailto:boss@example\.org/);
    assert.match(answered, /COMMENT:Might be late/);
    assert.match(answered, /SEQUENCE:2/);
    const [review] = expandIcs(answered, { window: year, selfAddresses: ['ana@example.org'] }).occurrences;
    assert.equal(review?.responseStatus, 'tentative');
    assert.throws(
      () =>
        editObject(
          invite,
          'i',
          { kind: 'respond', response: 'accepted', selfAddresses: ['eve@example.org'] },
          now,
        ),
      (error) => error instanceof AppError && error.code === 'access_denied',
    );
  });
});
