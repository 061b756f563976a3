/**
 * A full disk under the SQLite database (a small tmpfs, filled): reads still answer from the copy
 * (no write on the read path may fail them); writes answer `storage_full` with a Retry-After,
 * nothing asked of the provider; a sync whose batch cannot be saved fails with reason
 * storage_full, its log line naming the database's own words once (not a failed rollback); once
 * there is space again everything works, and `PRAGMA integrity_check` is ok.
 * Mounting a tmpfs needs root: without it the suite skips loudly, and fails under CI=true.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import type { CalendarProvider } from '../../src/providers/port.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { eventWritesOf } from '../../src/store/eventWrites.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw, structured, toolError } from '../helpers/mcpSession.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { getEvents } from '../helpers/restClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const dir = mkdtempSync(join(tmpdir(), 'full-disk-'));

/** Why a tmpfs cannot be mounted here (said loudly; in CI it throws), or undefined once mounted. */
function mountTmpfs(): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    const problem = `a tmpfs cannot be mounted (${String((error as Error).message).split('\n')[0]})`;
    if (process.env.CI) throw new Error(`${problem}: required in CI`);
    process.stderr.write(`\n*** SKIPPING the full-disk tests: ${problem}\n\n`);
    rmdirSync(dir);
    return problem;
  }
}

const skip = mountTmpfs();
const filler = join(dir, 'filler');

/** Fills the disk to the last byte; the WAL emptied first, so that every write must grow it. */
async function fillDisk(db: DatabaseHandle['db']): Promise<void> {
  await sql`pragma wal_checkpoint(truncate)`.execute(db);
  const fd = openSync(filler, 'w');
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const window = { start: '2026-03-30T00:00:00Z', end: '2026-04-06T00:00:00Z' };

describe('a full disk under SQLite', { skip }, () => {
  let database: DatabaseHandle;
  let t: TestApp;
  let calendarId: string;
  let userId: string;
  let workspaceId: string;
  const logLines: string[] = [];
  const calendar: MemoryCalendar = {
    name: 'Work',
    timeZone: 'Europe/Berlin',
    occurrences: [occurrence({ providerEventId: 'e1', start: '2026-03-31T10:00:00', title: 'Budget' })],
  };
  const base = memoryProvider('google', new Map([['work', calendar]]));
  /** Set: the next listing fills the disk first (the sync's lease is taken, its batch cannot be saved). */
  let fillOnListing = false;
  const provider: CalendarProvider<'google'> = {
    ...base,
    listEvents: async (...args) => {
      if (fillOnListing) {
        fillOnListing = false;
        await fillDisk(database.db);
      }
      return base.listEvents(...args);
    },
  };
  const token = async (resource: 'mcp' | 'v1') =>
    (
      await grantToken(t.ctx, {
        userId,
        workspaceId,
        calendars: [{ calendarId, detailLevel: 'full' }],
        scopes: resource === 'mcp' ? ['calendar:read', 'calendar:write'] : ['calendar:read'],
        ...(resource === 'v1' ? { resource } : {}),
      })
    ).token;
  const read = async (v1Token: string) =>
    getEvents(t.app, v1Token, [
      ['calendar_id', calendarId],
      ['start', window.start],
      ['end', window.end],
    ]);
  const create = async (mcpToken: string, title: string) =>
    callToolRaw(`${t.ctx.config.baseUrl}/mcp`, mcpToken, 'create_event', {
      calendarId,
      title,
      start: '2026-04-01T09:00:00+02:00',
      end: '2026-04-01T10:00:00+02:00',
    });
  const storageFailures = () =>
    logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l.reason === 'storage_full');
  const integrity = async () =>
    (await sql<{ integrity_check: string }>`pragma integrity_check`.execute(database.db)).rows.map(
      (r) => r.integrity_check,
    );

  before(async () => {
    database = openDatabase({ sqlitePath: join(dir, 'service.db') });
    await migrateToLatest(database);
    t = await startTestApp({
      listen: true,
      database,
      logLines,
      env: { LOG_LEVEL: 'info' },
      providers: { google: provider },
      extraRoutes: (app) =>
        app.post('/test/save', async () => {
          await sql`insert into filler_rows (text) values (${'x'.repeat(100)})`.execute(database.db);
          return { saved: true };
        }),
    });
    await sql`create table filler_rows (text text)`.execute(database.db);
    userId = await seedUser(t.ctx.db, 'ana@example.org');
    workspaceId = await seedWorkspace(t.ctx.db, 'Acme', [[userId, 'owner']]);
    await savePolicy(
      t.ctx.db,
      workspaceId,
      { ...defaultPolicy, allowedScopes: ['calendar:read', 'calendar:write'] },
      0,
    );
    [calendarId] = (await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider)) as [string];
    await token('v1');
    await t.sync.runDue();
  });
  after(async () => {
    await t?.close();
    if (skip === undefined) {
      execFileSync('umount', [dir]);
      rmdirSync(dir);
    }
  });

  it('answers reads from the copy, and refuses writes with storage_full and a Retry-After', async () => {
    const v1Token = await token('v1');
    const mcpToken = await token('mcp');
    await fillDisk(database.db);

    // A first request of a new grant would note its last use: that must not fail the read.
    const answer = await read(v1Token);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      answer.body.data.map((e: { title: string }) => e.title),
      ['Budget'],
    );

    const writesBefore = (await eventWritesOf(database.db, userId)).length;
    const refused = toolError(await create(mcpToken, 'Planning'));
    assert.equal(refused.code, 'storage_full');
    assert.equal(refused.retryAfter, 60);
    assert.equal(calendar.occurrences.length, 1, 'nothing was asked of the provider');
    assert.equal((await eventWritesOf(database.db, userId)).length, writesBefore);

    const saved = await t.app.inject({ method: 'POST', url: '/test/save' });
    assert.equal(saved.statusCode, 503, saved.body);
    assert.equal(saved.headers['retry-after'], '60');
    assert.equal(JSON.parse(saved.body).code, 'storage_full');

    rmSync(filler);
    assert.equal(structured(await create(mcpToken, 'Planning')).outcome, 'applied');
    assert.deepEqual(await integrity(), ['ok']);
  });

  it('fails a sync whose batch cannot be saved with reason storage_full, logged once with its cause', async () => {
    calendar.occurrences.push(
      occurrence({ providerEventId: 'e2', start: '2026-04-02T10:00:00', title: 'Review' }),
    );
    logLines.length = 0;
    fillOnListing = true;
    assert.equal(await t.sync.syncNow(calendarId), 'failed');
    const failures = storageFailures();
    assert.equal(failures.length, 1, logLines.join('\n'));
    assert.equal(failures[0]!.msg, 'calendar sync failed');
    assert.match(String(failures[0]!.storage), /database or disk is full/);
    assert.doesNotMatch(logLines.join('\n'), /cannot rollback/);

    // The copy is as it was, and still answers.
    const v1Token = await token('v1').catch((error: unknown) => error);
    assert.equal((v1Token as { code?: string }).code, 'storage_full', 'a new grant cannot be saved either');
    rmSync(filler);
    assert.equal(await t.sync.syncNow(calendarId), 'synced');
    const answer = await read(await token('v1'));
    assert.deepEqual(
      answer.body.data.map((e: { title: string }) => e.title),
      ['Budget', 'Planning', 'Review'],
    );
    assert.deepEqual(await integrity(), ['ok']);
  });
});
