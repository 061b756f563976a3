/**
 * A sync's statements read a copy's rows a bounded number of times whatever the engine's
 * statistics say. A copy made since PostgreSQL last analyzed its tables is unknown to them (its
 * number is new: ~1 row estimated); a first sync's "rows of the items a select names" was then
 * planned as a loop reading the select's rows again for every row of the copy — a calendar of
 * 1,000 events read a million rows of `copy_items` at its end, ~200 ms of the server for every
 * calendar of a new account. Each such statement is explained (with ANALYZE, on the state the
 * sync left) and the rows its plan touched are counted.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, type RootOperationNode, sql } from 'kysely';
import { createEventIds } from '../../src/calendars/eventIds.ts';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import { type AppliedBatch, applyBatch } from '../../src/store/copyBatches.ts';
import { reconcileCopies } from '../../src/store/copyMembership.ts';
import { type DatabaseHandle, migrateToLatest } from '../../src/store/database.ts';
import { capturing } from '../helpers/capturedStatements.ts';
import { copyHolding } from '../helpers/copiedOccurrences.ts';
import { freshPostgres, postgresSkip } from '../helpers/databases.ts';
import { occurrence } from '../helpers/memoryCalendars.ts';
import { seedCalendars, seedReadGrant, seedUser, seedWorkspace } from '../helpers/seed.ts';

const skip = await postgresSkip('the plans of a first sync on PostgreSQL');
const ids = createEventIds(randomBytes(32));
const events = 300;

const occurrences = (prefix: string) =>
  Array.from({ length: events }, (_, i) =>
    occurrence({
      providerEventId: `${prefix}-${i}`,
      title: `Meeting ${i}`,
      start: `2026-03-${String(1 + (i % 28)).padStart(2, '0')}T09:00:00`,
      timeZone: 'Europe/Berlin',
    }),
  );

interface PlanNode {
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows a plan's nodes produced or passed over, each node's per loop times its loops. */
function rowsTouched(node: PlanNode): number {
  const perLoop =
    node['Actual Rows'] +
    (node['Rows Removed by Filter'] ?? 0) +
    (node['Rows Removed by Index Recheck'] ?? 0);
  return (
    perLoop * node['Actual Loops'] + (node.Plans ?? []).reduce((sum, child) => sum + rowsTouched(child), 0)
  );
}

/**
 * Explains (with ANALYZE) each select among `nodes` on the state the sync left and requires
 * that it touched at most a few rows for every row the copies hold; the selects' texts.
 */
async function boundedSelects(db: DatabaseHandle['db'], nodes: RootOperationNode[]): Promise<string[]> {
  const selects = nodes
    .map((node) => db.getExecutor().compileQuery(node, { queryId: 'plan' }))
    .filter((compiled) => /^\s*select/i.test(compiled.sql));
  for (const compiled of selects) {
    const explained = await db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      CompiledQuery.raw(`explain (analyze, format json, timing off, summary off) ${compiled.sql}`, [
        ...compiled.parameters,
      ]),
    );
    const plan = explained.rows[0]!['QUERY PLAN'][0].Plan;
    // The copy's rows, its items and a select's keys: each read once or twice is a few times
    // `events`; read again for every row it is `events` squared.
    assert.ok(
      rowsTouched(plan) <= 6 * events,
      `${compiled.sql}\ntouched ${rowsTouched(plan)} rows: ${JSON.stringify(plan)}`,
    );
  }
  return selects.map((compiled) => compiled.sql);
}

describe('a first sync on PostgreSQL, its copy unknown to the statistics', { skip }, () => {
  let handle: DatabaseHandle;
  let known: string;
  let fresh: string;

  before(async () => {
    handle = await freshPostgres();
    await migrateToLatest(handle);
    const userId = await seedUser(handle.db, 'plans@example.org');
    const owner = { userId, workspaceId: await seedWorkspace(handle.db, 'Plans', [[userId, 'owner']]) };
    [known, fresh] = (await seedCalendars(handle.db, owner, [{ name: 'Known' }, { name: 'Fresh' }])) as [
      string,
      string,
    ];
    await seedReadGrant(handle.db, owner, [known, fresh]);
    await reconcileCopies(handle.db, 0);
    // One copy held and analyzed: the statistics know its number, not the other's.
    await copyHolding(handle.db, ids, known, occurrences('known'));
    await sql`analyze`.execute(handle.db);
  });
  after(() => handle?.close());

  const all = occurrences('fresh');
  const upserts = (part: readonly ProviderOccurrence[], version = '1'): AppliedBatch['upserts'] =>
    part.map((o) => ({ key: o.providerEventId, version, occurrences: [o] }));
  const end = { state: 'position', horizon: { start: 0, end: 4e12 }, nextSyncAt: 4e12 };
  /** A batch of the fresh copy's sync, its lease taken first (a batch with an end releases it). */
  const apply = async (db: DatabaseHandle['db'], fields: Partial<AppliedBatch>) => {
    await db
      .updateTable('calendar_copies')
      .set({ lease_owner: 'test', lease_until: Number.MAX_SAFE_INTEGER })
      .where('calendar_id', '=', fresh)
      .execute();
    return applyBatch(db, {
      calendarId: fresh,
      owner: 'test',
      ids,
      now: 1,
      leaseMs: 60_000,
      full: true,
      upserts: [],
      removals: [],
      skipped: [],
      bytes: { spent: 0, limit: 1e9 },
      ...fields,
    });
  };

  it('reads the rows of its items a few times over, not once for every row', async () => {
    const { nodes, capture } = capturing();
    const db = handle.db.withPlugin(capture);
    // Staged, then moved in with the last batch, which sweeps what the sync did not see.
    const first = await apply(db, { upserts: upserts(all.slice(0, events / 2)), stage: 'first' });
    await apply(db, {
      runGeneration: first.generation,
      copied: first.copied,
      upserts: upserts(all.slice(events / 2)),
      swap: true,
      end,
    });
    const selects = await boundedSelects(handle.db, nodes);
    assert.ok(
      selects.filter((text) => /from "copy_occurrences" where .*"item_key"/.test(text)).length >= 2,
      'the swap and the sweep read the rows of items',
    );
  });

  it('and so do its next syncs, incremental and full', async () => {
    const { nodes, capture } = capturing();
    const db = handle.db.withPlugin(capture);
    // A third renamed, ten removed.
    const renamed: ProviderOccurrence[] = all
      .slice(0, events / 3)
      .map((o) => ({ ...o, title: `${o.title} (moved)` }));
    const removed = all.slice(-10);
    await apply(db, {
      full: false,
      upserts: upserts(renamed, '2'),
      removals: removed.map((o) => o.providerEventId),
      end,
    });
    // A full sync that sees all but the first tenth: what it holds as it is dropped from the
    // staging, the rest moved in, the unseen swept.
    const seen = [...renamed.slice(events / 10), ...all.slice(events / 3, -10)];
    const versionOf = (o: ProviderOccurrence) => (renamed.includes(o) ? '2' : '1');
    const part = (from: number, to: number) =>
      seen.slice(from, to).flatMap((o) => upserts([o], versionOf(o)));
    const first = await apply(db, { upserts: part(0, seen.length / 2), stage: 'first' });
    await apply(db, {
      runGeneration: first.generation,
      copied: first.copied,
      upserts: part(seen.length / 2, seen.length),
      swap: true,
      end,
    });
    const held = await handle.db
      .selectFrom('calendar_copies')
      .select('items')
      .where('calendar_id', '=', fresh)
      .executeTakeFirstOrThrow();
    assert.equal(Number(held.items), seen.length, 'the copy holds what the full sync saw');
    await boundedSelects(handle.db, nodes);
  });
});
