/**
 * Rows of the embedded database made objects by the service (store/rowObjects.ts) rather than by
 * `node:sqlite`: the same names, values and order as the driver's own objects, whatever the
 * columns are called, on the connection and on the reader threads.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/database.ts';
import { rowObject, rowObjects } from '../../src/store/rowObjects.ts';
import { readOffLoop } from '../../src/store/sqliteReaders.ts';

const statements = [
  `select 1 as id, 'a' as name union all select 2, 'b'`,
  'select 1 as id where 0',
  `select 1 as x, 2 as x`,
  `select null as missing, x'00ff' as bytes, 1.5 as half, 'é' as text, 9007199254740991 as big`,
  `select 1 as "a""b", 2 as "back\\slash", 3 as "}; throw new Error('code')", 4 as "__proto__", 5 as "constructor"`,
];

/** The driver's own objects, as plain objects (they have no prototype). */
function driverRows(text: string): Record<string, unknown>[] {
  const db = new DatabaseSync(':memory:');
  try {
    return db
      .prepare(text)
      .all()
      .map((row) => Object.fromEntries(Object.entries(row)));
  } finally {
    db.close();
  }
}

describe('rows made objects', () => {
  it('gives the names, values and order the driver gives, whatever the columns are called', async () => {
    const handle = openDatabase({ sqlitePath: ':memory:' });
    try {
      for (const text of statements) {
        const rows = (await sql.raw(text).execute(handle.db)).rows as Record<string, unknown>[];
        const expected = driverRows(text);
        assert.deepEqual(
          rows.map((row) => Object.entries(row)),
          expected.map((row) => Object.entries(row)),
          text,
        );
      }
    } finally {
      await handle.close();
    }
  });

  it('gives the same on a reader thread of a database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'row-objects-'));
    const handle = openDatabase({ sqlitePath: join(dir, 'db.sqlite'), readThreads: 1 });
    try {
      for (const text of statements) {
        const rows = await readOffLoop(handle.db, sql.raw(text).compile(handle.db));
        assert.deepEqual(
          rows.map((row) => Object.entries(row as object)),
          driverRows(text).map((row) => Object.entries(row)),
          text,
        );
      }
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes a column name as data, never as code', () => {
    const names = ['__proto__', 'a"b', '}; throw new Error("code"); ({', '\u2028', '`backticks`', 'x\\'];
    const row = rowObject(names)([1, 2, 3, 4, 5, 6]);
    assert.deepEqual(
      Object.entries(row),
      names.map((name, i) => [name, i + 1]),
    );
  });

  it('keeps the last of two columns of one name, as the driver does', () => {
    assert.deepEqual(rowObjects(rowObject(['x', 'y', 'x']), [[1, 2, 3]]), [{ x: 3, y: 2 }]);
  });
});
