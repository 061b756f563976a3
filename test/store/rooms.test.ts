/** The room list on both engines: added, replaced under its address key, read by keys, removed, gone with its workspace. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { countRooms, deleteRoom, roomsOf, saveRoom } from '../../src/store/rooms.ts';
import { insertWorkspace } from '../../src/store/workspaces.ts';
import { enginesUnderTest } from '../helpers/databases.ts';

for (const engine of await enginesUnderTest()) {
  describe(`workspace rooms on ${engine.name}`, { skip: engine.skip }, () => {
    it('keeps one room per address key, each workspace its own', async () => {
      const handle = await engine.open();
      try {
        const { db } = handle;
        for (const id of ['ws_a', 'ws_b'])
          await insertWorkspace(db, { id, name: id, createdAt: 0 }, defaultPolicy);
        const atlas = {
          email: 'Atlas@example.org',
          key: 'atlas@example.org',
          name: 'Atlas',
          features: ['video'],
        };
        await saveRoom(db, 'ws_a', { ...atlas, capacity: 6, source: 'google' }, 1);
        await saveRoom(db, 'ws_a', { ...atlas, name: 'Atlas (new)', source: 'admin' }, 2);
        await saveRoom(
          db,
          'ws_b',
          { ...atlas, key: 'vega@example.org', email: 'vega@example.org', name: 'Vega', source: 'admin' },
          3,
        );
        assert.deepEqual(await roomsOf(db, 'ws_a'), [
          {
            key: 'atlas@example.org',
            email: 'Atlas@example.org',
            name: 'Atlas (new)',
            features: ['video'],
            source: 'admin',
          },
        ]);
        assert.deepEqual(await roomsOf(db, 'ws_a', ['vega@example.org']), []);
        assert.equal((await roomsOf(db, 'ws_b', ['vega@example.org'])).length, 1);
        assert.equal(await countRooms(db, 'ws_a'), 1);
        assert.equal(await deleteRoom(db, 'ws_a', 'atlas@example.org'), true);
        assert.equal(await deleteRoom(db, 'ws_a', 'atlas@example.org'), false);
        await db.deleteFrom('workspaces').where('id', '=', 'ws_b').execute();
        assert.equal(await countRooms(db, 'ws_b'), 0);
      } finally {
        await handle.close();
      }
    });
  });
}
