/**
 * A read of several copies is one query: a copy whose floating or all-day times have no zone to
 * be placed by is refused (`time_zone_required`) before it, so neither its instants nor its count
 * reach the page; the other copies are answered as they are. The same for busy time. And the
 * rows of a page: brought by the statement that placed them (one snapshot), or, for a read
 * without a page size, read by id after its places, where a place whose row became another
 * occurrence meanwhile is dropped, not shown with that occurrence.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import { completeChosen, readCopies, readCopiesBusy } from '../../src/calendars/reads/copyEvents.ts';
import type { CalendarView } from '../../src/domain/occurrences.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { copyHolding, copyKeys, freshCopy } from '../helpers/copiedOccurrences.ts';
import { occurrence } from '../helpers/memoryCalendars.ts';
import { seedCalendars, seedReadGrant, seedUser, seedWorkspace } from '../helpers/seed.ts';

const ids = createEventIds(randomBytes(32));
const window = {
  start: Temporal.Instant.from('2026-03-01T00:00:00Z'),
  end: Temporal.Instant.from('2026-03-08T00:00:00Z'),
};

describe('copies read together, one without a zone for its local times', () => {
  let handle: DatabaseHandle;
  let zoneless: string;
  let zoned: string;
  const longest: Record<string, number> = {};

  let keys: Map<string, number>;
  before(async () => {
    handle = openDatabase({ sqlitePath: ':memory:' });
    await migrateToLatest(handle);
    const userId = await seedUser(handle.db, 'zon@example.org');
    const owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Zones', [[userId, 'owner']]) };
    [zoneless, zoned] = (await seedCalendars(handle.db, owner, [{ name: 'Loose' }, { name: 'Work' }])) as [
      string,
      string,
    ];
    await seedReadGrant(handle.db, owner, [zoneless, zoned]);
    await reconcileCopies(handle.db, 0);
    const meeting = (id: string, start: string) =>
      occurrence({ providerEventId: id, start, timeZone: 'Europe/Berlin', title: 'Budget' });
    longest[zoneless] = await copyHolding(handle.db, ids, zoneless, [
      meeting('loose-meeting', '2026-03-02T09:00:00'),
      occurrence({
        providerEventId: 'loose-day',
        start: '2026-03-03T00:00:00',
        duration: 'P1D',
        showWithoutTime: true,
      }),
    ]);
    longest[zoned] = await copyHolding(handle.db, ids, zoned, [
      meeting('work-a', '2026-03-02T10:00:00'),
      meeting('work-b', '2026-03-04T10:00:00'),
    ]);
    keys = await copyKeys(handle.db);
  });
  after(() => handle.close());

  const copy = (calendarId: string) => freshCopy(calendarId, keys.get(calendarId)!, longest[calendarId]!);
  /** Both calendars seen without a zone: the loose one holds a day, the other instants only. */
  const parts = () =>
    [zoneless, zoned].map((calendarId) => {
      const view: CalendarView = { calendarId, access: 'owner', detailLevel: 'full', privateDetails: false };
      return { view, copy: copy(calendarId) };
    });

  it("refuses the copy whose day it cannot place, and answers the other's page and count", async () => {
    for (const words of [undefined, ['budget']]) {
      const read = await readCopies({ db: handle.db }, parts(), window, {
        scopes: ['calendar:read'],
        ...(words === undefined ? {} : { words }),
        first: 10,
      });
      assert.deepEqual(
        read.refused.map((r) => [r.calendarId, r.error.code]),
        [[zoneless, 'time_zone_required']],
      );
      assert.deepEqual(
        read.candidates.map((c) => c.event.calendarId),
        [zoned, zoned],
      );
      assert.equal(read.total, 2);
    }
  });

  /** Both places of a read, made events after the first place's id went to another occurrence. */
  const afterRetag = async (first?: number) => {
    const read = await readCopies({ db: handle.db }, parts().slice(1), window, {
      scopes: ['calendar:read'],
      ...(first === undefined ? {} : { first }),
    });
    const [one, two] = read.candidates as [(typeof read.candidates)[0], (typeof read.candidates)[0]];
    const now = async () =>
      (await completeChosen({ db: handle.db }, read.candidates, async () => {})).map(
        (e) => e.event.occurrenceId,
      );
    const both = [one.event.occurrenceId, two.event.occurrenceId];
    assert.deepEqual(await now(), both);
    // The first place's id given to another occurrence, as SQLite gives a deleted highest id again.
    const retag = (occurrenceId: string) =>
      handle.db
        .updateTable('copy_occurrences')
        .set({ occurrence_id: occurrenceId })
        .where('id', '=', one.rowId)
        .execute();
    await retag('occ_another');
    try {
      return { both, after: await now() };
    } finally {
      await retag(one.event.occurrenceId);
    }
  };

  it("drops a place whose row became another occurrence between the read's two statements", async () => {
    // A read of every place (no page size) reads the rows it chose in a second statement.
    const { both, after } = await afterRetag();
    assert.deepEqual(after, both.slice(1));
  });

  it('makes a page from the rows its one statement brought, not from a later state', async () => {
    const { both, after } = await afterRetag(10);
    assert.deepEqual(after, both);
  });

  it('refuses it for busy time too, and gives the other busy time', async () => {
    const read = await readCopiesBusy({ db: handle.db }, parts(), window, true);
    assert.deepEqual(
      read.refused.map((r) => r.calendarId),
      [zoneless],
    );
    assert.equal(read.busy.length, 2);
  });
});
