/** The embedded database holds sealed credentials and hashes: only the service's user may read its files. */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { migrateToLatest, openDatabase, sqlitePathIn } from '../../src/store/database.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('SQLite file modes', () => {
  const root = mkdtempSync(join(tmpdir(), 'sqlite-modes-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('creates the data directory 0700 and the database, -wal and -shm files 0600', async () => {
    const path = sqlitePathIn(join(root, 'data'));
    const handle = openDatabase({ sqlitePath: path });
    await migrateToLatest(handle);
    try {
      assert.equal(modeOf(join(root, 'data')), 0o700);
      for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(modeOf(file), 0o600, file);
    } finally {
      await handle.close();
    }
  });

  it('narrows a database file that an older version left readable to others', async () => {
    const path = join(root, 'old.sqlite');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    const handle = openDatabase({ sqlitePath: path });
    await migrateToLatest(handle);
    try {
      for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(modeOf(file), 0o600, file);
    } finally {
      await handle.close();
    }
  });
});
