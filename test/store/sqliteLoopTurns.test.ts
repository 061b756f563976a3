/**
 * `node:sqlite` answers at once, so statements awaited one after another settle as microtasks:
 * without a turn between them, a transaction of many would hold the event loop throughout
 * (store/nodeSqliteDialect.ts gives one after each slice of work).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/database.ts';

/** A statement of a few milliseconds. */
const someWork = sql`with recursive r(i) as (select 1 union all select i + 1 from r where i < 50000) select count(*) from r`;

describe('the SQLite connection and the event loop', () => {
  it('gives the loop turns during a transaction of many statements', async () => {
    const handle = openDatabase({ sqlitePath: ':memory:' });
    try {
      let turns = 0;
      let going = true;
      const turn = () => {
        turns += 1;
        if (going) setImmediate(turn);
      };
      const started = performance.now();
      setImmediate(turn);
      let statements = 0;
      await handle.db.transaction().execute(async (trx) => {
        // Past several slices of work, however busy the machine: 100 ms and 20 statements.
        while (performance.now() - started < 100 || statements < 20) {
          await someWork.execute(trx);
          statements += 1;
        }
      });
      going = false;
      assert.ok(turns >= 3, `the loop turned ${turns} times in ${statements} statements`);
    } finally {
      await handle.close();
    }
  });
});
