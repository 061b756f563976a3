import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Event } from '../../src/domain/event.ts';
import { changedSince, requireSeen } from '../../src/domain/seenValues.ts';
import { isAppError } from '../../src/errors.ts';

const event: Event = {
  eventId: 'evt_1',
  calendarId: 'cal_1',
  occurrenceId: 'occ_1',
  title: 'Planning',
  locations: [{ name: 'Room 1' }],
  start: '2026-03-24T10:00:00+01:00',
  timeZone: 'Europe/Berlin',
  duration: 'PT1H',
  showWithoutTime: false,
  status: 'confirmed',
  freeBusyStatus: 'busy',
  canRespond: false,
  canEdit: true,
};

const fieldOf = (run: () => void): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    assert.ok(isAppError(error) && error.code === 'invalid_request');
    return error.details?.field as string;
  }
};

describe('seen values', () => {
  it('asks for what each change depends on, and for the title and start of a deletion', () => {
    assert.equal(
      fieldOf(() => requireSeen(undefined, ['title'])),
      'seen.title',
    );
    assert.equal(
      fieldOf(() => requireSeen({ title: 'Planning' }, ['title', 'location'])),
      'seen.locations',
    );
    assert.equal(
      fieldOf(() => requireSeen({ start: event.start }, ['timing'])),
      'seen.duration',
    );
    assert.equal(
      fieldOf(() => requireSeen({ title: 'Planning' }, ['delete'])),
      'seen.start',
    );
    assert.equal(
      fieldOf(() => requireSeen({ description: null }, ['description'])),
      undefined,
      'null: had none',
    );
    assert.equal(
      fieldOf(() => requireSeen({ privacy: null, freeBusyStatus: 'busy' }, ['privacy', 'freeBusyStatus'])),
      undefined,
    );
  });

  it('names the fields the event no longer shows; null matches a field the event lacks', () => {
    assert.deepEqual(
      changedSince(event, { title: 'Planning', description: null, privacy: null, timeZone: 'Europe/Berlin' }),
      [],
    );
    assert.deepEqual(changedSince(event, { title: 'Old title', description: 'notes' }), [
      'title',
      'description',
    ]);
    assert.deepEqual(changedSince(event, { start: '2026-03-24T11:00:00+01:00', duration: 'PT1H' }), [
      'start',
    ]);
    assert.deepEqual(
      changedSince(event, { start: '2026-03-24T09:00:00Z' }),
      [],
      'the same moment read with the offset of another zone',
    );
    // A start read before times carried offsets: the local time in the event's own zone.
    assert.deepEqual(changedSince(event, { start: '2026-03-24T10:00:00' }), []);
    assert.deepEqual(changedSince(event, { start: '2026-03-24T10:00' }), []);
    assert.deepEqual(changedSince(event, { start: '2026-03-24T09:00:00' }), ['start']);
    assert.deepEqual(
      changedSince(event, { timeZone: null }),
      ['timeZone'],
      'a floating time is another time',
    );
    assert.deepEqual(changedSince(event, { locations: [{ name: 'Room 1' }] }), []);
    assert.deepEqual(changedSince(event, { locations: [{ name: 'Room 2' }] }), ['locations']);
    assert.deepEqual(changedSince(event, { locations: [{ name: 'Room 1', description: 'East wing' }] }), [
      'locations',
    ]);
    assert.deepEqual(changedSince(event, { locations: null }), ['locations']);
    assert.deepEqual(changedSince({ ...event, locations: undefined }, { locations: null }), []);
    assert.deepEqual(changedSince(event, {}), [], 'what was not given is not compared');
    // Stray control characters in others' text cannot be sent back; they are left out of the comparison.
    const odd = { ...event, title: 'Plan\u000bning', locations: [{ name: 'Room\u00001' }] };
    assert.deepEqual(changedSince(odd, { title: 'Planning', locations: [{ name: 'Room1' }] }), []);
    assert.deepEqual(changedSince(odd, { title: 'Plan ning' }), ['title']);
  });
});
