/**
 * Guests of the events the user organises, as pure rules: the lists a client gives, a change
 * checked against the event as read, when notifyAttendees is required and when `false` cannot be
 * honoured, what the answer says; who sees them (full detail only, never the copy); and the
 * iCalendar side (ORGANIZER/ATTENDEE read and written, SCHEDULE-AGENT for servers that schedule).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GuestChanges } from '../../src/domain/eventChanges.ts';
import {
  concernsGuests,
  type GuestScheduling,
  guestsAnswer,
  guestsOf,
  noticeFor,
  parseAddresses,
  parseGuests,
  plannedGuests,
  requireNotifyChoice,
} from '../../src/domain/guests.ts';
import { expandIcs } from '../../src/domain/ical/expand.ts';
import { editObject, newEventObject } from '../../src/domain/ical/objectEdits.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { forCopy, visibleGuests } from '../../src/domain/visibility.ts';
import { AppError } from '../../src/errors.ts';
import { occurrence, ownFacts } from '../helpers/memoryCalendars.ts';
import { vcalendar } from '../helpers/radicaleCalendars.ts';

const refused = (run: () => unknown, code: string, field?: string) =>
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code, error.message);
    if (field !== undefined) assert.equal(error.details?.field, field);
    return true;
  });

const scheduling = (over: Partial<GuestScheduling> = {}): GuestScheduling => ({
  delivers: true,
  quiet: { update: true, delete: true },
  selfAddresses: ['me@example.org'],
  ...over,
});

const lunch: ProviderOccurrence = occurrence({
  start: '2026-03-26T12:00:00',
  timeZone: 'Europe/Berlin',
  title: 'Lunch',
  organizer: { email: 'me@example.org', self: true },
  attendees: [
    { email: 'Me@example.org', optional: false, response: 'accepted', self: true },
    { email: 'Bo@example.org', optional: false, response: 'accepted', self: false },
    { email: 'cy@example.org', optional: true, response: 'needs-action', self: false },
  ],
  facts: { ...ownFacts, organizer: 'self', attendees: true },
});
const fields = { add: 'addAttendees', remove: 'removeAttendees' };
const change = (add: string[], remove: string[] = []): GuestChanges => ({
  add: add.map((email) => ({ email, optional: false })),
  remove,
});

describe('guest lists from a client', () => {
  it('keeps valid addresses (trimmed), names and optional flags', () => {
    assert.deepEqual(
      parseGuests('attendees', [
        { email: ' ann@example.org ', name: ' Ann ' },
        { email: 'ben@example.org', optional: true, name: '' },
      ]),
      [
        { email: 'ann@example.org', name: 'Ann', optional: false },
        { email: 'ben@example.org', optional: true },
      ],
    );
    assert.deepEqual(parseAddresses('removeAttendees', ['cy@example.org']), ['cy@example.org']);
  });

  it('refuses what is not an address, an address twice (ignoring case), long names and long lists', () => {
    refused(() => parseGuests('attendees', [{ email: 'ann' }]), 'invalid_request', 'attendees');
    refused(() => parseGuests('attendees', [{ email: 'a b@example.org' }]), 'invalid_request', 'attendees');
    refused(
      () => parseGuests('attendees', [{ email: 'ann@example.org' }, { email: 'ANN@example.org' }]),
      'invalid_request',
      'attendees',
    );
    refused(
      () => parseGuests('attendees', [{ email: 'ann@example.org', name: 'n'.repeat(257) }]),
      'invalid_request',
      'attendees',
    );
    assert.equal(parseGuests('attendees', [{ email: 'a@example.org', name: 'n'.repeat(256) }]).length, 1);
    const many = Array.from({ length: 101 }, (_, i) => ({ email: `g${i}@example.org` }));
    refused(() => parseGuests('attendees', many), 'invalid_request', 'attendees');
    assert.equal(parseGuests('attendees', many.slice(0, 100)).length, 100);
    refused(() => parseAddresses('removeAttendees', ['x@example.org', 'X@example.org']), 'invalid_request');
    refused(() => parseAddresses('removeAttendees', ['@example.org']), 'invalid_request', 'removeAttendees');
  });
});

describe('a change of guests, against the event as read', () => {
  it('gives the guests after it and the removed as the event spells them', () => {
    assert.deepEqual(guestsOf(lunch), ['Bo@example.org', 'cy@example.org']);
    assert.deepEqual(
      plannedGuests(lunch, change(['dee@example.org'], ['bo@example.org']), scheduling(), fields),
      {
        guests: ['cy@example.org', 'dee@example.org'],
        removed: ['Bo@example.org'],
      },
    );
    assert.deepEqual(plannedGuests(undefined, change(['ann@example.org']), scheduling(), fields), {
      guests: ['ann@example.org'],
      removed: [],
    });
  });

  it("refuses the user's own address, a guest twice, a stranger to remove, and more than 100", () => {
    refused(
      () => plannedGuests(lunch, change(['ME@example.org']), scheduling(), fields),
      'invalid_request',
      'addAttendees',
    );
    refused(
      () => plannedGuests(undefined, change(['me@example.org']), scheduling(), fields),
      'invalid_request',
      'addAttendees',
    );
    refused(
      () => plannedGuests(lunch, change(['CY@example.org']), scheduling(), fields),
      'invalid_request',
      'addAttendees',
    );
    refused(
      () => plannedGuests(lunch, change([], ['zed@example.org']), scheduling(), fields),
      'invalid_request',
      'removeAttendees',
    );
    const ninetyEight = Array.from({ length: 98 }, (_, i) => `g${i}@example.org`);
    assert.equal(plannedGuests(lunch, change(ninetyEight), scheduling(), fields).guests.length, 100);
    refused(
      () => plannedGuests(lunch, change([...ninetyEight, 'one-more@example.org']), scheduling(), fields),
      'invalid_request',
      'addAttendees',
    );
  });

  it('cannot invite where the calendar does not say who the user is', () => {
    refused(
      () => plannedGuests(undefined, change(['ann@example.org']), scheduling({ selfAddresses: [] }), fields),
      'guests_or_scheduling',
    );
    // Removing needs no organizer to name.
    assert.deepEqual(
      plannedGuests(lunch, change([], ['cy@example.org']), scheduling({ selfAddresses: [] }), fields).guests,
      ['Bo@example.org'],
    );
  });
});

describe('telling the guests', () => {
  it('concerns a write when the event has guests, or the change adds or removes any', () => {
    const alone = occurrence({ start: '2026-03-26T12:00:00' });
    assert.equal(concernsGuests(lunch, undefined), true);
    assert.equal(concernsGuests(alone, undefined), false);
    assert.equal(concernsGuests(alone, change([])), false);
    assert.equal(concernsGuests(alone, change(['a@example.org'])), true);
    assert.equal(concernsGuests(alone, change([], ['a@example.org'])), true);
    // A provider that says there are guests without listing them.
    assert.equal(concernsGuests({ ...alone, facts: { ...ownFacts, attendees: true } }, undefined), true);
  });

  it('has no default: a missing choice is refused naming notifyAttendees', () => {
    refused(() => requireNotifyChoice(undefined), 'invalid_request', 'notifyAttendees');
    assert.equal(requireNotifyChoice(false), false);
  });

  it('keeps a notice from the guests only where the calendar can', () => {
    assert.equal(noticeFor('update', false, scheduling()), 'quiet');
    assert.equal(noticeFor('delete', true, scheduling()), 'send');
    const graph = scheduling({ quiet: { update: false, delete: false } });
    refused(() => noticeFor('update', false, graph), 'invalid_request', 'notifyAttendees');
    refused(() => noticeFor('delete', false, graph), 'invalid_request', 'notifyAttendees');
    assert.equal(noticeFor('update', true, graph), 'send');
    const schedulingServer = scheduling({ quiet: { update: true, delete: false } });
    assert.equal(noticeFor('update', false, schedulingServer), 'quiet');
    refused(() => noticeFor('delete', false, schedulingServer), 'invalid_request', 'notifyAttendees');
    // Nobody is told anything by a calendar that does not deliver: false is simply true to it.
    const silent = scheduling({ delivers: false, quiet: { update: false, delete: false } });
    assert.equal(noticeFor('delete', false, silent), 'quiet');
  });

  it('says the guests were notified only when the calendar delivered and the notice was sent', () => {
    assert.deepEqual(guestsAnswer(['a@example.org'], true, 'send'), {
      notified: true,
      emails: ['a@example.org'],
    });
    assert.deepEqual(guestsAnswer(['a@example.org'], true, 'quiet'), {
      notified: false,
      emails: ['a@example.org'],
    });
    assert.deepEqual(guestsAnswer([], false, 'send'), { notified: false, emails: [] });
  });
});

describe('who sees the guests', () => {
  it('full detail only, and not for a private event without its details', () => {
    assert.deepEqual(visibleGuests(lunch, 'full', false), {
      organizer: lunch.organizer,
      attendees: lunch.attendees,
    });
    assert.equal(visibleGuests(lunch, 'titles', true), undefined);
    assert.equal(visibleGuests(lunch, 'busy', true), undefined);
    const secret = { ...lunch, privacy: 'private' as const };
    assert.equal(visibleGuests(secret, 'full', false), undefined);
    assert.ok(visibleGuests(secret, 'full', true));
  });

  it('never the synced copy, at any level', () => {
    for (const level of ['full', 'titles', 'busy'] as const) {
      const kept = forCopy(lunch, { level, privateDetails: true });
      assert.equal('organizer' in kept, false, level);
      assert.equal('attendees' in kept, false, level);
      assert.deepEqual(kept.facts, lunch.facts, level);
    }
  });
});

describe('guests in iCalendar', () => {
  const window = {
    start: Temporal.Instant.from('2026-01-01T00:00:00Z'),
    end: Temporal.Instant.from('2027-01-01T00:00:00Z'),
  };
  const now = Temporal.Instant.from('2026-03-01T12:00:00Z');
  const unfolded = (ics: string) => ics.replace(/\r\n /g, '');

  it('reads ORGANIZER and ATTENDEEs: names, roles, answers, the user; other kinds of address left out', () => {
    const ics = vcalendar([
      'UID:meet',
      'DTSTART:20260310T090000Z',
      'DTEND:20260310T100000Z',
      'SUMMARY:Meet',
      'ORGANIZER;CN=Boss:mailto:boss@example.org',
      'ATTENDEE;CN=Ana;PARTSTAT=TENTATIVE:mailto:Ana@Example.org',
      'ATTENDEE;ROLE=OPT-PARTICIPANT;PARTSTAT=DECLINED:mailto:bo@example.org',
      'ATTENDEE;PARTSTAT=DELEGATED:mailto:cy@example.org',
      'ATTENDEE:urn:uuid:room-1',
    ]);
    const [meet] = expandIcs(ics, { window, selfAddresses: ['ana@example.org'] }).occurrences;
    assert.deepEqual(meet?.organizer, { email: 'boss@example.org', name: 'Boss', self: false });
    assert.deepEqual(meet?.attendees, [
      { email: 'Ana@Example.org', name: 'Ana', optional: false, response: 'tentative', self: true },
      { email: 'bo@example.org', optional: true, response: 'declined', self: false },
      { email: 'cy@example.org', optional: false, response: 'needs-action', self: false },
    ]);
    assert.equal(meet?.facts.organizer, 'other');
  });

  it('shares the people of a series among its occurrences', () => {
    const ics = vcalendar([
      'UID:weekly',
      'DTSTART:20260302T090000Z',
      'DTEND:20260302T093000Z',
      'RRULE:FREQ=WEEKLY;COUNT=3',
      'ORGANIZER:mailto:ana@example.org',
      'ATTENDEE:mailto:bo@example.org',
    ]);
    const occurrences = expandIcs(ics, { window, selfAddresses: ['ana@example.org'] }).occurrences;
    assert.equal(occurrences.length, 3);
    assert.equal(occurrences[0]?.attendees, occurrences[2]?.attendees);
    assert.deepEqual(occurrences[1]?.organizer, { email: 'ana@example.org', self: true });
  });

  it('writes a new event with the user as ORGANIZER and the guests asking for an answer', () => {
    const ics = newEventObject(
      {
        title: 'Kick-off',
        timing: {
          allDay: false,
          start: '2026-03-10T09:00:00',
          end: '2026-03-10T10:00:00',
          timeZone: 'Etc/UTC',
        },
        guests: { add: [{ email: 'bo@example.org', name: 'Bo "the" Boss', optional: true }], remove: [] },
      },
      'uid-1',
      now,
      { organizer: 'ana@example.org' },
    );
    const text = unfolded(ics);
    assert.match(text, /\r\nORGANIZER:mailto:ana@example\.org\r\n/);
    assert.match(
      text,
      /\r\nATTENDEE;CN=Bo \^'the\^' Boss;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bo@example\.org\r\n/,
    );
    const [read] = expandIcs(ics, { window, selfAddresses: ['ana@example.org'] }).occurrences;
    assert.deepEqual([read?.facts.organizer, read?.facts.attendees], ['self', true]);
    assert.equal(read?.attendees?.[0]?.name, 'Bo "the" Boss', 'RFC 6868 both ways');
  });

  it('adds, removes and marks SCHEDULE-AGENT on every part it edits; keeps what it does not touch', () => {
    const ics = vcalendar([
      'UID:weekly',
      'DTSTART:20260302T090000Z',
      'DTEND:20260302T093000Z',
      'RRULE:FREQ=WEEKLY;COUNT=3',
      'SUMMARY:Weekly',
      'ATTENDEE;PARTSTAT=ACCEPTED;X-KEEP=1:mailto:bo@example.org',
      'ATTENDEE:mailto:cy@example.org',
    ]);
    const quiet = unfolded(
      editObject(
        ics,
        'weekly',
        {
          kind: 'series',
          fields: {
            guests: { add: [{ email: 'dee@example.org', optional: false }], remove: ['CY@example.org'] },
          },
          scheduling: { organizer: 'ana@example.org', agent: 'CLIENT' },
        },
        now,
      ),
    );
    assert.match(quiet, /ATTENDEE;PARTSTAT=ACCEPTED;X-KEEP=1;SCHEDULE-AGENT=CLIENT:mailto:bo@example\.org/);
    assert.match(
      quiet,
      /ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;SCHEDULE-AGENT=CLIENT:mailto:dee@example\.org/,
    );
    assert.doesNotMatch(quiet, /cy@example\.org/);
    assert.match(quiet, /ORGANIZER:mailto:ana@example\.org/, 'an event with guests names its organizer');
    // Told this time: the server delivers again.
    const told = unfolded(
      editObject(
        quiet,
        'weekly',
        { kind: 'fields', fields: { title: 'Weekly!' }, scheduling: { agent: 'SERVER' } },
        now,
      ),
    );
    assert.doesNotMatch(told, /SCHEDULE-AGENT/);
    assert.match(told, /X-KEEP=1/);
    // Without a say (a server that does not schedule), the parameters stay as they are.
    const untouched = unfolded(editObject(quiet, 'weekly', { kind: 'fields', fields: { title: 'W' } }, now));
    assert.equal((untouched.match(/SCHEDULE-AGENT=CLIENT/g) ?? []).length, 2);
  });
});
