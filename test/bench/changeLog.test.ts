/**
 * The bench provider's change log (bench/changeLog.ts): a sync from the last position gives the
 * events written since, and only those, however the memory provider wrote them (an object
 * replaced, one appended, one removed); an older position gives what changed since the seed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withChangeLog } from '../../bench/changeLog.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { CalendarSync, SyncBatch } from '../../src/providers/port.ts';
import { type MemoryCalendar, memoryProvider, occurrence } from '../helpers/memoryCalendars.ts';

const horizon = {
  start: Temporal.Instant.from('2026-01-01T00:00:00Z'),
  end: Temporal.Instant.from('2027-01-01T00:00:00Z'),
};
const calendarRef = { providerCalendarId: 'cal', name: 'Cal', primary: false, access: 'owner' as const };

async function syncFrom(sync: CalendarSync<'google'>, state?: string): Promise<SyncBatch[]> {
  const batches: SyncBatch[] = [];
  const request = { horizon, knownVersions: async () => new Map<string, string>() };
  for await (const batch of sync.syncCalendar(
    {} as never,
    calendarRef as never,
    state === undefined ? request : { ...request, state },
  ))
    batches.push(batch);
  return batches;
}

const upserted = (batches: SyncBatch[]) => batches.flatMap((b) => b.upserts.map((item) => item.key)).sort();
const removed = (batches: SyncBatch[]) => batches.flatMap((b) => b.removals).sort();

describe('the bench provider’s change log', () => {
  const seed = (): MemoryCalendar => ({
    name: 'Cal',
    occurrences: Array.from({ length: 6 }, (_, i) =>
      occurrence({ start: `2026-03-0${i + 1}T09:00:00`, timeZone: 'Europe/Berlin', title: `Event ${i}` }),
    ),
  });

  it('gives every event first, then exactly what each write changed', async () => {
    const calendar = seed();
    const provider = withChangeLog(
      memoryProvider('google', new Map([['cal', calendar]])),
      new Map([['cal', calendar]]),
    );
    const sync = provider.sync!;
    const ids = calendar.occurrences.map((o) => o.providerEventId);
    const full = await syncFrom(sync);
    assert.equal(full[0]!.full, true);
    assert.deepEqual(upserted(full), [...ids].sort());
    let state = full.at(-1)!.nextState;

    const nothing = await syncFrom(sync, state);
    assert.deepEqual([upserted(nothing), removed(nothing)], [[], []]);
    state = nothing.at(-1)!.nextState;

    // Replaced in place, as an update writes.
    const renamed: ProviderOccurrence = { ...calendar.occurrences[2]!, title: 'Renamed' };
    calendar.occurrences = calendar.occurrences.map((o, i) => (i === 2 ? renamed : o));
    const update = await syncFrom(sync, state);
    assert.deepEqual([upserted(update), removed(update)], [[ids[2]], []]);
    assert.equal(update[0]!.upserts[0]!.occurrences[0]!.title, 'Renamed');
    state = update.at(-1)!.nextState;

    // One removed and one appended: the same length, every later object out of place.
    const added = occurrence({ start: '2026-03-09T09:00:00', timeZone: 'Europe/Berlin', title: 'New' });
    calendar.occurrences = calendar.occurrences.filter((o) => o.providerEventId !== ids[1]);
    calendar.occurrences.push(added);
    const moved = await syncFrom(sync, state);
    assert.deepEqual(removed(moved), [ids[1]]);
    // The later ones are given again, unchanged (the copy finds them so); the new one is among them.
    assert.ok(upserted(moved).includes(added.providerEventId));
    assert.ok(!upserted(moved).includes(ids[0]!));
    state = moved.at(-1)!.nextState;

    // Moved out of the horizon: removed from the copy.
    calendar.occurrences = calendar.occurrences.map((o) =>
      o.providerEventId === ids[0] ? { ...o, start: '2028-01-01T09:00:00' } : o,
    );
    const gone = await syncFrom(sync, state);
    assert.deepEqual([upserted(gone), removed(gone)], [[], [ids[0]]]);

    // A position not the last (another process's): what changed since the seed.
    const older = await syncFrom(sync, 'elsewhere');
    assert.deepEqual(removed(older), [ids[0], ids[1]].sort());
    assert.deepEqual(upserted(older), [ids[2], added.providerEventId].sort());
  });
});
