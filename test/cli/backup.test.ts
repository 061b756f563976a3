/**
 * `backup --to FILE`: an online copy of the embedded database that opens and holds the data, made
 * while the database is open elsewhere; an existing file is never overwritten; PostgreSQL is
 * pointed to pg_dump.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { loadSigningKeys } from '../../src/auth/signingKeys.ts';
import { runCli } from '../../src/cli/run.ts';
import { ConfigError } from '../../src/config/config.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import { loadOrCreateKeyFile } from '../../src/lib/secretKeyFile.ts';
import { openDatabase, sqlitePathIn } from '../../src/store/database.ts';

const root = mkdtempSync(join(tmpdir(), 'cas-backup-'));

async function cli(env: Record<string, string>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: { APP_ENV: 'test', ...env },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('CLI backup', () => {
  after(() => rmSync(root, { recursive: true, force: true }));
  const dataDir = join(root, 'data');
  const env = { DATA_DIR: dataDir };

  it('copies the database while it is open, into a file that opens and holds the data', async () => {
    const created = await cli(
      env,
      'user',
      'create',
      '--email',
      'ana@example.org',
      '--password',
      'a long enough secret',
    );
    assert.equal(created.code, 0, created.err);
    const userId = created.out;
    // A signing key sealed with the data folder's key file.
    const rotated = await cli(env, 'keys', 'rotate');
    assert.equal(rotated.code, 0, rotated.err);
    const kid = rotated.out;
    // The service holds the database open (WAL mode) while the backup runs.
    const running = openDatabase({ sqlitePath: sqlitePathIn(dataDir) });
    try {
      await running.db
        .updateTable('users')
        .set({ name: 'Ana while running' })
        .where('id', '=', userId)
        .execute();
      const target = join(root, 'backup.sqlite');
      const done = await cli(env, 'backup', '--to', target);
      assert.equal(done.code, 0, done.err);
      assert.match(done.out, /^Backed up to .*backup\.sqlite\. Keep .*secret\.key with it/);
      assert.equal(statSync(target).mode & 0o777, 0o600);

      const copy = new DatabaseSync(target, { readOnly: true });
      try {
        assert.deepEqual(
          { ...copy.prepare('select id, name from users').get() },
          { id: userId, name: 'Ana while running' },
        );
        assert.equal(
          (copy.prepare('pragma integrity_check').get() as { integrity_check: string }).integrity_check,
          'ok',
        );
      } finally {
        copy.close();
      }

      // Restored with its key, the signing keys open (as at a start); with another key they cannot.
      const restored = openDatabase({ sqlitePath: target });
      try {
        const key = loadOrCreateKeyFile(dataDir);
        const keys = await loadSigningKeys(restored.db, createSecretBox(key), 'test', systemClock);
        assert.deepEqual(
          keys.map((k) => k.kid),
          [kid],
        );
        await assert.rejects(
          loadSigningKeys(restored.db, createSecretBox(randomBytes(32)), 'test', systemClock),
          (e) => e instanceof ConfigError && /not the key this database was created with/.test(e.message),
        );
      } finally {
        await restored.close();
      }
    } finally {
      await running.close();
    }
  });

  it('refuses a file that exists, leaving it as it was', async () => {
    const target = join(root, 'taken.sqlite');
    writeFileSync(target, 'not yours');
    const refused = await cli(env, 'backup', '--to', target);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /^error: already_exists: .*taken\.sqlite exists already/);
    assert.equal(readFileSync(target, 'utf8'), 'not yours');
  });

  it('needs --to, and a folder that exists', async () => {
    const usage = await cli(env, 'backup');
    assert.equal(usage.code, 2);
    assert.match(usage.err, /--to is required/);
    const missing = await cli(env, 'backup', '--to', join(root, 'no', 'such', 'folder.sqlite'));
    assert.equal(missing.code, 1);
    assert.match(missing.err, /cannot be created/);
  });

  it('on PostgreSQL, points to pg_dump and writes nothing', async () => {
    const target = join(root, 'pg.sqlite');
    // Refused before any connection: no server need answer at this address.
    const refused = await cli(
      { ...env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      'backup',
      '--to',
      target,
    );
    assert.equal(refused.code, 1);
    assert.match(refused.err, /PostgreSQL: back it up with pg_dump/);
    assert.throws(() => statSync(target), { code: 'ENOENT' });
  });
});
