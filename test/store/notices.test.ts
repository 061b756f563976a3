/**
 * Notices between instances on a real PostgreSQL: told to every listener (at commit, not before),
 * and a listener whose connection is cut connects again, says so, and hears what comes after.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/store/database.ts';
import {
  listenForNotices,
  type NoticeChannel,
  type NoticeListener,
  noticeChannels,
  noticeConnectionName,
  publishNotice,
} from '../../src/store/notices.ts';
import { freshPostgres, postgresSkip } from '../helpers/databases.ts';

const skip = await postgresSkip('the PostgreSQL notice tests');

/** A listener whose every event is a promise to wait on: no sleeps. */
function recorder(url: string) {
  const heard: Array<[NoticeChannel, string]> = [];
  const errors: unknown[] = [];
  let listenings = 0;
  const waiters: Array<() => void> = [];
  const changed = () => {
    for (const w of waiters.splice(0)) w();
  };
  const listener: NoticeListener = listenForNotices(url, {
    onNotice(channel, payload) {
      heard.push([channel, payload]);
      changed();
    },
    onListening() {
      listenings += 1;
      changed();
    },
    onError(error) {
      errors.push(error);
      changed();
    },
  });
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { heard, errors, listener, until, listenings: () => listenings };
}

describe('notices between instances (PostgreSQL)', { skip }, () => {
  let database: DatabaseHandle & { url: string };
  before(async () => {
    database = await freshPostgres();
  });
  after(() => database.close());

  it('tells every listener, and a transaction only at its commit', async () => {
    const [one, two] = [recorder(database.url), recorder(database.url)];
    try {
      await Promise.all([one.listener.listening, two.listener.listening]);
      await database.db.transaction().execute(async (trx) => {
        await publishNotice(trx, noticeChannels.grantEnded, 'grt_committed');
      });
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          await publishNotice(trx, noticeChannels.grantEnded, 'grt_rolled_back');
          throw new Error('rolled back');
        }),
      );
      await publishNotice(database.db, noticeChannels.signingKeys);
      for (const r of [one, two]) {
        await r.until(() => r.heard.length >= 2);
        assert.deepEqual(r.heard, [
          [noticeChannels.grantEnded, 'grt_committed'],
          [noticeChannels.signingKeys, ''],
        ]);
      }
    } finally {
      await Promise.all([one.listener.close(), two.listener.close()]);
    }
  });

  it('connects again when its connection is cut, says so, and hears what is told after', async () => {
    const r = recorder(database.url);
    try {
      await r.listener.listening;
      assert.equal(r.listenings(), 1);
      const { rows } = await sql<{ cut: boolean }>`select pg_terminate_backend(pid) as cut
        from pg_stat_activity where application_name = ${noticeConnectionName} and datname = current_database()`.execute(
        database.db,
      );
      assert.deepEqual(
        rows.map((row) => row.cut),
        [true],
      );
      await r.until(() => r.listenings() === 2);
      assert.equal(r.errors.length, 1, 'the loss told once');
      await publishNotice(database.db, noticeChannels.grantEnded, 'grt_after');
      await r.until(() => r.heard.length === 1);
      assert.deepEqual(r.heard, [[noticeChannels.grantEnded, 'grt_after']]);
    } finally {
      await r.listener.close();
    }
  });
});
