/**
 * The embedded database's reader threads (store/sqliteReaders.ts): the same rows as the
 * connection, the last commit and never an open transaction's writes, the event loop free while
 * they read, a failed read failing alone, and nothing left running once closed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase } from '../../src/store/database.ts';
import { packOccurrence } from '../../src/store/packedOccurrence.ts';
import {
  readerThreads,
  readOffLoop,
  readUnpackedOffLoop,
  sqliteReaders,
} from '../../src/store/sqliteReaders.ts';
import { occurrence } from '../helpers/memoryCalendars.ts';

/** A read that keeps SQLite busy for a while: ~2 million rows counted. */
const longRead = sql<{
  n: number;
}>`with recursive r(i) as (select 1 union all select i + 1 from r where i < 2000000)
  select count(*) as n from r`;

/** Turns of the event loop while `work` runs. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let going = true;
  const turn = () => {
    turns += 1;
    if (going) setImmediate(turn);
  };
  setImmediate(turn);
  await work();
  going = false;
  return turns;
}

describe('SQLite reader threads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-readers-'));
  let handle: DatabaseHandle;
  before(async () => {
    handle = openDatabase({ sqlitePath: join(dir, 'db.sqlite'), readThreads: 2 });
    await sql`create table t (id integer primary key, name text not null)`.execute(handle.db);
    await sql`insert into t (name) values ('a'), ('b'), ('c')`.execute(handle.db);
  });
  after(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers with the rows the connection gives, parameters bound', async () => {
    const query = sql<{ id: number; name: string }>`select id, name from t where id >= ${2} order by id`;
    assert.equal(readerThreads(handle.db), 2);
    const offLoop = await readOffLoop(handle.db, query.compile(handle.db));
    const onConnection = (await query.execute(handle.db)).rows;
    assert.deepEqual(offLoop, onConnection);
    assert.deepEqual(offLoop, [
      { id: 2, name: 'b' },
      { id: 3, name: 'c' },
    ]);
  });

  it('answers as the connection does whatever the columns: none found, names given twice, nulls and blobs', async () => {
    // The threads send rows as arrays with the column names once; the objects made again must be the connection's.
    for (const query of [
      sql`select id, name from t where id > ${99}`,
      sql`select id as x, name as x from t order by id`,
      sql`select null as missing, x'00ff' as bytes, 1.5 as half, ${'é'} as text`,
    ]) {
      const onConnection = (await query.execute(handle.db)).rows.map((row) => ({ ...(row as object) }));
      assert.deepEqual(await readOffLoop(handle.db, query.compile(handle.db)), onConnection);
    }
  });

  it('sees the last commit, never the writes of a transaction still open', async () => {
    const names = async () =>
      (
        await readOffLoop(handle.db, sql<{ name: string }>`select name from t order by id`.compile(handle.db))
      ).map((r) => r.name);
    await handle.db.transaction().execute(async (trx) => {
      await sql`insert into t (name) values ('open')`.execute(trx);
      assert.deepEqual(await names(), ['a', 'b', 'c']);
    });
    assert.deepEqual(await names(), ['a', 'b', 'c', 'open']);
  });

  it('leaves the event loop free while it reads (the connection holds it)', async () => {
    const offLoop = await turnsDuring(() => readOffLoop(handle.db, longRead.compile(handle.db)));
    const onConnection = await turnsDuring(() => longRead.execute(handle.db));
    assert.ok(offLoop > 10, `the loop turned ${offLoop} times during a read off it`);
    assert.ok(onConnection <= 2, `the loop turned ${onConnection} times during a read on the connection`);
  });

  it('reads side by side: a short read is not queued behind a long one', async () => {
    // Both threads started first (the second starts when the first is busy): a thread's start
    // under a loaded machine may take longer than the long read, which is not what is tested.
    const short = sql`select 1 as one`.compile(handle.db);
    await Promise.all([readOffLoop(handle.db, longRead.compile(handle.db)), readOffLoop(handle.db, short)]);
    let longDone = false;
    const long = readOffLoop(handle.db, longRead.compile(handle.db)).then(() => {
      longDone = true;
    });
    await readOffLoop(handle.db, short);
    assert.equal(longDone, false, 'the short read waited for the long one');
    await long;
  });

  it('keeps a page cache of 4 MB per thread: room for the table pages of a page of 250 events', async () => {
    const [{ cache_size }] = (await readOffLoop(
      handle.db,
      sql<{ cache_size: number }>`pragma cache_size`.compile(handle.db),
    )) as [{ cache_size: number }];
    assert.equal(cache_size, -4096, 'in KiB (negative: a size, not a count of pages)');
  });

  it('fails a bad read alone; the next one is answered', async () => {
    await assert.rejects(
      readOffLoop(handle.db, sql`select * from no_such_table`.compile(handle.db)),
      /no such table/,
    );
    assert.equal(
      (await readOffLoop(handle.db, sql<{ n: number }>`select count(*) as n from t`.compile(handle.db)))[0]
        ?.n,
      4,
    );
  });

  it('refuses to write, even a statement that tries', async () => {
    await assert.rejects(
      readOffLoop(handle.db, sql`insert into t (name) values ('x')`.compile(handle.db)),
      /readonly|read-only|query_only/i,
    );
  });

  it('an in-memory database has none: its reads run on the connection', async () => {
    const memory = openDatabase({ sqlitePath: ':memory:', readThreads: 2 });
    try {
      assert.equal(readerThreads(memory.db), 0);
      const rows = await readOffLoop(memory.db, sql<{ seven: number }>`select 7 as seven`.compile(memory.db));
      assert.deepEqual({ ...rows[0] }, { seven: 7 });
    } finally {
      await memory.close();
    }
  });

  it('answers a column of packed occurrences unpacked, by the thread or on the connection', async () => {
    const meeting = occurrence({ providerEventId: 'e1', start: '2026-03-02T09:00:00', title: 'Café' });
    const memory = openDatabase({ sqlitePath: ':memory:' });
    try {
      for (const db of [handle.db, memory.db]) {
        await sql`create table packed (id integer primary key, data blob not null)`.execute(db);
        await sql`insert into packed (data) values (${packOccurrence(meeting)})`.execute(db);
        const rows = await readUnpackedOffLoop(
          db,
          sql<{ id: number; data: Uint8Array }>`select id, data from packed`.compile(db),
          'data',
        );
        assert.deepEqual({ ...rows[0]!.data }, meeting);
        assert.equal(rows[0]!.id, 1);
      }
    } finally {
      await memory.close();
    }
  });

  it('hands unpacked rows over unchanged: text JSON escapes, large numbers, a row without an occurrence', async () => {
    const tricky = occurrence({
      providerEventId: 'e"2\\',
      start: '2026-03-02T09:00:00',
      title: 'Quote " backslash \\ line\nbreak \u2028 tab\t emoji 😀 zero \u0000',
      description: '</script>{"not":"json"}',
    });
    await sql`create table tricky (id integer primary key, big integer, label text, data blob)`.execute(
      handle.db,
    );
    await sql`insert into tricky (id, big, label, data) values (1, ${Number.MAX_SAFE_INTEGER}, ${'x'}, ${packOccurrence(tricky)}), (2, ${-1.5}, ${null}, ${null})`.execute(
      handle.db,
    );
    assert.ok(readerThreads(handle.db) > 0);
    const rows = await readUnpackedOffLoop(
      handle.db,
      sql<{
        id: number;
        big: number;
        label: string | null;
        data: Uint8Array | null;
      }>`select id, big, label, data from tricky order by id`.compile(handle.db),
      'data',
    );
    assert.deepEqual(
      rows.map((row) => ({ ...row })),
      [
        { id: 1, big: Number.MAX_SAFE_INTEGER, label: 'x', data: tricky },
        { id: 2, big: -1.5, label: null, data: null },
      ],
    );
  });

  it('hands bytes in another column of unpacked rows over as bytes, not as what JSON makes of them', async () => {
    const meeting = occurrence({ providerEventId: 'e3', start: '2026-03-02T09:00:00', title: 'Review' });
    await sql`create table with_bytes (id integer primary key, raw blob, data blob)`.execute(handle.db);
    await sql`insert into with_bytes (raw, data) values (${Uint8Array.from([1, 2, 250])}, ${packOccurrence(meeting)})`.execute(
      handle.db,
    );
    const [row] = await readUnpackedOffLoop(
      handle.db,
      sql<{ id: number; raw: Uint8Array; data: Uint8Array }>`select id, raw, data from with_bytes`.compile(
        handle.db,
      ),
      'data',
    );
    assert.ok(row!.raw instanceof Uint8Array);
    assert.deepEqual([...row!.raw], [1, 2, 250]);
    assert.deepEqual({ ...row!.data }, meeting);
  });

  it('a thread that dies fails the reads it held, never leaves them waiting; the next read starts another', async () => {
    const readers = sqliteReaders(join(dir, 'missing', 'none.sqlite'), 1);
    try {
      await assert.rejects(readers.run('select 1', []), /unable to open/);
      await assert.rejects(readers.run('select 1', []), /unable to open/);
    } finally {
      await readers.close();
    }
  });

  it('once closed, refuses reads', async () => {
    const other = openDatabase({ sqlitePath: join(dir, 'other.sqlite'), readThreads: 1 });
    await sql`create table u (id integer)`.execute(other.db);
    await readOffLoop(other.db, sql`select * from u`.compile(other.db));
    await other.close();
    await assert.rejects(readOffLoop(other.db, sql`select * from u`.compile(other.db)), /closed/);
  });
});
