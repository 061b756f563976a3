/** Event and occurrence ids: opaque, stable, readable back only for the calendar they were minted for. */
import assert from 'node:assert/strict';
import { createCipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createEventIds } from '../../src/calendars/eventIds.ts';

const key = randomBytes(32);
const ids = createEventIds(key);
/**
 * The ids as they were first minted (HMAC-SHA-256 IV, a fresh aes-256-ctr cipher per id): ids
 * are stable API, so however they are computed they must stay exactly these.
 */
function mintedFirst(secretKey: Buffer, kind: 'evt' | 'occ', calendarId: string, plaintext: string): string {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), info, 32));
  const bytes = Buffer.from(plaintext, 'utf8');
  const iv = createHmac('sha256', derive(`calendar-access ${kind} id mac v2`))
    .update(calendarId)
    .update('\0')
    .update(bytes)
    .digest()
    .subarray(0, 16);
  const cipher = createCipheriv('aes-256-ctr', derive(`calendar-access ${kind} id enc v2`), iv);
  const sealed = Buffer.concat([iv, cipher.update(bytes), cipher.final()]);
  return `${kind}_${sealed.toString('base64url')}`;
}

const caldavId =
  'meetings/5f0c1d2e-aaaa-bbbb-cccc-0123456789ab.ics#5f0c1d2e-aaaa-bbbb-cccc-0123456789ab@example.com';

describe('event ids', () => {
  it('are stable, opaque and URL-safe', () => {
    const id = ids.eventId('cal_a', caldavId);
    assert.equal(
      id,
      createEventIds(key).eventId('cal_a', caldavId),
      'same key, same id: stable across restarts',
    );
    assert.match(id, /^evt_[A-Za-z0-9_-]+$/);
    assert.doesNotMatch(id, /meetings|example|5f0c1d2e/);
    assert.notEqual(id, ids.eventId('cal_b', caldavId), 'another calendar, another id');
    assert.notEqual(
      id,
      createEventIds(randomBytes(32)).eventId('cal_a', caldavId),
      'another key, another id',
    );
  });

  it('read back to the provider id for their own calendar only', () => {
    const id = ids.eventId('cal_a', caldavId);
    assert.equal(ids.readEventId('cal_a', id), caldavId);
    assert.equal(ids.readEventId('cal_b', id), undefined);
    assert.equal(createEventIds(randomBytes(32)).readEventId('cal_a', id), undefined, 'another deployment');
  });

  it('name the calendar they were minted for among several, and none outside them', () => {
    const id = ids.eventId('cal_c', caldavId);
    assert.deepEqual(ids.eventCalendar(['cal_a', 'cal_b', 'cal_c', 'cal_d'], id), {
      calendarId: 'cal_c',
      providerEventId: caldavId,
    });
    assert.equal(ids.eventCalendar(['cal_a', 'cal_b', 'cal_d'], id), undefined);
    assert.equal(ids.eventCalendar([], id), undefined);
    assert.equal(
      ids.eventCalendar(['cal_c'], `${id.slice(0, -2)}${id.at(-2) === 'A' ? 'B' : 'A'}${id.at(-1)}`),
      undefined,
    );
    assert.equal(
      ids.eventCalendar(['cal_c'], ids.occurrenceId('cal_c', caldavId, undefined)),
      undefined,
      'an occurrence id',
    );
  });

  it('refuse tampered, truncated, foreign, non-canonical and odd ids', () => {
    const id = ids.eventId('cal_a', 'event-1');
    const flipped = `${id.slice(0, -2)}${id.at(-2) === 'A' ? 'B' : 'A'}${id.at(-1)}`;
    // The same bytes spelt another way (base64 ignores the last character's spare bits).
    const last = id.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelt = `${id.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    for (const bad of [
      respelt,
      `${id}=`,
      ` ${id}`,
      flipped,
      id.slice(0, -3),
      `occ_${id.slice(4)}`,
      'evt_',
      'evt_AAAA',
      '',
      `evt_${'A'.repeat(2000)}`,
    ]) {
      assert.equal(ids.readEventId('cal_a', bad), undefined, bad.slice(0, 40));
    }
  });

  it('occurrence ids carry the recurrence id, and none for a single event', () => {
    const single = ids.occurrenceId('cal_a', 'event-1', undefined);
    const first = ids.occurrenceId('cal_a', 'event-1', '2026-03-10T08:00:00Z');
    const second = ids.occurrenceId('cal_a', 'event-1', '2026-03-17T08:00:00Z');
    assert.notEqual(first, second);
    assert.deepEqual(ids.readOccurrenceId('cal_a', single), { providerEventId: 'event-1' });
    assert.deepEqual(ids.readOccurrenceId('cal_a', first), {
      providerEventId: 'event-1',
      recurrenceId: '2026-03-10T08:00:00Z',
    });
    assert.equal(ids.readOccurrenceId('cal_b', first), undefined);
    assert.equal(ids.readEventId('cal_a', first), undefined, 'an occurrence id is not an event id');
    assert.equal(ids.readOccurrenceId('cal_a', ids.eventId('cal_a', 'event-1')), undefined);
  });

  it('are exactly the ids first minted, for thousands of ids of every length and alphabet', () => {
    const secretKey = randomBytes(32);
    const fresh = createEventIds(secretKey);
    const alphabet = ['a', 'Z', '9', '#', '/', '@', '\0', 'é', '日', '😀', ' ', '%'];
    for (let n = 0; n < 3000; n++) {
      const length = 1 + (n % 300);
      const providerEventId = Array.from(
        { length },
        (_, k) => alphabet[(n * 7 + k * 13) % alphabet.length],
      ).join('');
      const calendarId = `cal_${n % 17}`;
      const recurrenceId =
        n % 3 === 0 ? undefined : `2026-03-${String(1 + (n % 28)).padStart(2, '0')}T08:00:00Z`;
      const eventId = fresh.eventId(calendarId, providerEventId);
      const occurrenceId = fresh.occurrenceId(calendarId, providerEventId, recurrenceId);
      assert.equal(eventId, mintedFirst(secretKey, 'evt', calendarId, providerEventId), `event ${n}`);
      assert.equal(
        occurrenceId,
        mintedFirst(secretKey, 'occ', calendarId, `${providerEventId}\0${recurrenceId ?? ''}`),
        `occurrence ${n}`,
      );
      assert.equal(fresh.readEventId(calendarId, eventId), providerEventId);
      assert.deepEqual(fresh.readOccurrenceId(calendarId, occurrenceId), {
        providerEventId,
        ...(recurrenceId !== undefined && { recurrenceId }),
      });
    }
  });
});
