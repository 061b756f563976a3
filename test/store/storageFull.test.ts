/**
 * A full disk is `storage_full` (503, Retry-After) on both engines: SQLite's SQLITE_FULL as
 * node:sqlite reports it (mapped by the driver), PostgreSQL's disk_full (SQLSTATE 53100, mapped
 * where HTTP errors are made); other failures stay what they are.
 */
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { toAppError } from '../../src/http/errorHandling.ts';
import { despiteStorageOutage, storageFull } from '../../src/store/storageFull.ts';

/** SQLite's own answer when the database may not grow: max_page_count at its current size. */
function sqliteFull(): unknown {
  const db = new DatabaseSync(':memory:');
  db.exec('create table t (x text)');
  db.exec(
    `pragma max_page_count = ${(db.prepare('pragma page_count').get() as { page_count: number }).page_count}`,
  );
  try {
    db.prepare('insert into t values (?)').run('x'.repeat(100_000));
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  assert.fail('the insert should not fit');
}

describe('storage_full', () => {
  it('is what SQLite and PostgreSQL say when the disk is full', () => {
    const postgres = Object.assign(new Error('could not extend file: No space left on device'), {
      code: '53100',
    });
    for (const cause of [sqliteFull(), postgres]) {
      const full = storageFull(cause);
      assert.equal(full?.code, 'storage_full');
      assert.equal(full?.status, 503);
      assert.equal(full?.retryAfter, 60);
      assert.equal(full?.cause, cause, 'the engine’s own words kept for the log');
      assert.equal(toAppError(cause).code, 'storage_full');
    }
  });

  it('leaves other failures alone', () => {
    const other = [
      new Error('boom'),
      Object.assign(new Error('unique'), { errcode: 2067 }),
      { code: '23505' },
    ];
    for (const error of other) assert.equal(storageFull(error), undefined);
    assert.equal(storageFull(new AppError('conflict')), undefined);
    const already = new AppError('storage_full');
    assert.equal(storageFull(already), already);
  });

  it('is let pass, with a database gone away, where saving may be lost; nothing else is', () => {
    const full = sqliteFull();
    const lost = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    for (const error of [full, new AppError('storage_full'), lost, new AppError('service_unavailable')])
      assert.doesNotThrow(() => despiteStorageOutage(error));
    for (const error of [new Error('boom'), new AppError('conflict'), { code: '23505' }])
      assert.throws(
        () => despiteStorageOutage(error),
        (thrown) => thrown === error,
      );
  });
});
