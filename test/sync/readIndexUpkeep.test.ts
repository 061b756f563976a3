/**
 * PostgreSQL's read index answers from itself only on pages its visibility map marks: once syncs
 * have changed `vacuumEveryRows` rows of copy_occurrences, the sync service vacuums the table (off
 * the syncs' path), and not before. A vacuum that fails is told, and tried again later; the syncs
 * go on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type DatabaseHandle, migrateToLatest } from '../../src/store/database.ts';
import { readIndexUpkeep } from '../../src/store/readIndexUpkeep.ts';
import { freshPostgres, postgresSkip } from '../helpers/databases.ts';
import { at, batch, item, scriptedCopy, scriptedProvider } from '../helpers/scriptedSync.ts';

const skip = await postgresSkip('the read index vacuum');

describe('the read index vacuumed after syncs (postgres)', { skip }, () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await freshPostgres();
    await migrateToLatest(handle);
  });
  after(() => handle?.close());

  /** Manual vacuums of copy_occurrences (autovacuum's are counted apart), and its pages marked all-visible. */
  const table = async () => {
    const stats = await sql<{ vacuums: string; visible: number }>`select s.vacuum_count::text as vacuums,
      c.relallvisible as visible from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.relname = 'copy_occurrences'`.execute(handle.db);
    return { vacuums: Number(stats.rows[0]!.vacuums), visible: stats.rows[0]!.visible };
  };
  const items = (count: number, version: string) =>
    Array.from({ length: count }, (_, i) =>
      item(`e${i}`, [at(`2026-03-${String(1 + (i % 28)).padStart(2, '0')}T09:00:00`, `e${i}`)], version),
    );

  it('vacuums once the syncs have changed that many rows, and not before', async () => {
    const { provider } = scriptedProvider([
      async function* () {
        yield batch({ upserts: items(20, 'v1'), nextState: 'one' });
      },
      // Nothing changed: no row written, nothing counted.
      async function* () {
        yield batch({ full: false, upserts: items(20, 'v1'), nextState: 'two' });
      },
      // Five items changed: their five rows removed and five written.
      async function* () {
        yield batch({ full: false, upserts: items(5, 'v2'), nextState: 'three' });
      },
    ]);
    const { calendarId, service, clock } = await scriptedCopy(handle, 'postgres', provider, {
      service: { vacuumEveryRows: 30 },
    });
    const sync = service('one');
    await sync.runDue();
    await sync.idle();
    assert.deepEqual(await table(), { vacuums: 0, visible: 0 }, '20 rows written: below the threshold');

    clock.advance({ minutes: 1 });
    assert.equal(await sync.syncNow(calendarId), 'synced');
    await sync.idle();
    assert.equal((await table()).vacuums, 0, 'a sync that changed nothing counts nothing');

    clock.advance({ minutes: 1 });
    assert.equal(await sync.syncNow(calendarId), 'synced');
    await sync.idle();
    const vacuumed = await table();
    assert.equal(vacuumed.vacuums, 1, '20 + 10 rows changed: one vacuum');
    assert.ok(vacuumed.visible > 0, 'the pages are marked all-visible');
  });

  it('tells a vacuum that failed, runs one at a time, and tries again after as many rows', async () => {
    const gone = await freshPostgres();
    await gone.close();
    const errors: unknown[] = [];
    const upkeep = readIndexUpkeep(gone.db, { every: 10, onError: (error) => errors.push(error) });
    upkeep.changed(10);
    // Past the threshold again while the first runs: no second vacuum at once; these rows count
    // towards the next.
    upkeep.changed(10);
    await upkeep.idle();
    assert.equal(errors.length, 1);
    upkeep.changed(1);
    await upkeep.idle();
    assert.equal(errors.length, 2, 'the rows changed during the first count');
    upkeep.changed(9);
    await upkeep.idle();
    assert.equal(errors.length, 2, 'below the threshold since the last try');
    upkeep.changed(1);
    await upkeep.idle();
    assert.equal(errors.length, 3);
  });
});
