/**
 * A copy's reads are the same statements whatever their window, zone offsets or words (and page
 * sizes within a power of two, SQLite's limit being written in): SQLite parses them once. On
 * PostgreSQL every statement but the word lists' (planned with its slots: copyWords.test.ts) is
 * named (prepared once per connection), its text the same for any
 * number of calendars but a page's (one per power of two), so the names a connection holds
 * never follow the reads' calendars.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { sql } from 'kysely';
import { localOffsets } from '../../src/domain/time/localOffsets.ts';
import { type CopyQuery, copyBusy, copyPage } from '../../src/store/copyReads.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { inList, numberParameter, q, reused } from '../../src/store/reusedStatements.ts';
import { enginesUnderTest } from '../helpers/databases.ts';

const day = 86_400_000;

/** A read of January or of February (each one offset step in Berlin), with or without words. */
const read = (month: 1 | 2, words?: string[]): CopyQuery => {
  const start = Date.UTC(2026, month - 1, 1);
  const end = Date.UTC(2026, month - 1, 28);
  return {
    calendarId: `cal_${month}`,
    copyKey: month,
    window: { startNs: BigInt(start) * 1_000_000n, endNs: BigInt(end) * 1_000_000n },
    longestMs: month * 3_600_000,
    offsets: localOffsets('Europe/Berlin', { startMs: start - day, endMs: end + day }),
    ...(words === undefined ? {} : { search: { words, level: 'full', privateDetails: false } }),
  };
};

for (const engine of await enginesUnderTest()) {
  describe(`a copy's reads are statements reused (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    before(async () => {
      handle = await engine.open();
    });
    after(() => handle.close());

    it('sends the same text for every window, zone offset and word, and page sizes up to one power of two', async () => {
      const texts: string[] = [];
      const capture: KyselyPlugin = {
        transformQuery: ({ node, queryId }) => {
          texts.push(handle.db.getExecutor().compileQuery(node, queryId).sql);
          return node;
        },
        transformResult: async ({ result }) => result,
      };
      const db = handle.db.withPlugin(capture);
      const shapes = async (query: CopyQuery, busy = false) => {
        texts.length = 0;
        if (busy) await copyBusy(db, [query], true);
        else await copyPage(db, [query], 40 + query.longestMs / 3_600_000);
        return [...texts];
      };
      assert.deepEqual(await shapes(read(2)), await shapes(read(1)));
      assert.deepEqual(await shapes(read(2, ['plans'])), await shapes(read(1, ['budget'])));
      assert.deepEqual(await shapes(read(2), true), await shapes(read(1), true));
      assert.ok(texts.every((text) => text.startsWith('/* reused */')));
    });

    it('writes the text and parameters Kysely compiles from the same pieces, and the rows are the same', async () => {
      const noOp: KyselyPlugin = {
        transformQuery: ({ node }) => node,
        transformResult: async ({ result }) => result,
      };
      const ids = ['a', "b'; --", 'c'];
      const columns = q.join([q`x.id`, q`${'é'} as text`, q`${numberParameter(41)} + 1 as n`]);
      const statement = q<{
        id: string;
        text: string;
        n: number;
      }>`select ${columns} from (select value as id from json_each(${JSON.stringify(ids)})) as x where x.id ${inList(handle.db, ids.slice(1), 'text')} and ${q.ref('x.id')} <> ${q.raw("'z'")} order by x.id limit ${q.lit(5)}`;
      // PostgreSQL has no json_each: the same pieces over its own function.
      const portable =
        engine.name === 'postgres'
          ? q<{
              id: string;
              text: string;
              n: number;
            }>`select ${columns} from (select value as id from json_array_elements_text(cast(${JSON.stringify(ids)} as json))) as x where x.id ${inList(handle.db, ids.slice(1), 'text')} and ${q.ref('x.id')} <> ${q.raw("'z'")} order by x.id limit ${q.lit(5)}`
          : statement;
      const direct = reused(handle.db, portable);
      const compiled = reused(handle.db.withPlugin(noOp), portable);
      assert.equal(direct.sql, compiled.sql);
      assert.deepEqual(direct.parameters, compiled.parameters);
      assert.ok(direct.sql.startsWith('/* reused */ select x.id, '));
      assert.equal(direct.parameters.length, 4);
      const rows = (await handle.db.executeQuery(direct)).rows.map((row) => ({ ...row, n: Number(row.n) }));
      assert.deepEqual(rows, [
        { id: "b'; --", text: 'é', n: 42 },
        { id: 'c', text: 'é', n: 42 },
      ]);
      assert.throws(() => q.lit(1.5), /not a whole number/);
      assert.throws(() => q.lit(2 ** 53), /not a whole number/);
      // A name holding a quote stays one name; pieces joined by a separator of their own.
      const quoted = reused(
        handle.db,
        q<{
          'a"b': number;
          c: number;
        }>`select ${q.join([q`1 as ${q.ref('a"b')}`, q`${numberParameter(2)} as c`], q` , `)}`,
      );
      assert.match(quoted.sql, /1 as "a""b" , cast/);
      const [row] = (await handle.db.executeQuery(quoted)).rows;
      assert.deepEqual({ ...row, c: Number(row!.c) }, { 'a"b': 1, c: 2 });
    });

    if (engine.name === 'postgres')
      it('names a statement per power of two of calendars at most: never one per number of calendars', async () => {
        const named = await handle.db.transaction().execute(async (trx) => {
          const count = async () =>
            Number(
              (
                await sql<{
                  n: number;
                }>`select count(*) as n from pg_prepared_statements where name like 'reused_%'`.execute(trx)
              ).rows[0]!.n,
            );
          // One connection (the transaction's): reads of three calendars, then of four, then of five.
          const reads = async (count: number) => {
            const calendarIds = Array.from({ length: count }, (_, i) => `cal_${i}`);
            const inJanuary = (words?: string[]) =>
              calendarIds.map((calendarId) => ({ ...read(1, words), calendarId }));
            await copyBusy(trx, inJanuary(), true);
            await copyPage(trx, inJanuary(), 10);
            await copyPage(trx, inJanuary(['budget']), 10);
          };
          await reads(3);
          const three = await count();
          await reads(4);
          const four = await count();
          await reads(5);
          return { three, four, five: await count() };
        });
        assert.ok(named.three > 0);
        assert.equal(named.four, named.three);
        assert.equal(named.five, named.four + 1, "a page's branches for up to eight calendars");
      });
  });
}
