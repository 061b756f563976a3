/**
 * Composing and editing iCalendar objects, checked through the service's own expansion and
 * through ical.js reading our VTIMEZONEs the way other clients and servers do: zone
 * definitions that agree with Temporal at every change, new events in six zones, occurrence
 * overrides and EXDATEs in every form a master's DTSTART takes, real client files edited
 * without disturbing what the edit does not name, and answers to one occurrence or a series.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ICAL from 'ical.js';
import { expandIcs } from '../../src/domain/ical/expand.ts';
import { editObject, newEventObject } from '../../src/domain/ical/objectEdits.ts';
import { icalValue } from '../../src/domain/ical/times.ts';
import { zoneDefinition } from '../../src/domain/ical/zoneDefinition.ts';
import { AppError } from '../../src/errors.ts';
import { fixtureIcs, vcalendar } from '../helpers/radicaleCalendars.ts';

const now = Temporal.Instant.from('2026-03-01T12:00:00Z');
const window = (from: string, to: string) => ({
  start: Temporal.Instant.from(from),
  end: Temporal.Instant.from(to),
});
const year2026 = window('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z');

const occurrences = (ics: string, range = year2026, selfAddresses: string[] = []) =>
  expandIcs(ics, { window: range, selfAddresses }).occurrences;

const componentsOf = (ics: string) => new ICAL.Component(ICAL.parse(ics)).getAllSubcomponents();
/** Each top-level component's text, to compare what an edit must leave alone. */
const texts = (ics: string) => componentsOf(ics).map((component) => component.toString());

const rejectsWith = (run: () => unknown, code: string) =>
  assert.throws(run, (error: unknown) => error instanceof AppError && error.code === code);

describe('zone definitions from Temporal', () => {
  const zones = [
    'Europe/Berlin',
    'America/New_York',
    'Australia/Lord_Howe',
    'Asia/Kolkata',
    'America/Santiago',
    'Pacific/Chatham',
  ];

  it('give the offset Temporal gives, just around every change and every six hours from the year before to the year after', () => {
    for (const zone of zones) {
      const timezone = new ICAL.Timezone(zoneDefinition(zone, Temporal.PlainDate.from('2026-06-15')));
      const offsetAt = (local: Temporal.PlainDateTime) => timezone.utcOffset(icalValue(local));
      const samples: Temporal.ZonedDateTime[] = [];
      const first = Temporal.PlainDate.from('2025-01-01').toZonedDateTime(zone);
      for (let at = first; at.year < 2028; at = at.add({ hours: 6 })) samples.push(at);
      for (let change = first.getTimeZoneTransition('next'); change !== null && change.year < 2028; ) {
        const jump = Math.abs(
          change.offsetNanoseconds - change.subtract({ nanoseconds: 1 }).offsetNanoseconds,
        );
        const margin = { nanoseconds: jump + 60e9 };
        samples.push(change.subtract(margin), change.add(margin));
        change = change.getTimeZoneTransition('next');
      }
      let compared = 0;
      for (const sample of samples) {
        const local = sample.toPlainDateTime();
        // Wall times a change skips or repeats have no single offset to compare.
        const earlier = local.toZonedDateTime(zone, { disambiguation: 'earlier' });
        if (!earlier.equals(local.toZonedDateTime(zone, { disambiguation: 'later' }))) continue;
        if (!earlier.toPlainDateTime().equals(local)) continue;
        assert.equal(offsetAt(local), sample.offsetNanoseconds / 1e9, `${zone} at ${sample}`);
        compared += 1;
      }
      assert.ok(compared > 4300, `${zone}: ${compared} times compared`);
    }
  });

  it('writes every change in its own part, with the offsets before and after', () => {
    const berlin = zoneDefinition('Europe/Berlin', Temporal.PlainDate.from('2026-03-29')).toString();
    for (const change of [
      'BEGIN:DAYLIGHT\r\nDTSTART:20250330T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200',
      'BEGIN:STANDARD\r\nDTSTART:20261025T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100',
      'BEGIN:DAYLIGHT\r\nDTSTART:20270328T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200',
    ]) {
      assert.ok(berlin.includes(change), change);
    }
    assert.match(berlin, /^BEGIN:VTIMEZONE\r\nTZID:Europe\/Berlin\r\n/);
  });
});

describe('new event objects', () => {
  const timed = (start: string, end: string, timeZone: string) => ({
    title: 'Call',
    timing: { allDay: false as const, start, end, timeZone },
  });

  it('carry the required properties and a VTIMEZONE before the event', () => {
    const ics = newEventObject(
      { ...timed('2026-03-29T01:30:00', '2026-03-29T03:30:00', 'Europe/Berlin'), location: 'Room 1' },
      'abc123',
      now,
    );
    const [zone, event] = componentsOf(ics);
    assert.equal(zone?.name, 'vtimezone');
    assert.equal(event?.name, 'vevent');
    for (const line of [
      'UID:abc123',
      'DTSTAMP:20260301T120000Z',
      'SEQUENCE:0',
      'SUMMARY:Call',
      'LOCATION:Room 1',
      'DTSTART;TZID=Europe/Berlin:20260329T013000',
      'DTEND;TZID=Europe/Berlin:20260329T033000',
    ]) {
      assert.ok(ics.includes(`\r\n${line}\r\n`), line);
    }
    assert.doesNotMatch(ics, /DESCRIPTION|CLASS|RRULE/);
    // An hour on the clock, one elapsed: the clocks skip 02:00–03:00 that night.
    const [call] = occurrences(ics);
    assert.deepEqual(
      [call?.start, call?.timeZone, call?.duration],
      ['2026-03-29T01:30:00', 'Europe/Berlin', 'PT1H'],
    );
  });

  it('write UTC in the Z form, under any of its names, without a VTIMEZONE', () => {
    for (const zone of ['Etc/UTC', 'UTC']) {
      const ics = newEventObject(timed('2026-10-25T01:30:00', '2026-10-25T02:00:00', zone), 'u', now);
      assert.match(ics, /DTSTART:20261025T013000Z\r\nDTEND:20261025T020000Z/);
      assert.doesNotMatch(ics, /VTIMEZONE|TZID/);
      const [call] = occurrences(ics);
      assert.deepEqual(
        [call?.start, call?.timeZone, call?.duration],
        ['2026-10-25T01:30:00', 'Etc/UTC', 'PT30M'],
      );
    }
  });

  it('place all-day events on their dates, the end exclusive', () => {
    const ics = newEventObject(
      { title: 'Holiday', timing: { allDay: true, startDate: '2026-12-31', endDate: '2027-01-01' } },
      'h',
      now,
    );
    assert.doesNotMatch(ics, /VTIMEZONE/);
    const [holiday] = occurrences(ics, window('2026-12-01T00:00:00Z', '2027-02-01T00:00:00Z'));
    assert.deepEqual(
      [holiday?.start, holiday?.timeZone, holiday?.duration, holiday?.showWithoutTime],
      ['2026-12-31T00:00:00', undefined, 'P1D', true],
    );
  });
});

/** A weekly series in each form DTSTART takes, with the recurrence id of its second occurrence. */
const forms = [
  {
    form: 'zoned',
    lines: ['DTSTART;TZID=Europe/Berlin:20260321T233000', 'DTEND;TZID=Europe/Berlin:20260322T033000'],
    second: '2026-03-28T22:30:00Z',
    recurrenceId: 'RECURRENCE-ID;TZID=Europe/Berlin:20260328T233000',
    exdate: 'EXDATE;TZID=Europe/Berlin:20260328T233000',
  },
  {
    form: 'UTC',
    lines: ['DTSTART:20260321T223000Z', 'DTEND:20260322T023000Z'],
    second: '2026-03-28T22:30:00Z',
    recurrenceId: 'RECURRENCE-ID:20260328T223000Z',
    exdate: 'EXDATE:20260328T223000Z',
  },
  {
    form: 'floating',
    lines: ['DTSTART:20260321T233000', 'DTEND:20260322T033000'],
    second: '2026-03-28T23:30:00',
    recurrenceId: 'RECURRENCE-ID:20260328T233000',
    exdate: 'EXDATE:20260328T233000',
  },
  {
    form: 'all-day',
    lines: ['DTSTART;VALUE=DATE:20260321', 'DTEND;VALUE=DATE:20260323'],
    second: '2026-03-28',
    recurrenceId: 'RECURRENCE-ID;VALUE=DATE:20260328',
    exdate: 'EXDATE;VALUE=DATE:20260328',
  },
];

const seriesIn = (lines: string[]) =>
  vcalendar(
    [
      'UID:night',
      ...lines,
      'RRULE:FREQ=WEEKLY;COUNT=3',
      'SUMMARY:Night shift',
      'BEGIN:VALARM',
      'ACTION:DISPLAY',
      'DESCRIPTION:Soon',
      'TRIGGER:-PT15M',
      'END:VALARM',
    ],
    ['UID:neighbour', 'DTSTART:20260325T100000Z', 'DTEND:20260325T110000Z', 'SUMMARY:Neighbour', 'X-KEEP:1'],
  );

const view = (ics: string) =>
  occurrences(ics)
    .filter((o) => o.providerEventId === 'night')
    .map((o) => [o.recurrenceId, o.title, o.start, o.duration]);

describe('one occurrence of a series', () => {
  for (const { form, lines, second, recurrenceId, exdate } of forms) {
    it(`${form}: an override in the master's form changes that occurrence only`, () => {
      const ics = seriesIn(lines);
      const before = view(ics);
      const edited = editObject(
        ics,
        'night',
        { kind: 'fields', recurrenceId: second, fields: { title: 'Late shift' } },
        now,
      );
      assert.ok(edited.includes(`\r\n${recurrenceId}\r\n`), recurrenceId);
      // Same start and length as the series gave it (on the zoned DST night too), new title only.
      assert.deepEqual(
        view(edited),
        before.map((row) => (row[0] === second ? [row[0], 'Late shift', row[2], row[3]] : row)),
      );
      const override = componentsOf(edited).find((c) => c.hasProperty('recurrence-id'))!;
      assert.equal(override.hasProperty('rrule'), false);
      assert.equal(override.getAllSubcomponents('valarm').length, 1, 'the alarm is copied');
      assert.deepEqual(texts(edited).slice(1, 2), texts(ics).slice(1, 2), 'the neighbour is untouched');
    });

    it(`${form}: deleting it adds an EXDATE in the master's form`, () => {
      const ics = seriesIn(lines);
      const deleted = editObject(ics, 'night', { kind: 'delete-occurrence', recurrenceId: second }, now);
      assert.ok(deleted.includes(`\r\n${exdate}\r\n`), exdate);
      assert.deepEqual(
        view(deleted),
        view(ics).filter((row) => row[0] !== second),
      );
    });
  }

  it('an occurrence moved to another day and zone keeps its recurrence id; a second edit changes the same override', () => {
    const ics = seriesIn(forms[0]!.lines);
    const moved = editObject(
      ics,
      'night',
      {
        kind: 'fields',
        recurrenceId: '2026-03-28T22:30:00Z',
        fields: {
          timing: {
            allDay: false,
            start: '2026-03-30T09:00:00',
            end: '2026-03-30T10:00:00',
            timeZone: 'America/New_York',
          },
        },
      },
      now,
    );
    assert.equal((moved.match(/TZID:America\/New_York/g) ?? []).length, 1, 'one VTIMEZONE for the new zone');
    const again = editObject(
      moved,
      'night',
      {
        kind: 'fields',
        recurrenceId: '2026-03-28T22:30:00Z',
        fields: {
          description: 'Covering for Sam',
          timing: {
            allDay: false,
            start: '2026-03-30T10:00:00',
            end: '2026-03-30T11:00:00',
            timeZone: 'America/New_York',
          },
        },
      },
      now,
    );
    assert.equal((again.match(/BEGIN:VTIMEZONE/g) ?? []).length, 1);
    assert.equal((again.match(/RECURRENCE-ID/g) ?? []).length, 1);
    const shifted = occurrences(again).find((o) => o.recurrenceId === '2026-03-28T22:30:00Z');
    assert.deepEqual(
      [shifted?.start, shifted?.timeZone, shifted?.duration, shifted?.description],
      ['2026-03-30T10:00:00', 'America/New_York', 'PT1H', 'Covering for Sam'],
    );
  });

  it('refuses an occurrence the series cannot name, and moving a series with a deleted occurrence', () => {
    const ics = seriesIn(forms[0]!.lines);
    rejectsWith(
      () => editObject(ics, 'night', { kind: 'delete-occurrence', recurrenceId: 'not-a-time' }, now),
      'not_found',
    );
    // A zone only the object's own VTIMEZONE defines: its occurrences have no IANA clock to be named on.
    const vendorZone = vcalendar([
      'UID:v',
      'DTSTART;TZID=Custom Zone:20260321T090000',
      'RRULE:FREQ=DAILY;COUNT=2',
    ]).replace(
      'BEGIN:VEVENT',
      'BEGIN:VTIMEZONE\r\nTZID:Custom Zone\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0300\r\nTZOFFSETTO:+0300\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT',
    );
    assert.equal(occurrences(vendorZone).length, 2, 'readable all the same');
    const timing = {
      allDay: false,
      start: '2026-03-22T08:00:00',
      end: '2026-03-22T09:00:00',
      timeZone: 'Europe/Berlin',
    } as const;
    // Once one occurrence is deleted, the master no longer moves: the EXDATE would be stranded.
    const [, second] = occurrences(ics).filter((o) => o.recurrenceId !== undefined);
    const without = editObject(
      ics,
      'night',
      { kind: 'delete-occurrence', recurrenceId: second!.recurrenceId! },
      now,
    );
    rejectsWith(
      () => editObject(without, 'night', { kind: 'fields', fields: { timing } }, now),
      'series_has_exceptions',
    );
    rejectsWith(
      () =>
        editObject(vendorZone, 'v', { kind: 'delete-occurrence', recurrenceId: '2026-03-22T09:00:00Z' }, now),
      'recurring_event',
    );
  });
});

describe('edits of objects other clients wrote', () => {
  it('renames a Thunderbird series with its moved instance; the other series and the VTIMEZONE stay byte for byte', async () => {
    const ics = await fixtureIcs('thunderbird-moved-instances.ics');
    const uid = '3f9a2c1e-7b4d-4e8a-9c61-5d2e0f8b7a13';
    const renamed = editObject(
      ics,
      uid,
      { kind: 'series', fields: { title: 'Renamed', privacy: 'private' } },
      now,
    );
    const range = window('2023-11-01T00:00:00Z', '2023-12-01T00:00:00Z');
    const titles = occurrences(renamed, range)
      .filter((o) => o.providerEventId === uid)
      .map((o) => [o.start, o.title, o.privacy, o.locations?.[0]?.name]);
    assert.deepEqual(titles, [
      ['2023-11-13T03:00:00', 'Renamed', 'private', undefined],
      ['2023-11-14T03:00:00', 'Renamed', 'private', 'Server room B'],
      ['2023-11-15T03:00:00', 'Renamed', 'private', undefined],
    ]);
    const [zone, , , ...others] = texts(ics);
    const [zoneAfter, master, override, ...othersAfter] = texts(renamed);
    assert.equal(zoneAfter, zone);
    assert.deepEqual(othersAfter, others);
    assert.match(master!, /DESCRIPTION:Notes stay with the series/);
    assert.match(override!, /X-LIC-ERROR/);
    assert.match(override!, /SEQUENCE:3/);
  });

  it('deletes an occurrence Thunderbird had moved: its override goes, the other override stays', async () => {
    const ics = await fixtureIcs('thunderbird-overrides-by-sequence.ics');
    const uid = 'c2d8e6f4-1a3b-4c5d-8e7f-9a0b1c2d3e4f';
    const range = window('2025-05-04T00:00:00Z', '2025-05-15T00:00:00Z');
    const before = occurrences(ics, range);
    const target = before.find((o) => o.locations?.[0]?.name === 'Sala 2, piso 1')!;
    const deleted = editObject(
      ics,
      uid,
      { kind: 'delete-occurrence', recurrenceId: target.recurrenceId! },
      now,
    );
    assert.match(deleted, /EXDATE;TZID=Europe\/Lisbon:20250508T083000/);
    assert.doesNotMatch(deleted, /Sala 2/);
    assert.deepEqual(
      occurrences(deleted, range).map((o) => o.start),
      before.filter((o) => o !== target).map((o) => o.start),
    );
    assert.ok(deleted.includes('RECURRENCE-ID;TZID=Europe/Lisbon:20250507T083000'));
    assert.ok(deleted.includes('X-TZINFO:Europe/Lisbon[2025b]'), 'the client’s VTIMEZONE is kept');
  });

  it('moves a single event to whole days and back to a time, removing what null removes', () => {
    const single = vcalendar([
      'UID:s',
      'DTSTART;TZID=Europe/Berlin:20260601T090000',
      'DURATION:PT1H',
      'SUMMARY:Trip',
      'LOCATION:Station',
      'DESCRIPTION:Tickets',
      'ORGANIZER:mailto:ana@example.org',
    ]);
    const allDay = editObject(
      single,
      's',
      {
        kind: 'fields',
        fields: {
          timing: { allDay: true, startDate: '2026-06-01', endDate: '2026-06-03' },
          location: null,
          freeBusyStatus: 'free',
        },
      },
      now,
    );
    assert.match(allDay, /DTSTART;VALUE=DATE:20260601\r\nDTEND;VALUE=DATE:20260603/);
    assert.doesNotMatch(allDay, /DURATION|LOCATION/);
    const [trip] = occurrences(allDay);
    assert.deepEqual(
      [trip?.start, trip?.duration, trip?.showWithoutTime, trip?.freeBusyStatus, trip?.description],
      ['2026-06-01T00:00:00', 'P2D', true, 'free', 'Tickets'],
    );
    const timedAgain = editObject(
      allDay,
      's',
      {
        kind: 'fields',
        fields: {
          timing: {
            allDay: false,
            start: '2026-06-01T20:00:00',
            end: '2026-06-02T01:15:00',
            timeZone: 'Asia/Kolkata',
          },
        },
      },
      now,
    );
    const [late] = occurrences(timedAgain);
    assert.deepEqual(
      [late?.start, late?.timeZone, late?.duration],
      ['2026-06-01T20:00:00', 'Asia/Kolkata', 'PT5H15M'],
    );
    assert.match(timedAgain, /SEQUENCE:2/);
    assert.match(timedAgain, /ORGANIZER:mailto:ana@example\.org/);
  });
});

describe('answers to invitations', () => {
  const invitation = vcalendar(
    [
      'UID:weekly',
      'DTSTART;TZID=Europe/Berlin:20260323T090000',
      'DTEND;TZID=Europe/Berlin:20260323T100000',
      'RRULE:FREQ=WEEKLY;COUNT=3',
      'SUMMARY:Team',
      'SEQUENCE:1',
      'ORGANIZER:mailto:boss@example.org',
      'ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:MAILTO:ANA@EXAMPLE.ORG',
      'ATTENDEE;PARTSTAT=ACCEPTED:mailto:sam@example.org',
    ],
    [
      'UID:weekly',
      'RECURRENCE-ID;TZID=Europe/Berlin:20260406T090000',
      'DTSTART;TZID=Europe/Berlin:20260406T150000',
      'DTEND;TZID=Europe/Berlin:20260406T160000',
      'SUMMARY:Team (moved)',
      'SEQUENCE:2',
      'ORGANIZER:mailto:boss@example.org',
      'ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:ana@example.org',
    ],
  );
  const answers = (ics: string) =>
    occurrences(ics, year2026, ['ana@example.org']).map((o) => [o.start, o.responseStatus]);
  const respond = (
    ics: string,
    response: 'accepted' | 'declined' | 'tentative',
    recurrenceId?: string,
    comment?: string,
  ) =>
    editObject(
      ics,
      'weekly',
      {
        kind: 'respond',
        response,
        selfAddresses: ['ana@example.org'],
        ...(recurrenceId === undefined ? {} : { recurrenceId }),
        ...(comment === undefined ? {} : { comment }),
      },
      now,
    );

  it('one occurrence: an override carries the answer and the comment; the others still wait', () => {
    const declined = respond(invitation, 'declined', '2026-03-30T07:00:00Z', 'On holiday');
    assert.deepEqual(answers(declined), [
      ['2026-03-23T09:00:00', 'needs-action'],
      ['2026-03-30T09:00:00', 'declined'],
      ['2026-04-06T15:00:00', 'needs-action'],
    ]);
    const override = componentsOf(declined).find(
      (c) => String(c.getFirstPropertyValue('recurrence-id')) === '2026-03-30T09:00:00',
    )!;
    assert.equal(override.getFirstPropertyValue('comment'), 'On holiday');
    assert.equal(override.getFirstPropertyValue('sequence'), 1, 'an answer is no organizer change');
    assert.match(override.toString(), /ATTENDEE;PARTSTAT=ACCEPTED:mailto:sam@example\.org/);
  });

  it('the series: the master and the moved instance, RSVP cleared, SEQUENCE kept', () => {
    const accepted = respond(invitation, 'accepted');
    assert.deepEqual(answers(accepted), [
      ['2026-03-23T09:00:00', 'accepted'],
      ['2026-03-30T09:00:00', 'accepted'],
      ['2026-04-06T15:00:00', 'accepted'],
    ]);
    assert.doesNotMatch(accepted, /RSVP/);
    assert.doesNotMatch(accepted, /COMMENT/);
    assert.match(accepted, /SEQUENCE:1\r\n/);
    assert.match(accepted, /SEQUENCE:2\r\n/);
    rejectsWith(
      () =>
        editObject(
          invitation,
          'weekly',
          { kind: 'respond', response: 'accepted', selfAddresses: ['eve@example.org'] },
          now,
        ),
      'access_denied',
    );
  });
});
