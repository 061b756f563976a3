/**
 * Sync by comparison (ICS feeds, adapters without a sync of their own): an incremental listing
 * upserts only items whose version differs from the copy's and removes only those gone, so a
 * listing of an unchanged calendar yields one batch with nothing in it but the position.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itemsOf, listingSync } from '../../src/providers/listingSync.ts';
import type { AccountAccess, CredentialsOf, SyncBatch, SyncRequest } from '../../src/providers/port.ts';
import { type MemoryCalendar, memoryProvider, occurrence } from '../helpers/memoryCalendars.ts';

const horizon = {
  start: Temporal.Instant.from('2026-01-01T00:00:00Z'),
  end: Temporal.Instant.from('2027-01-01T00:00:00Z'),
};
const account = {} as AccountAccess<CredentialsOf<'google'>>;
const calendar = { providerCalendarId: 'cal', name: 'Cal', primary: true, access: 'owner' } as const;

const event = (id: string, title = id) =>
  occurrence({ providerEventId: id, start: '2026-03-10T09:00:00', timeZone: 'Europe/Berlin', title });

async function syncOnce(held: MemoryCalendar, request: SyncRequest): Promise<SyncBatch[]> {
  const batches: SyncBatch[] = [];
  const sync = listingSync(memoryProvider('google', new Map([['cal', held]])));
  for await (const batch of sync.syncCalendar(account, calendar, request)) batches.push(batch);
  return batches;
}

describe('listing sync', () => {
  const held: MemoryCalendar = { name: 'Cal', occurrences: [event('a'), event('b'), event('c')] };
  const known = new Map(itemsOf(held.occurrences, horizon).map((item) => [item.key, item.version]));
  const request = (state?: string): SyncRequest => ({
    horizon,
    ...(state === undefined ? {} : { state }),
    knownVersions: async () => known,
  });

  it('yields nothing but the position for an unchanged calendar', async () => {
    assert.deepEqual(await syncOnce(held, request('listed')), [
      { full: false, upserts: [], removals: [], skipped: [], nextState: 'listed' },
    ]);
  });

  it('upserts only the changed item and removes only the one gone', async () => {
    const changed: MemoryCalendar = { name: 'Cal', occurrences: [event('a', 'A2'), event('b')] };
    const [only, ...rest] = await syncOnce(changed, request('listed'));
    assert.deepEqual(rest, []);
    assert.deepEqual(
      only?.upserts.map((item) => item.key),
      ['a'],
    );
    assert.deepEqual(only?.removals, ['c']);
  });

  it('upserts everything in a full sync (the copy compares the rows itself)', async () => {
    const [only] = await syncOnce(held, request());
    assert.equal(only?.full, true);
    assert.deepEqual(only?.upserts.map((item) => item.key).sort(), ['a', 'b', 'c']);
  });
});
