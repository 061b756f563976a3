/**
 * A sync that changed nothing changes nothing, on both engines: no copy_items or
 * copy_occurrences row written and the copy's version (what readers key on) kept, for an
 * incremental sync with nothing to say, one re-reporting items as they are, and a full sync
 * re-reading the same items (a rejected sync token). A change still bumps and writes only what
 * changed; a full sync after a raised level rewrites what the same versions now copy.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { copiesOf, occurrencesNear } from '../../src/store/calendarCopies.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { at, batch, item, scriptedCopy, scriptedProvider } from '../helpers/scriptedSync.ts';
import { seedReadGrant } from '../helpers/seed.ts';

const march = { startMs: Date.parse('2026-03-01T00:00:00Z'), endMs: Date.parse('2026-04-01T00:00:00Z') };
const copiedTables = ['copy_items', 'copy_occurrences'] as const;

for (const engine of await enginesUnderTest()) {
  describe(`a sync that changed nothing (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    before(async () => {
      handle = await engine.open();
      // Every row written to the copies is noted, whatever the statement.
      await sql`create table test_writes (tbl text not null, op text not null)`.execute(handle.db);
      for (const table of copiedTables) {
        if (engine.name === 'sqlite') {
          for (const op of ['insert', 'update', 'delete'])
            await sql
              .raw(
                `create trigger ${table}_${op}_noted after ${op} on ${table} begin insert into test_writes values ('${table}', '${op}'); end`,
              )
              .execute(handle.db);
        } else {
          await sql
            .raw(
              `create or replace function note_write() returns trigger as $$ begin insert into test_writes values (TG_TABLE_NAME, lower(TG_OP)); return null; end $$ language plpgsql`,
            )
            .execute(handle.db);
          await sql
            .raw(
              `create trigger ${table}_noted after insert or update or delete on ${table} for each row execute function note_write()`,
            )
            .execute(handle.db);
        }
      }
    });
    after(() => handle.close());
    beforeEach(() => sql`delete from test_writes`.execute(handle.db));

    /** Rows written to the copies since the last call, as `table op` → count. */
    const writes = async () => {
      const rows = await sql<{ tbl: string; op: string }>`select tbl, op from test_writes`.execute(handle.db);
      await sql`delete from test_writes`.execute(handle.db);
      const counts: Record<string, number> = {};
      for (const { tbl, op } of rows.rows) counts[`${tbl} ${op}`] = (counts[`${tbl} ${op}`] ?? 0) + 1;
      return counts;
    };
    const copyOf = async (calendarId: string) => (await copiesOf(handle.db, [calendarId])).get(calendarId)!;
    const held = async (calendarId: string) =>
      (await occurrencesNear(handle.db, calendarId, march, 0))
        .map((o) => [o.providerEventId, o.title])
        .sort();

    const a = item('a', [at('2026-03-10T09:00:00', 'a')]);
    const b = item('b', [at('2026-03-11T09:00:00', 'b'), at('2026-03-18T09:00:00', 'b')]);

    it('writes nothing and keeps the version: nothing to say, items re-reported as they are, a full re-read', async () => {
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: [a, b], nextState: 'one' });
        },
        async function* () {
          yield batch({ full: false, nextState: 'two' });
        },
        async function* () {
          yield batch({ full: false, upserts: [a], nextState: 'three' });
        },
        // A rejected token: the whole calendar read again, every item as the copy holds it.
        async function* () {
          yield batch({ upserts: [b, a], nextState: 'four' });
        },
      ]);
      const { calendarId, service, clock } = await scriptedCopy(handle, engine.name, provider);
      const one = service('one');
      await one.runDue();
      const synced = await copyOf(calendarId);
      assert.deepEqual(await writes(), { 'copy_items insert': 2, 'copy_occurrences insert': 3 });

      for (const state of ['two', 'three', 'four']) {
        clock.advance({ minutes: 1 });
        assert.equal(await one.syncNow(calendarId), 'synced', state);
        const copy = await copyOf(calendarId);
        assert.equal(copy.version, synced.version, `${state}: readers' version kept`);
        assert.deepEqual(
          await writes(),
          // The full sync counts its unchanged items as seen (their generation): no occurrence is touched.
          state === 'four' ? { 'copy_items update': 2 } : {},
          `${state}: rows written`,
        );
        assert.equal(copy.items, 2);
        assert.equal(copy.syncedAt, clock.now().epochMilliseconds, 'the sync itself is on record');
      }
      assert.deepEqual(await held(calendarId), [
        ['a', 'a'],
        ['b', 'b'],
        ['b', 'b'],
      ]);
    });

    it('moves in nothing of a sync of several pages that re-read the copy as it is, and only the change of one that did not', async () => {
      const c = item('c', [at('2026-03-12T09:00:00', 'c')]);
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: [a, b, c], nextState: 'one' });
        },
        // A rejected token: a full sync of three pages, every item as the copy holds it.
        async function* () {
          yield batch({ upserts: [a] });
          yield batch({ upserts: [b] });
          yield batch({ upserts: [c], nextState: 'two' });
        },
        async function* () {
          yield batch({ full: false, upserts: [a, item('b', [at('2026-03-11T10:00:00', 'b', 'B2')], 'v2')] });
          yield batch({ full: false, upserts: [c], removals: ['never-held'], nextState: 'three' });
        },
      ]);
      const { calendarId, service } = await scriptedCopy(handle, engine.name, provider);
      const one = service('one');
      await one.runDue();
      const first = (await copyOf(calendarId)).version;
      await writes();

      assert.equal(await one.syncNow(calendarId), 'synced');
      assert.equal((await copyOf(calendarId)).version, first, 'the full re-read keeps the version');
      assert.deepEqual(
        await writes(),
        { 'copy_items update': 3 },
        'only the items’ generation: seen by this sync',
      );
      assert.equal((await copyOf(calendarId)).items, 3);

      assert.equal(await one.syncNow(calendarId), 'synced');
      assert.equal((await copyOf(calendarId)).version, first + 1);
      assert.deepEqual(await writes(), {
        'copy_items delete': 1,
        'copy_items insert': 1,
        'copy_occurrences delete': 2,
        'copy_occurrences insert': 1,
      });
      assert.deepEqual(await held(calendarId), [
        ['a', 'a'],
        ['b', 'B2'],
        ['c', 'c'],
      ]);
    });

    it('bumps for a change and writes only the changed item; a removal and a full sync not seeing an item bump too', async () => {
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: [a, b], nextState: 'one' });
        },
        async function* () {
          yield batch({
            full: false,
            upserts: [a, item('b', [at('2026-03-11T10:00:00', 'b', 'B2')], 'v2')],
            nextState: 'two',
          });
        },
        async function* () {
          yield batch({ full: false, removals: ['gone-already'], nextState: 'three' });
        },
        async function* () {
          yield batch({ full: false, removals: ['b'], nextState: 'four' });
        },
        async function* () {
          yield batch({ upserts: [item('c', [at('2026-03-12T09:00:00', 'c')])], nextState: 'five' });
        },
      ]);
      const { calendarId, service } = await scriptedCopy(handle, engine.name, provider);
      const one = service('one');
      await one.runDue();
      const first = (await copyOf(calendarId)).version;
      await writes();

      assert.equal(await one.syncNow(calendarId), 'synced');
      assert.equal((await copyOf(calendarId)).version, first + 1);
      assert.deepEqual(await writes(), {
        'copy_items delete': 1,
        'copy_items insert': 1,
        'copy_occurrences delete': 2,
        'copy_occurrences insert': 1,
      });
      assert.deepEqual(await held(calendarId), [
        ['a', 'a'],
        ['b', 'B2'],
      ]);

      assert.equal(await one.syncNow(calendarId), 'synced');
      assert.equal(
        (await copyOf(calendarId)).version,
        first + 1,
        'removing what the copy never held changes nothing',
      );

      assert.equal(await one.syncNow(calendarId), 'synced');
      assert.equal((await copyOf(calendarId)).version, first + 2);
      assert.deepEqual(await held(calendarId), [['a', 'a']]);

      assert.equal(await one.syncNow(calendarId), 'synced');
      assert.equal((await copyOf(calendarId)).version, first + 3);
      assert.deepEqual(await held(calendarId), [['c', 'c']]);
    });

    it('rewrites the same versions when a raised level copies more of them', async () => {
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: [a, b], nextState: 'one' });
        },
        // In two pages: the first staged and compared in the database, the last compared as it is applied.
        async function* (request) {
          assert.equal(request.state, undefined, 'a full sync at the new level');
          yield batch({ upserts: [a] });
          yield batch({ upserts: [b], nextState: 'two' });
        },
      ]);
      const { calendarId, service, clock, userId, workspaceId } = await scriptedCopy(
        handle,
        engine.name,
        provider,
      );
      const one = service('one');
      await one.runDue();
      const titles = await copyOf(calendarId);
      const description = async () =>
        (await occurrencesNear(handle.db, calendarId, march, 0)).map((o) => o.description);
      assert.deepEqual(
        await description(),
        [undefined, undefined, undefined],
        'titles: no description copied',
      );

      await seedReadGrant(handle.db, { userId, workspaceId }, [calendarId]);
      await reconcileCopies(handle.db, clock.now().epochMilliseconds);
      await one.runDue();
      assert.ok((await copyOf(calendarId)).version > titles.version);
      assert.deepEqual(await description(), ['About a', 'About b', 'About b']);
    });
  });
}
