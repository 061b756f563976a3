/**
 * A sync writes a copy's new rows in order of their start, whatever order the provider gives its
 * items in (by id, by change): the table then holds a stretch of a calendar's time together, and
 * a page of a window's events is read from a few pages of the table rather than one page each.
 * Rows a sync staged over several batches move in together, in start order; the last batch's own
 * rows follow, in start order too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { copyKeys } from '../helpers/copiedOccurrences.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { at, batch, item, scriptedCopy, scriptedProvider } from '../helpers/scriptedSync.ts';

/** Items of one event each on the given days of March 2026, in the order given. */
const onDays = (prefix: string, days: readonly number[]) =>
  days.map((day) =>
    item(`${prefix}${day}`, [at(`2026-03-${String(day).padStart(2, '0')}T09:00:00`, `${prefix}${day}`)]),
  );

/** The day of March of each start. */
const days = (starts: readonly number[]) =>
  starts.map((ms) => Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO('UTC').day);

for (const engine of await enginesUnderTest()) {
  describe(`a copy's rows in start order (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    before(async () => {
      handle = await engine.open();
    });
    after(() => handle.close());

    /** The copy's rows' starts, in the order of their ids (the order they were written in). */
    const startsById = async (calendarId: string) => {
      const copyKey = (await copyKeys(handle.db)).get(calendarId)!;
      const rows = await handle.db
        .selectFrom('copy_occurrences')
        .select(['id', 'start_ms'])
        .where('copy_key', '=', copyKey)
        .orderBy('id')
        .execute();
      return rows.map((row) => Number(row.start_ms));
    };

    it('writes one batch latest first as earliest first', async () => {
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: onDays('a', [28, 21, 14, 7, 3, 1]), nextState: 'one' });
        },
      ]);
      const { calendarId, service } = await scriptedCopy(handle, engine.name, provider);
      await service('one').runDue();
      assert.deepEqual(days(await startsById(calendarId)), [1, 3, 7, 14, 21, 28]);
    });

    it('moves the staged rows of several batches in start order, then the last batch in its own', async () => {
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: onDays('b', [30, 12, 20]) });
          yield batch({ upserts: onDays('b', [25, 2, 16]) });
          yield batch({ upserts: onDays('b', [27, 5, 9]), nextState: 'one' });
        },
      ]);
      const { calendarId, service } = await scriptedCopy(handle, engine.name, provider);
      await service('one').runDue();
      assert.deepEqual(days(await startsById(calendarId)), [2, 12, 16, 20, 25, 30, 5, 9, 27]);
    });

    it('writes the rows of a later change in start order after those already held', async () => {
      const { provider } = scriptedProvider([
        async function* () {
          yield batch({ upserts: onDays('c', [10]), nextState: 'one' });
        },
        async function* () {
          yield batch({ full: false, upserts: onDays('c', [26, 4, 18]), nextState: 'two' });
        },
      ]);
      const { calendarId, service, clock } = await scriptedCopy(handle, engine.name, provider);
      const one = service('one');
      await one.runDue();
      clock.advance({ minutes: 10 });
      assert.equal(await one.syncNow(calendarId), 'synced');
      assert.deepEqual(days(await startsById(calendarId)), [10, 4, 18, 26]);
    });
  });
}
