/** The bench's CPU counters: the PostgreSQL server's grows with the work a statement makes it do. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { postgresCpu } from '../../bench/threadCpu.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { freshPostgres, postgresSkip } from '../helpers/databases.ts';

const skip =
  process.platform !== 'linux'
    ? 'the PostgreSQL server is counted on Linux only'
    : await postgresSkip("the bench's count of the PostgreSQL server's CPU");

describe("the PostgreSQL server's CPU, as the bench counts it", { skip }, () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await freshPostgres();
  });
  after(() => handle?.close());

  it('counts what a statement costs the server', async () => {
    const before = postgresCpu();
    assert.equal(typeof before, 'number');
    // A second or so of the server's CPU: far more than the counter's tick of 10 ms.
    await sql`select count(*) from generate_series(1, 20000000)`.execute(handle.db);
    const spent = postgresCpu()! - before!;
    assert.ok(spent >= 100, `the server spent ${spent} ms`);
  });
});
