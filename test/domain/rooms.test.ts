/** Rooms in the pure core: what fits a meeting, who can make a slot, a room written in iCalendar. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ICAL from 'ical.js';
import { applyGuests } from '../../src/domain/ical/guestLines.ts';
import { meetingTimes, parseWorkingHours } from '../../src/domain/meetingTimes.ts';
import { fittingRooms, parseCapacity, parseFeatures, type Room, roomNeeds } from '../../src/domain/rooms.ts';
import { bestSlots, freeRoom, slotPeople } from '../../src/domain/slotPeople.ts';
import type { AppError } from '../../src/errors.ts';
import { googleRooms } from '../../src/providers/google/rooms.ts';

const at = (hhmm: string) => Temporal.Instant.from(`2026-03-02T${hhmm}:00Z`);
const span = (from: string, to: string) => ({ start: at(from), end: at(to) });
const busy = (from: string, to: string) => ({
  startNs: at(from).epochNanoseconds,
  endNs: at(to).epochNanoseconds,
});

describe('rooms that fit', () => {
  const rooms: Room[] = [
    { email: 'big@x.example', name: 'Big', capacity: 20, features: ['video'] },
    { email: 'open@x.example', name: 'Open', features: ['video'] },
    { email: 'small@x.example', name: 'Small', capacity: 4, features: ['video', 'whiteboard'] },
  ];

  it('keeps those with the seats and every feature, smallest first; unknown capacity only when none is asked', () => {
    assert.deepEqual(
      fittingRooms(rooms, roomNeeds({ features: ['Video'] })).map((r) => r.name),
      ['Small', 'Big', 'Open'],
    );
    assert.deepEqual(
      fittingRooms(rooms, roomNeeds({ minCapacity: 4 })).map((r) => r.name),
      ['Small', 'Big'],
    );
    assert.deepEqual(
      fittingRooms(rooms, roomNeeds({ minCapacity: 2, features: ['whiteboard'] })).map((r) => r.name),
      ['Small'],
    );
  });

  it('reads features and capacities as people type them, refusing what is not', () => {
    assert.deepEqual(parseFeatures(' Video,  white  board,,video', 'f'), ['video', 'white board']);
    assert.equal(parseCapacity('', 'c'), undefined);
    assert.equal(parseCapacity('12', 'c'), 12);
    for (const bad of ['0', '2.5', 'ten', '10001'])
      assert.throws(
        () => parseCapacity(bad, 'c'),
        (e: AppError) => e.code === 'invalid_request',
      );
    assert.throws(
      () =>
        parseFeatures(
          Array.from({ length: 11 }, (_, i) => `f${i}`),
          'f',
        ),
      (e: AppError) => e.code === 'invalid_request',
    );
  });

  it("reads Google's generated room names: capacity and features, else none", () => {
    const entry = (id: string, summary: string) => ({ id, summary, accessRole: 'freeBusyReader' as const });
    assert.deepEqual(
      googleRooms([
        entry('a@resource.calendar.google.com', 'HQ-1-Atlas (6) [Video, Whiteboard]'),
        entry('b@resource.calendar.google.com', 'Boardroom'),
        entry('ana@acme.example', 'Ana'),
      ]),
      [
        {
          email: 'a@resource.calendar.google.com',
          name: 'HQ-1-Atlas',
          capacity: 6,
          features: ['Video', 'Whiteboard'],
        },
        { email: 'b@resource.calendar.google.com', name: 'Boardroom', features: [] },
      ],
    );
  });
});

describe('who can make a slot', () => {
  const people = [
    { email: 'ben@x.example', busy: [busy('09:00', '10:00')] },
    { email: 'cleo@x.example', busy: [busy('10:30', '11:00')] },
    { email: 'zed@x.example' },
  ];

  it('says free, busy and unknown per attendee', () => {
    assert.deepEqual(slotPeople(people, span('09:30', '10:30')), {
      free: ['cleo@x.example'],
      busy: ['ben@x.example'],
      unknown: ['zed@x.example'],
      outsideHours: [],
    });
  });

  it('names the first room known to be free, never one nobody could tell about', () => {
    const rooms = [
      { email: 'unknown@x.example' },
      { email: 'a@x.example', busy: [busy('09:00', '10:00')] },
      { email: 'b@x.example', busy: [] },
    ];
    assert.equal(freeRoom(rooms, span('09:00', '10:00')), 'b@x.example');
    assert.equal(freeRoom(rooms, span('10:00', '11:00')), 'a@x.example');
    assert.equal(freeRoom(rooms.slice(0, 1), span('10:00', '11:00')), undefined);
  });

  it('best effort keeps the slots with fewest busy, in time order', () => {
    const candidates = [span('09:00', '10:00'), span('10:00', '11:00'), span('11:00', '12:00')];
    assert.deepEqual(bestSlots(candidates, people, 2), [candidates[0], candidates[2]]);
  });

  it('lets meetingTimes skip a slot that a further condition refuses, and go on', () => {
    const week = parseWorkingHours([{ days: ['monday'], start: '09:00', end: '12:00' }], 'workingHours');
    const slots = meetingTimes([], {
      window: { start: at('00:00'), end: at('23:00') },
      timeZone: 'UTC',
      week,
      durationMinutes: 60,
      now: at('00:00'),
      noticeMinutes: 0,
      bufferMinutes: 0,
      stepMinutes: 60,
      limit: 5,
      accept: (slot) => !slot.start.equals(at('10:00')),
    });
    assert.deepEqual(slots, [span('09:00', '10:00'), span('11:00', '12:00')]);
  });
});

describe('a room in iCalendar', () => {
  it('is an ATTENDEE with CUTYPE=ROOM (RFC 5545 §3.2.3)', () => {
    const event = new ICAL.Component('vevent');
    applyGuests(
      event,
      { add: [{ email: 'atlas@x.example', name: 'Atlas', optional: false, room: true }], remove: [] },
      { organizer: 'ana@x.example' },
    );
    const attendee = event.getFirstProperty('attendee')!;
    assert.equal(attendee.getParameter('cutype'), 'ROOM');
    assert.equal(attendee.getFirstValue(), 'mailto:atlas@x.example');
  });
});
