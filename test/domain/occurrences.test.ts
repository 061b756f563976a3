/** The core's last step: provider occurrences → the Events a client may see. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import { editRights } from '../../src/domain/editRights.ts';
import {
  type CalendarView,
  itemIds,
  overlaps,
  placedEvent,
  placeOccurrence,
  toEvent,
  toEvents,
} from '../../src/domain/occurrences.ts';
import type { EditFacts, ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { AppError } from '../../src/errors.ts';
import { assertValidEvent } from '../helpers/eventSchema.ts';

const ids = createEventIds(randomBytes(32));
const instant = (s: string) => Temporal.Instant.from(s);
const window = (start: string, end: string) => ({ start: instant(start), end: instant(end) });

const facts: EditFacts = {
  recurring: false,
  organizer: 'none',
  attendees: false,
  conference: false,
  managedCopy: false,
  version: '"etag-1"',
  userIsAttendee: false,
};

const occurrence = (over: Partial<ProviderOccurrence> = {}): ProviderOccurrence => ({
  providerEventId: 'uid-1',
  start: '2026-03-08T01:30:00',
  timeZone: 'America/New_York',
  duration: 'PT1H',
  showWithoutTime: false,
  title: 'Planning',
  description: 'Quarterly planning notes',
  locations: [{ name: 'Room 4' }],
  virtualLocations: [{ uri: 'https://meet.example/abc' }],
  keywords: ['work'],
  status: 'confirmed',
  freeBusyStatus: 'busy',
  privacy: 'public',
  alerts: [{ offset: '-PT10M', action: 'display' }],
  facts,
  ...over,
});

const view = (over: Partial<CalendarView> = {}): CalendarView => ({
  calendarId: 'cal_A',
  access: 'owner',
  detailLevel: 'full',
  privateDetails: false,
  ...over,
});

describe('placing occurrences in time', () => {
  it('places an instant from its known start as from its local time: days and up across DST too', () => {
    const sealed = { eventId: 'evt_x', occurrenceId: 'occ_x' };
    for (const [start, duration] of [
      ['2026-03-07T09:00:00', 'P1D'],
      ['2026-03-06T23:30:00', 'P2DT1H'],
      ['2026-03-08T01:30:00', 'PT1H'],
      ['2026-03-08T09:00:00', 'PT0S'],
      ['2026-10-31T10:00:00', 'P1W'],
      ['2026-02-20T09:00:00', 'P1M'],
    ] as const) {
      const o = occurrence({ start, duration });
      const placed = placedEvent(o, view(), sealed);
      const known = placedEvent(o, view(), sealed, placed.startMs);
      assert.deepEqual(known, placed, `${start} ${duration}`);
    }
    // The known start is the one used, and its day is a day in the zone: 23 hours on the day
    // clocks go forward, 24 the day after.
    const o = occurrence({ start: '2026-03-07T09:00:00', duration: 'P1D' });
    const placed = placedEvent(o, view(), sealed);
    assert.equal(placed.endNs - placed.startNs, 23n * 3_600_000_000_000n);
    const moved = placedEvent(o, view(), sealed, placed.startMs + 86_400_000);
    assert.equal(moved.event.start, '2026-03-08T10:00:00-04:00');
    assert.equal(moved.endNs - moved.startNs, 24n * 3_600_000_000_000n);
  });

  it('adds durations in the zone: an hour across the spring-forward gap ends at 03:30 EDT', () => {
    const span = placeOccurrence(occurrence(), undefined);
    assert.equal(span.start.toString(), '2026-03-08T06:30:00Z');
    assert.equal(span.end.toString(), '2026-03-08T07:30:00Z');
  });

  it('makes an all-day P1D span 23 hours on the day clocks spring forward', () => {
    const allDay = occurrence({
      start: '2026-03-29T00:00:00',
      timeZone: undefined,
      duration: 'P1D',
      showWithoutTime: true,
    });
    const span = placeOccurrence(allDay, 'Europe/Berlin');
    assert.equal(span.start.toString(), '2026-03-28T23:00:00Z');
    assert.equal(span.end.toString(), '2026-03-29T22:00:00Z');
  });

  it('refuses to place a floating time without a zone', () => {
    const floating = occurrence({ timeZone: undefined });
    assert.throws(
      () => placeOccurrence(floating, undefined),
      (e: unknown) => e instanceof AppError && e.code === 'time_zone_required',
    );
  });

  it('counts overlap with [start, end), and zero-length occurrences at the start only', () => {
    const w = window('2026-01-01T10:00:00Z', '2026-01-01T11:00:00Z');
    const span = (a: string, b: string) => ({ start: instant(a), end: instant(b) });
    assert.equal(
      overlaps(span('2026-01-01T09:00:00Z', '2026-01-01T10:00:00Z'), w),
      false,
      'ends at window start',
    );
    assert.equal(overlaps(span('2026-01-01T09:00:00Z', '2026-01-01T10:00:01Z'), w), true);
    assert.equal(
      overlaps(span('2026-01-01T11:00:00Z', '2026-01-01T12:00:00Z'), w),
      false,
      'starts at window end',
    );
    assert.equal(
      overlaps(span('2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z'), w),
      true,
      'zero-length at start',
    );
    assert.equal(
      overlaps(span('2026-01-01T11:00:00Z', '2026-01-01T11:00:00Z'), w),
      false,
      'zero-length at end',
    );
  });
});

describe('events as the client sees them', () => {
  const w = window('2026-03-08T00:00:00Z', '2026-03-09T00:00:00Z');

  it('shows every field at full detail, with stable opaque ids', () => {
    const [placed] = toEvents([occurrence()], view(), ids, w);
    assert.ok(placed);
    assertValidEvent(placed.event);
    assert.match(placed.event.eventId, /^evt_[\w-]{22,}$/);
    assert.match(placed.event.occurrenceId, /^occ_[\w-]{22,}$/);
    assert.equal(placed.event.eventId, toEvents([occurrence()], view(), ids, w)[0]!.event.eventId);
    assert.doesNotMatch(JSON.stringify(placed.event), /uid-1/, 'provider ids never leak');
    assert.equal(placed.event.description, 'Quarterly planning notes');
    assert.equal(placed.event.canEdit, true);
    assert.equal(placed.event.editBlockedReason, undefined);
  });

  it('gives each occurrence of a series its own occurrenceId and one shared eventId', () => {
    const a = occurrence({ recurrenceId: '2026-03-08T06:30:00Z', facts: { ...facts, recurring: true } });
    const b = occurrence({
      recurrenceId: '2026-03-08T07:30:00Z',
      start: '2026-03-08T03:30:00',
      facts: { ...facts, recurring: true },
    });
    const [x, y] = toEvents([b, a], view(), ids, w);
    assert.equal(x!.event.eventId, y!.event.eventId);
    assert.notEqual(x!.event.occurrenceId, y!.event.occurrenceId);
    assert.equal(x!.event.start, '2026-03-08T01:30:00-05:00', 'ordered by start');
  });

  it('shows titles, locations and times only at the titles level', () => {
    const [placed] = toEvents([occurrence()], view({ detailLevel: 'titles' }), ids, w);
    assertValidEvent(placed!.event);
    assert.deepEqual(Object.keys(placed!.event).sort(), [
      'calendarId',
      'canEdit',
      'canRespond',
      'duration',
      'eventId',
      'freeBusyStatus',
      'locations',
      'occurrenceId',
      'showWithoutTime',
      'start',
      'status',
      'timeZone',
      'title',
    ]);
  });

  it('shows a placeholder on busy-only calendars, and blocks editing', () => {
    const free = occurrence({ freeBusyStatus: 'free', providerEventId: 'uid-2' });
    const events = toEvents([occurrence(), free], view({ detailLevel: 'busy' }), ids, w).map((p) => p.event);
    for (const e of events) assertValidEvent(e);
    assert.deepEqual(
      // Same start: their order follows the (random-keyed) occurrence ids.
      events.map((e) => [e.title, e.canEdit, e.editBlockedReason, e.description]).sort(),
      [
        ['Busy', false, 'access_denied', undefined],
        ['Free', false, 'access_denied', undefined],
      ],
    );
  });

  it('masks private and secret events unless the grant includes their details', () => {
    const secret = occurrence({ privacy: 'secret' });
    assert.equal(toEvents([secret], view(), ids, w)[0]!.event.title, 'Busy');
    assert.equal(toEvents([occurrence({ privacy: 'private' })], view(), ids, w)[0]!.event.title, 'Busy');
    assert.equal(toEvents([secret], view({ privateDetails: true }), ids, w)[0]!.event.title, 'Planning');
    assert.equal(
      toEvents([secret], view({ privateDetails: true, detailLevel: 'titles' }), ids, w)[0]!.event.description,
      undefined,
    );
  });

  it('drops occurrences outside the window and places floating ones with the calendar zone', () => {
    const floating = occurrence({ start: '2026-03-08T23:30:00', timeZone: undefined, providerEventId: 'f' });
    const inTokyo = toEvents([floating], view({ placementZone: 'Asia/Tokyo' }), ids, w);
    assert.equal(inTokyo.length, 1, '23:30 Tokyo is 14:30Z, inside');
    assert.equal(inTokyo[0]!.event.timeZone, undefined, 'still floating');
    assert.equal(inTokyo[0]!.event.start, '2026-03-08T23:30:00+09:00', 'shown where it was placed');
    const inLosAngeles = toEvents([floating], view({ placementZone: 'America/Los_Angeles' }), ids, w);
    assert.equal(inLosAngeles.length, 0, '23:30 PDT is 06:30Z the next day, outside');
  });
});

describe('times as the client sees them', () => {
  // Berlin moves from +01:00 to +02:00 at 01:00Z on 29 March 2026.
  const weekend = window('2026-03-28T00:00:00Z', '2026-03-31T00:00:00Z');
  const utc = (start: string, providerEventId: string) =>
    occurrence({ start, timeZone: 'Etc/UTC', providerEventId });
  const starts = (v: CalendarView, ...occurrences: ProviderOccurrence[]) =>
    toEvents(occurrences, v, ids, weekend).map((p) => p.event.start);

  it('shows a UTC event with the offsets of the zone asked for, across its DST change', () => {
    const series = [utc('2026-03-28T10:00:00', 'a'), utc('2026-03-30T10:00:00', 'b')];
    assert.deepEqual(starts(view({ shownZone: 'Europe/Berlin' }), ...series), [
      '2026-03-28T11:00:00+01:00',
      '2026-03-30T12:00:00+02:00',
    ]);
    const [placed] = toEvents(series, view({ shownZone: 'Europe/Berlin' }), ids, weekend);
    assert.equal(placed!.event.timeZone, 'Etc/UTC', 'the zone the event is kept in is still said');
    assertValidEvent(placed!.event);
  });

  it("shows the event's own offsets when no zone was asked for", () => {
    assert.deepEqual(starts(view(), utc('2026-03-28T10:00:00', 'a')), ['2026-03-28T10:00:00+00:00']);
    const berlin = occurrence({ start: '2026-03-30T09:00:00', timeZone: 'Europe/Berlin' });
    assert.deepEqual(starts(view(), berlin), ['2026-03-30T09:00:00+02:00']);
    assert.deepEqual(starts(view({ shownZone: 'America/New_York' }), berlin), ['2026-03-30T03:00:00-04:00']);
  });

  it('shows an all-day event as its date, whatever zone was asked for', () => {
    const allDay = occurrence({
      start: '2026-03-29T00:00:00',
      timeZone: undefined,
      duration: 'P1D',
      showWithoutTime: true,
    });
    const [placed] = toEvents(
      [allDay],
      view({ placementZone: 'Europe/Berlin', shownZone: 'Asia/Tokyo' }),
      ids,
      weekend,
    );
    assert.equal(placed!.event.start, '2026-03-29');
    assertValidEvent(placed!.event);
  });

  it("keeps a floating time's local time in a write's answer when no zone places it", () => {
    const floating = occurrence({ start: '2026-03-30T09:00:00', timeZone: undefined });
    assert.equal(toEvent(floating, view(), ids).start, '2026-03-30T09:00:00');
    assert.equal(
      toEvent(floating, view({ placementZone: 'Europe/Berlin' }), ids).start,
      '2026-03-30T09:00:00+02:00',
    );
  });
});

describe('edit rights from provider facts', () => {
  const rights = (
    over: Partial<EditFacts>,
    access: 'owner' | 'writer' | 'reader' | 'freeBusy' = 'writer',
    masked = false,
  ) => editRights({ access, masked, status: 'confirmed', facts: { ...facts, ...over } });

  it('names the first reason editing is unavailable', () => {
    assert.equal(rights({}, 'reader').editBlockedReason, 'calendar_read_only');
    assert.equal(rights({}, 'freeBusy').editBlockedReason, 'calendar_read_only');
    assert.equal(rights({}, 'writer', true).editBlockedReason, 'access_denied');
    assert.equal(rights({ managedCopy: true }).editBlockedReason, 'managed_copy');
    assert.equal(rights({ organizer: 'other' }).editBlockedReason, 'not_organizer');
    assert.equal(rights({ organizer: 'unknown', attendees: true }).editBlockedReason, 'guests_or_scheduling');
    assert.equal(rights({ organizer: 'none', attendees: true }).editBlockedReason, 'guests_or_scheduling');
    assert.equal(rights({ organizer: 'other', attendees: true }).editBlockedReason, 'not_organizer');
    assert.equal(rights({ conference: true }).editBlockedReason, 'conference');
    assert.equal(rights({ version: undefined }).editBlockedReason, 'version_unavailable');
    assert.equal(rights({ organizer: 'unknown' }).editBlockedReason, 'unknown');
    assert.deepEqual(rights({ organizer: 'self', recurring: true }), { canEdit: true, canRespond: false });
    // Guests of the user's own event are the user's to tell: update_event's notifyAttendees decides.
    assert.deepEqual(rights({ organizer: 'self', attendees: true }), { canEdit: true, canRespond: false });
    assert.equal(
      rights({ organizer: 'self', attendees: true, conference: true }).editBlockedReason,
      'conference',
    );
  });

  it('lets an invited attendee respond on a writable calendar only', () => {
    const invited = { organizer: 'other' as const, userIsAttendee: true, attendees: true };
    assert.equal(rights(invited).canRespond, true);
    assert.equal(rights(invited, 'reader').canRespond, false);
    assert.equal(rights(invited, 'writer', true).canRespond, false);
    assert.equal(rights({ organizer: 'self', userIsAttendee: true }).canRespond, false);
    assert.equal(
      editRights({ access: 'writer', masked: false, status: 'cancelled', facts: { ...facts, ...invited } })
        .canRespond,
      false,
    );
  });
});

describe('the ids of one item', () => {
  it('seals the event id of a series once, and again for another event or calendar', () => {
    const sealed: string[] = [];
    const counted = {
      eventId: (calendarId: string, providerEventId: string) => {
        sealed.push(`${calendarId} ${providerEventId}`);
        return ids.eventId(calendarId, providerEventId);
      },
      occurrenceId: ids.occurrenceId,
    };
    const item = itemIds(counted);
    const asked = [
      ['cal-1', 'series'],
      ['cal-1', 'series'],
      ['cal-1', 'series'],
      ['cal-1', 'other'],
      ['cal-2', 'other'],
    ] as const;
    const answered = asked.map(([calendarId, event]) => item.eventId(calendarId, event));
    assert.deepEqual(
      answered,
      asked.map(([calendarId, event]) => ids.eventId(calendarId, event)),
    );
    assert.deepEqual(sealed, ['cal-1 series', 'cal-1 other', 'cal-2 other']);
    assert.equal(
      item.occurrenceId('cal-1', 'series', '20260301T090000Z'),
      ids.occurrenceId('cal-1', 'series', '20260301T090000Z'),
    );
  });
});
