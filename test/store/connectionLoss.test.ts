/**
 * PostgreSQL connections lost: told apart from failing statements, answered as 503
 * `service_unavailable`, and dropped — idle or held by a transaction — without ending the process
 * (an 'error' event nobody listens to would), the pool connecting afresh on the next query.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { AppError } from '../../src/errors.ts';
import { isConnectionLoss } from '../../src/store/connectionLoss.ts';
import { type DatabaseHandle, openDatabase } from '../../src/store/database.ts';
import { freshPostgres, postgresSkip } from '../helpers/databases.ts';
import { freePort } from '../helpers/freePort.ts';

const skip = await postgresSkip('the PostgreSQL connection-loss tests');

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('connection loss', () => {
  it('is a lost or refused connection, a server going away; not a failing statement', () => {
    for (const lost of [
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('57P03', 'the database system is starting up'),
      withCode('08006'),
      new Error('Connection terminated unexpectedly'),
      new Error('Client has encountered a connection error and is not queryable'),
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]),
    ])
      assert.ok(isConnectionLoss(lost), String(lost));
    for (const failing of [
      withCode('23505', 'duplicate key value violates unique constraint'),
      withCode('40001'),
      withCode('53100', 'could not extend file: No space left on device'),
      new Error('boom'),
      new AggregateError([withCode('ECONNREFUSED'), new Error('boom')]),
      undefined,
      'Connection terminated',
    ])
      assert.ok(!isConnectionLoss(failing), String(failing));
  });

  it('answers 503 service_unavailable with Retry-After when the server cannot be reached', async () => {
    const handle = openDatabase({ databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/none` });
    try {
      const error = await sql`select 1`.execute(handle.db).then(
        () => assert.fail('a query without a server'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.code, 'service_unavailable');
      assert.equal(error.status, 503);
      assert.ok(error.retryAfter !== undefined && error.retryAfter >= 1);
      assert.match(String((error.cause as Error).message), /ECONNREFUSED/);
    } finally {
      await handle.close();
    }
  });
});

describe('connections ended by the server (PostgreSQL)', { skip }, () => {
  let database: DatabaseHandle & { url: string };
  let handle: DatabaseHandle;
  const lost: unknown[] = [];
  let told: () => void = () => {};

  before(async () => {
    database = await freshPostgres();
    handle = openDatabase({
      databaseUrl: database.url,
      maxConnections: 2,
      onConnectionLost: (error) => {
        lost.push(error);
        told();
      },
    });
  });
  after(async () => {
    await handle?.close();
    await database?.close();
  });

  /** Ends every connection of `handle`, from the test's other pool. */
  const terminate = async (pids: number[]) => {
    const { rows } = await sql<{ ended: boolean }>`select pg_terminate_backend(pid) as ended
      from pg_stat_activity where pid = any(${pids})`.execute(database.db);
    assert.deepEqual(
      rows.map((row) => row.ended),
      pids.map(() => true),
    );
  };
  const backendPid = async (db: DatabaseHandle['db']) =>
    (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;
  const toldNow = () => new Promise<void>((resolve) => (told = resolve));

  it('drops an idle connection the server ended, tells it once, and queries again', async () => {
    const pid = await backendPid(handle.db);
    const telling = toldNow();
    await terminate([pid]);
    await telling;
    assert.equal(lost.length, 1);
    assert.match(String((lost[0] as Error).message), /terminating connection/);
    assert.notEqual(await backendPid(handle.db), pid, 'a fresh connection');
  });

  it('drops a connection a transaction holds between its queries: the transaction fails with 503', async () => {
    lost.length = 0;
    const telling = toldNow();
    const outcome = handle.db.transaction().execute(async (trx) => {
      await terminate([await backendPid(trx)]);
      await telling;
      await sql`select 1`.execute(trx);
    });
    await assert.rejects(
      outcome,
      (error: unknown) => error instanceof AppError && error.code === 'service_unavailable',
    );
    assert.equal(lost.length, 1);
    assert.equal((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows[0]!.one, 1);
  });
});
