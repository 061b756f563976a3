/**
 * What a sync writes to a copy: each batch in one transaction that also proves the sync still
 * holds the lease, so a copy is never written by two syncs at once. A sync of several batches
 * stages all but its last aside; the last moves them in with itself, so readers see the copy as
 * the previous complete sync left it until the next one is complete. A failure is counted, the
 * copy left as it was and what the sync staged cleared.
 */
import {
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
  type Transaction,
} from 'kysely';
import { syncBoundExceeded } from '../domain/budget.ts';
import type { DetailLevel } from '../domain/detailLevels.ts';
import { type EventIds, itemIds, sealedIds } from '../domain/occurrences.ts';
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import { forCopy } from '../domain/visibility.ts';
import { copyKeyOf } from './calendarCopies.ts';
import { LeaseLost } from './copyLeases.ts';
import { indexedColumns, indexedRows, indexRows, rebuildWords, vocabularyOverGrown } from './copyWords.ts';
import { engineOf } from './database.ts';
import { packOccurrence } from './packedOccurrence.ts';
import { insertRows } from './rowsInsert.ts';
import { type CopyOccurrencesTable, type Database, flag, statusCodes } from './schema.ts';
import { type IndexedRow, indexedText } from './wordPostings.ts';

type Db = Kysely<Database>;
type Trx = Transaction<Database>;

export interface AppliedBatch {
  calendarId: string;
  owner: string;
  /** Seals the occurrences' ids as they are copied: reads return them as they are. */
  ids: EventIds;
  now: number;
  leaseMs: number;
  full: boolean;
  upserts: { key: string; version: string; occurrences: ProviderOccurrence[] }[];
  removals: string[];
  skipped: { key: string; reason: string }[];
  /** The generation this sync's first full batch started; undefined before it. */
  runGeneration?: number;
  /**
   * A batch of a sync with more to come: staged, seen by no reader. `first` clears what an
   * interrupted sync left staged.
   */
  stage?: 'first' | 'more';
  /** The last batch of a sync that staged others: they are moved in with it. */
  swap?: boolean;
  /** What the copy held (level, private details) at the sync's first batch: changed since, the sync stops. */
  copied?: string;
  /** Bytes the sync has copied before this batch, and may copy in all. */
  bytes: { spent: number; limit: number };
  /** On the last batch: the position, the horizon synced, and when the next sync is due. */
  end?: { state: string; horizon: { start: number; end: number }; nextSyncAt: number };
}

export interface WrittenBatch {
  /** The generation the batch wrote (a full sync's first batch starts a new one). */
  generation: number;
  /** The bytes of the occurrences it copied, as stored (packed). */
  bytes: number;
  /** What the copy holds (level, private details), for the next batches' `copied`. */
  copied: string;
  /** Rows of copy_occurrences (the read index's table) the batch wrote or removed. */
  rowsChanged: number;
}

/**
 * Applies one batch in one transaction: the lease is renewed (or the batch refused with
 * LeaseLost), items are replaced with their occurrences (in the staging tables for a batch with
 * more to come), removals deleted; the last batch moves in what the sync staged, saves the
 * position, and for a full sync removes what it did not see.
 */
export async function applyBatch(db: Db, batch: AppliedBatch): Promise<WrittenBatch> {
  return db.transaction().execute(async (trx) => {
    const renewed = await trx
      .updateTable('calendar_copies')
      .set({ lease_until: batch.now + batch.leaseMs })
      .where('calendar_id', '=', batch.calendarId)
      .where('lease_owner', '=', batch.owner)
      .returning([
        'level',
        'private_details',
        'generation',
        'staged_items',
        'horizon_start',
        'horizon_end',
        'copy_key',
      ])
      .executeTakeFirst();
    if (renewed === undefined) throw new LeaseLost();
    // The copy's items, their staging and its rows' link to them are keyed by its number.
    const copyKey = renewed.copy_key;
    const copied = { level: renewed.level as DetailLevel, privateDetails: flag(renewed.private_details) };
    const copiedKey = `${copied.level} ${copied.privateDetails}`;
    // The grants changed what the copy holds while this sync ran: what it staged holds the old.
    if (batch.copied !== undefined && batch.copied !== copiedKey) throw new LeaseLost();
    let generation = batch.runGeneration ?? renewed.generation;
    if (batch.full && batch.runGeneration === undefined) {
      generation = renewed.generation + 1;
      await trx
        .updateTable('calendar_copies')
        .set({ generation })
        .where('calendar_id', '=', batch.calendarId)
        .execute();
    }
    let bytes = 0;
    const rows = batch.upserts.flatMap((u) => {
      const ids = itemIds(batch.ids);
      return u.occurrences.map((o) => {
        const row = occurrenceRow(batch.calendarId, copyKey, u.key, o, copied, ids);
        bytes += row.data.length;
        return row;
      });
    });
    if (batch.bytes.spent + bytes > batch.bytes.limit) throw syncBoundExceeded('bytes', batch.bytes.limit);
    const items = [
      ...batch.upserts.map((u) => ({ key: u.key, version: u.version, skipped: null })),
      ...batch.skipped.map((s) => ({ key: s.key, version: '', skipped: s.reason })),
    ];
    if (batch.stage !== undefined) {
      await stageBatch(trx, batch, copyKey, { generation, items, rows });
      return { generation, bytes, copied: copiedKey, rowsChanged: 0 };
    }
    // The word index follows the rows in this transaction, changed once at its end.
    const swapped =
      batch.swap === true ? await swapStaged(trx, copyKey, batch.full ? generation : undefined) : undefined;
    const moved = swapped !== undefined;

    // What the copy already holds as it is now is left alone: a sync that changed nothing writes nothing.
    const unchanged = await unchangedItems(trx, batch, copyKey, items, rows);
    const changed = items.filter((item) => !unchanged.has(item.key));
    if (batch.full && unchanged.size > 0) await markSeen(trx, copyKey, [...unchanged], generation);
    const keys = [...changed.map((item) => item.key), ...batch.removals];
    // The counts move by what the batch replaced, so a sync of one change reads no other item.
    const replaced = { items: 0, skipped: 0 };
    const removed: ReplacedRow[] = [];
    for (let i = 0; i < keys.length; i += 500) {
      removed.push(...(await rowsOfItems(trx, copyKey, keys.slice(i, i + 500))));
      const gone = await trx
        .deleteFrom('copy_items')
        .where('copy_key', '=', copyKey)
        .where('item_key', 'in', keys.slice(i, i + 500))
        .returning('skipped_reason')
        .execute();
      replaced.items += gone.length;
      replaced.skipped += gone.filter((row) => row.skipped_reason !== null).length;
    }
    for (let i = 0; i < changed.length; i += 200)
      await insertRows(
        trx,
        'copy_items',
        itemColumns,
        changed.slice(i, i + 200).map((item) => itemRow(copyKey, item, generation)),
      );
    const written = rows.filter((row) => !unchanged.has(row.item_key));
    let longest = 0;
    for (const row of written) longest = Math.max(longest, row.end_ms - row.start_ms);
    const added: IndexedRow[] = [];
    // A row written again (the same occurrence of the same item, at the same times) keeps its
    // id: the word index then changes only where its words did — a renamed event touches its
    // title's lists alone. Its times unchanged, a place a read took from the old row before this
    // write is the new row's place too.
    const replacedIds = idsByOccurrence(removed);
    const again: (OccurrenceRow & { id: number })[] = [];
    const fresh: OccurrenceRow[] = [];
    for (const row of written) {
      const id = replacedIds.get(occurrenceKey(row))?.pop();
      if (id === undefined) fresh.push(row);
      else again.push({ ...row, id });
    }
    for (let i = 0; i < again.length; i += 100)
      await insertRows(trx, 'copy_occurrences', ['id', ...occurrenceColumns], again.slice(i, i + 100));
    added.push(...again);
    inStartOrder(fresh);
    for (let i = 0; i < fresh.length; i += 100) {
      const chunk = fresh.slice(i, i + 100);
      // The ids, matched to the rows by occurrence id, whose texts are here already; should two
      // rows share one, their texts are folded again from what was written.
      const byOccurrence = new Map(chunk.map((row) => [row.occurrence_id, row]));
      const shared = byOccurrence.size < chunk.length;
      const ids = await insertRows<OccurrenceRow, { id: number; occurrence_id: string } & IndexedColumns>(
        trx,
        'copy_occurrences',
        occurrenceColumns,
        chunk,
        { returning: shared ? indexedColumns : ['id', 'occurrence_id'] },
      );
      if (shared) added.push(...indexedRows(ids));
      else for (const { id, occurrence_id } of ids) added.push({ ...byOccurrence.get(occurrence_id)!, id });
    }
    const index = swapped === undefined ? { added, removed } : afterSwap(swapped, { added, removed });
    const changedSkipped = changed.filter((item) => item.skipped !== null).length;
    const set: Record<string, unknown> = {
      longest_ms: sql`case when longest_ms < ${longest} then ${longest} else longest_ms end`,
      items: sql`items + ${changed.length - replaced.items}`,
      skipped: sql`skipped + ${changedSkipped - replaced.skipped}`,
    };
    // Readers' version moves only when what they see does: items written or removed, staged ones
    // moved in, a new horizon.
    let shown = changed.length > 0 || replaced.items > 0 || moved;
    if (batch.end !== undefined) {
      if (batch.full) {
        const unseen = trx
          .selectFrom('copy_items')
          .select('item_key')
          .where('copy_key', '=', copyKey)
          .where('generation', '<', generation);
        // A loop, not a spread: a sweep may take a whole calendar's rows.
        for (const row of await rowsOfItems(trx, copyKey, unseen)) index.removed.push(row);
        const swept = await trx
          .deleteFrom('copy_items')
          .where('copy_key', '=', copyKey)
          .where('generation', '<', generation)
          .executeTakeFirst();
        const { start, end } = batch.end.horizon;
        shown ||=
          Number(swept.numDeletedRows) > 0 ||
          Number(renewed.horizon_start) !== start ||
          Number(renewed.horizon_end) !== end;
        set.horizon_start = start;
        set.horizon_end = end;
      }
      if (batch.full || batch.swap) {
        // Many items changed at once: counted anew, as the sync has just read them all anyway.
        const span = await trx
          .selectFrom('copy_occurrences')
          .select(sql<number>`coalesce(max(end_ms - start_ms), 0)`.as('longest'))
          .where('copy_key', '=', copyKey)
          .executeTakeFirstOrThrow();
        set.longest_ms = Number(span.longest);
        const counts = await trx
          .selectFrom('copy_items')
          .select([sql<number>`count(*)`.as('items'), sql<number>`count(skipped_reason)`.as('skipped')])
          .where('copy_key', '=', copyKey)
          .executeTakeFirstOrThrow();
        set.items = Number(counts.items);
        set.skipped = Number(counts.skipped);
      }
      // Whatever an interrupted sync left staged goes with the next that completes (a sync of one
      // batch, the most common, finds nothing staged and skips the statement).
      if (batch.swap || Number(renewed.staged_items) > 0)
        await trx.deleteFrom('copy_staged_items').where('copy_key', '=', copyKey).execute();
      Object.assign(set, {
        sync_state: batch.end.state,
        synced_at: batch.now,
        next_sync_at: batch.end.nextSyncAt,
        failures: 0,
        failure_reason: null,
        lease_owner: null,
        lease_until: null,
        staged_items: 0,
      });
    }
    await indexRows(trx, batch.calendarId, index.added, index.removed);
    if (shown) set.version = sql`version + 1`;
    await trx.updateTable('calendar_copies').set(set).where('calendar_id', '=', batch.calendarId).execute();
    if (batch.end !== undefined && (await vocabularyOverGrown(trx, batch.calendarId)))
      await rebuildWords(trx, batch.calendarId);
    return {
      generation,
      bytes,
      copied: copiedKey,
      rowsChanged: index.added.length + index.removed.length,
    };
  });
}

type ItemRow = { key: string; version: string; skipped: string | null };

/**
 * New rows are written in order of their start: rows lie in the table about as they are written
 * (SQLite by id; PostgreSQL at the table's end, or where vacuum left room), so each copy's rows of
 * a stretch of time then lie together, and a page of a window's events is read from a few pages
 * of the table. In a provider's order (by id or by change, times all over the horizon) each lay on
 * a page of its own: on PostgreSQL a person's first page of events after 50 others read ~310
 * pages its buffers did not hold; in start order, 24–37. A layout, never a rule reads rely on.
 */
function inStartOrder(rows: OccurrenceRow[]): void {
  rows.sort((a, b) => a.start_ms - b.start_ms);
}

/** Rows a batch adds to the word index and rows it takes out. */
interface IndexChange {
  added: IndexedRow[];
  removed: IndexedRow[];
}

/**
 * The index's part of a batch that moved staged rows in: the swap's and the batch's as one change
 * (else the last batch of a first sync merges into nearly every list the swap has just written).
 * A row moved in and replaced by the same batch was never listed: neither added nor removed.
 */
function afterSwap(swapped: IndexChange, batch: IndexChange): IndexChange {
  const replacedNow = new Set(batch.removed.map((row) => row.id));
  const movedIn = new Set(swapped.added.map((row) => row.id));
  return {
    added: [...swapped.added.filter((row) => !replacedNow.has(row.id)), ...batch.added],
    removed: [...swapped.removed, ...batch.removed.filter((row) => !movedIn.has(row.id))],
  };
}

/** A row about to be replaced: what the word index needs, and which occurrence of which item it was, when. */
type ReplacedRow = IndexedRow & {
  item_key: string;
  occurrence_id: string;
  end_ms: number | string;
};

const occurrenceKey = (row: {
  item_key: string;
  occurrence_id: string;
  start_ms: number | string;
  end_ms: number | string;
  floating: number;
}) =>
  `${row.occurrence_id}\n${row.item_key}\n${Number(row.start_ms)} ${Number(row.end_ms)} ${Number(row.floating)}`;

/** The ids of replaced rows by occurrence, item and times (should two rows share them, each id once). */
function idsByOccurrence(rows: readonly ReplacedRow[]): Map<string, number[]> {
  const ids = new Map<string, number[]>();
  for (const row of rows) {
    const key = occurrenceKey(row);
    const list = ids.get(key);
    if (list === undefined) ids.set(key, [row.id]);
    else list.push(row.id);
  }
  return ids;
}

type ItemKeys = SelectQueryBuilder<Database, 'copy_items' | 'copy_staged_items', { item_key: string }>;

/**
 * `item_key` among the keys a select gives. On PostgreSQL the select runs once, into an array
 * the index is searched with: as `in (select …)` it is a semi-join, planned from statistics that
 * know nothing of a copy made since the tables were last analyzed (~1 row estimated), and the
 * plan chosen then read the select's rows again for every row of the copy — a first sync's
 * sweep of a 1,000-event calendar read a million rows.
 */
const itemKeyAmong = (
  trx: Trx,
  eb: ExpressionBuilder<Database, 'copy_occurrences' | 'copy_items'>,
  keys: ItemKeys,
): Expression<SqlBool> =>
  engineOf(trx) === 'postgres'
    ? sql<SqlBool>`${sql.ref('item_key')} = any(array(${keys}))`
    : eb('item_key', 'in', keys);

/** The copy's rows of the items named (a list, or a select of keys), as the word index needs them. */
async function rowsOfItems(
  trx: Trx,
  copyKey: number,
  keys: readonly string[] | ItemKeys,
): Promise<ReplacedRow[]> {
  return indexedRows(
    await trx
      .selectFrom('copy_occurrences')
      .select([...indexedColumns, 'item_key', 'occurrence_id', 'end_ms'])
      .where('copy_key', '=', copyKey)
      .where((eb) =>
        Array.isArray(keys) ? eb('item_key', 'in', keys) : itemKeyAmong(trx, eb, keys as ItemKeys),
      )
      .execute(),
  );
}

/**
 * The items of a batch the copy already holds as they are: the same version (or the same reason
 * to skip). An incremental sync trusts the version, as the level and horizon are those the copy
 * was made with; a full sync may follow a raised level or a horizon moved on, where the same
 * version is copied differently, so there the rows themselves must be the same too.
 */
async function unchangedItems(
  trx: Trx,
  batch: AppliedBatch,
  copyKey: number,
  items: ItemRow[],
  rows: OccurrenceRow[],
): Promise<Set<string>> {
  const held = new Map<string, { version: string; skipped: string | null }>();
  for (let i = 0; i < items.length; i += 500) {
    const found = await trx
      .selectFrom('copy_items')
      .select(['item_key', 'version', 'skipped_reason'])
      .where('copy_key', '=', copyKey)
      .where(
        'item_key',
        'in',
        items.slice(i, i + 500).map((item) => item.key),
      )
      .execute();
    for (const row of found) held.set(row.item_key, { version: row.version, skipped: row.skipped_reason });
  }
  const same = items.filter((item) => {
    const was = held.get(item.key);
    return was !== undefined && was.version === item.version && was.skipped === item.skipped;
  });
  if (!batch.full || same.length === 0) return new Set(same.map((item) => item.key));
  const fresh = rowsByItem(rows);
  const stored = new Map<string, string[]>();
  for (let i = 0; i < same.length; i += 500) {
    const found = await trx
      .selectFrom('copy_occurrences')
      .selectAll()
      .where('copy_key', '=', copyKey)
      .where(
        'item_key',
        'in',
        same.slice(i, i + 500).map((item) => item.key),
      )
      .execute();
    for (const [key, texts] of rowsByItem(found)) stored.set(key, texts);
  }
  const equal = (a: string[] = [], b: string[] = []) =>
    a.length === b.length && a.every((t, k) => t === b[k]);
  return new Set(
    same.filter((item) => equal(fresh.get(item.key), stored.get(item.key))).map((item) => item.key),
  );
}

/** Each item's occurrence rows as comparable texts (the copied columns), in one order. */
function rowsByItem(rows: readonly Record<string, unknown>[]): Map<string, string[]> {
  const columns = [...occurrenceColumns].sort();
  // The engines give numbers, bigints, numeric strings, booleans and bytes back in their own ways.
  const plain = (value: unknown) =>
    typeof value === 'boolean'
      ? String(Number(value))
      : value === null
        ? null
        : value instanceof Uint8Array
          ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')
          : String(value);
  const byItem = new Map<string, string[]>();
  for (const row of rows) {
    const key = String(row.item_key);
    const text = JSON.stringify(columns.map((column) => plain(row[column])));
    const list = byItem.get(key);
    if (list === undefined) byItem.set(key, [text]);
    else list.push(text);
  }
  for (const list of byItem.values()) list.sort();
  return byItem;
}

/** A full sync's unchanged items: counted as seen by it (its generation), so it does not remove them. */
async function markSeen(trx: Trx, copyKey: number, keys: string[], generation: number): Promise<void> {
  for (let i = 0; i < keys.length; i += 500) {
    await trx
      .updateTable('copy_items')
      .set({ generation })
      .where('copy_key', '=', copyKey)
      .where('item_key', 'in', keys.slice(i, i + 500))
      .execute();
  }
}

/** A batch with more to come, written to the staging tables (a later batch's item replaces an earlier one's). */
async function stageBatch(
  trx: Trx,
  batch: AppliedBatch,
  copyKey: number,
  written: {
    generation: number;
    items: { key: string; version: string; skipped: string | null }[];
    rows: OccurrenceRow[];
  },
): Promise<void> {
  if (batch.stage === 'first')
    await trx.deleteFrom('copy_staged_items').where('copy_key', '=', copyKey).execute();
  const held = new Set(written.items.map((item) => item.key));
  const removals = [...new Set(batch.removals)].filter((key) => !held.has(key));
  const staged = [...written.items, ...removals.map((key) => ({ key, version: null, skipped: null }))];
  let replaced = 0;
  for (let i = 0; i < staged.length; i += 500) {
    const gone = await trx
      .deleteFrom('copy_staged_items')
      .where('copy_key', '=', copyKey)
      .where(
        'item_key',
        'in',
        staged.slice(i, i + 500).map((item) => item.key),
      )
      .executeTakeFirst();
    replaced += Number(gone.numDeletedRows);
  }
  for (let i = 0; i < staged.length; i += 200)
    await insertRows(
      trx,
      'copy_staged_items',
      itemColumns,
      staged.slice(i, i + 200).map((item) => itemRow(copyKey, item, written.generation)),
    );
  for (let i = 0; i < written.rows.length; i += 100)
    await insertRows(trx, 'copy_staged_occurrences', stagedColumns, written.rows.slice(i, i + 100));
  // Counted with removals: a first sync's progress (it has none), and a sign that rows wait here.
  const added = staged.length - replaced;
  await trx
    .updateTable('calendar_copies')
    .set({ staged_items: batch.stage === 'first' ? added : sql`staged_items + ${added}` })
    .where('calendar_id', '=', batch.calendarId)
    .execute();
}

/**
 * What the sync staged replaces the copy's items of the same keys, set-based (no row passes
 * through here), except what the copy already holds as it is; the rows moved in and out, for the
 * word index (undefined: nothing was moved). `seenBy`: a full sync's generation, given to the
 * unchanged items it leaves in place.
 */
async function swapStaged(
  trx: Trx,
  copyKey: number,
  seenBy: number | undefined,
): Promise<IndexChange | undefined> {
  if (!(await dropUnchangedStaged(trx, copyKey, seenBy))) return undefined;
  const staged = trx.selectFrom('copy_staged_items').where('copy_key', '=', copyKey);
  const removed = await rowsOfItems(trx, copyKey, staged.select('item_key'));
  await trx
    .deleteFrom('copy_items')
    .where('copy_key', '=', copyKey)
    .where((eb) => itemKeyAmong(trx, eb, staged.select('item_key')))
    .execute();
  await trx
    .insertInto('copy_items')
    .columns(['copy_key', 'item_key', 'version', 'generation', 'skipped_reason'])
    .expression(
      staged
        .select(['copy_key', 'item_key', 'version', 'generation', 'skipped_reason'])
        .where('version', 'is not', null)
        .$narrowType<{ version: string }>(),
    )
    .execute();
  // In start order, as a batch's own rows are (inStartOrder).
  const moved = trx
    .insertInto('copy_occurrences')
    .columns(occurrenceColumns)
    .expression(
      trx
        .selectFrom('copy_staged_occurrences')
        .select(occurrenceColumns)
        .where('copy_key', '=', copyKey)
        .orderBy('start_ms'),
    );
  const ids = await moved.returning(['id', 'item_key', 'occurrence_id']).execute();
  return { added: await stagedTexts(trx, copyKey, ids), removed };
}

/**
 * The rows moved in as the index needs them: their texts as staged, matched by item and
 * occurrence id; should two staged rows share both, folded again from what was moved.
 */
async function stagedTexts(
  trx: Trx,
  copyKey: number,
  moved: readonly { id: number; item_key: string; occurrence_id: string }[],
): Promise<IndexedRow[]> {
  // The sealed id first: it holds no newline, so no item key (provider text) can make two pairs one.
  const pairOf = (row: { item_key: string; occurrence_id: string }) =>
    `${row.occurrence_id}\n${row.item_key}`;
  const texts = new Map<string, Omit<IndexedRow, 'id'> | null>();
  const staged = await trx
    .selectFrom('copy_staged_occurrences')
    .select(['item_key', 'occurrence_id', 'start_ms', 'is_private', 'floating', 'title_text', 'body_text'])
    .where('copy_key', '=', copyKey)
    .execute();
  for (const { item_key, occurrence_id, ...row } of staged) {
    const at = pairOf({ item_key, occurrence_id });
    texts.set(at, texts.has(at) ? null : { ...row, start_ms: Number(row.start_ms) });
  }
  const rows: IndexedRow[] = [];
  const shared: number[] = [];
  for (const row of moved) {
    const found = texts.get(pairOf(row));
    if (found) rows.push({ ...found, id: Number(row.id) });
    else shared.push(Number(row.id));
  }
  for (let i = 0; i < shared.length; i += 500)
    rows.push(
      ...indexedRows(
        await trx
          .selectFrom('copy_occurrences')
          .select(indexedColumns)
          .where('id', 'in', shared.slice(i, i + 500))
          .execute(),
      ),
    );
  return rows;
}

/**
 * Drops from what a sync staged the items the copy holds as they are (the same version and
 * reason to skip, and the same occurrence rows, every column) and the removals of items it does
 * not hold; whether anything staged is left to move in.
 */
async function dropUnchangedStaged(trx: Trx, copyKey: number, seenBy: number | undefined): Promise<boolean> {
  const compared = occurrenceColumns.filter((column) => column !== 'copy_key' && column !== 'item_key');
  const sameRow = sql.join(
    compared.map((column) => sql`${sql.ref(`lo.${column}`)} = ${sql.ref(`so.${column}`)}`),
    sql` and `,
  );
  const unchanged = await sql<{ item_key: string }>`
    select s.item_key from copy_staged_items s
    join copy_items l on l.copy_key = s.copy_key and l.item_key = s.item_key
    where s.copy_key = ${copyKey} and s.version = l.version
      and coalesce(s.skipped_reason, '') = coalesce(l.skipped_reason, '')
      and (select count(*) from copy_staged_occurrences so
           where so.copy_key = s.copy_key and so.item_key = s.item_key)
        = (select count(*) from copy_occurrences lo
           where lo.copy_key = s.copy_key and lo.item_key = s.item_key)
      and not exists (select 1 from copy_staged_occurrences so
        where so.copy_key = s.copy_key and so.item_key = s.item_key
          and not exists (select 1 from copy_occurrences lo
            where lo.copy_key = so.copy_key and lo.item_key = so.item_key and ${sameRow}))`.execute(trx);
  const keys = unchanged.rows.map((row) => row.item_key);
  if (seenBy !== undefined && keys.length > 0) await markSeen(trx, copyKey, keys, seenBy);
  for (let i = 0; i < keys.length; i += 500) {
    await trx
      .deleteFrom('copy_staged_items')
      .where('copy_key', '=', copyKey)
      .where('item_key', 'in', keys.slice(i, i + 500))
      .execute();
  }
  await trx
    .deleteFrom('copy_staged_items')
    .where('copy_key', '=', copyKey)
    .where('version', 'is', null)
    .where(
      'item_key',
      'not in',
      trx.selectFrom('copy_items').select('item_key').where('copy_key', '=', copyKey),
    )
    .execute();
  const left = await trx
    .selectFrom('copy_staged_items')
    .select(sql<number>`count(*)`.as('count'))
    .where('copy_key', '=', copyKey)
    .executeTakeFirstOrThrow();
  return Number(left.count) > 0;
}

const occurrenceColumns = [
  'copy_key',
  'item_key',
  'start_ms',
  'end_ms',
  'data',
  'event_id',
  'occurrence_id',
  'floating',
  'is_private',
  'is_free',
  'status_code',
] as const;

/** A staged row keeps its texts too: what the index is made of when it moves in. */
const stagedColumns = [...occurrenceColumns, 'title_text', 'body_text'] as const;

const itemColumns = ['copy_key', 'item_key', 'version', 'generation', 'skipped_reason'] as const;

/** An item's row, as written to the copy or staged (a staged removal has no version). */
const itemRow = (
  copyKey: number,
  item: { key: string; version: string | null; skipped: string | null },
  generation: number,
) => ({
  copy_key: copyKey,
  item_key: item.key,
  version: item.version,
  generation,
  skipped_reason: item.skipped,
});

type OccurrenceRow = ReturnType<typeof occurrenceRow>;
type IndexedColumns = Pick<Selectable<CopyOccurrencesTable>, (typeof indexedColumns)[number]>;

/**
 * A row of copy_occurrences, holding what a read's query needs as it is: floating and all-day
 * times read as UTC (a read places them in its zone), the sealed ids, privacy and free/busy, and
 * the occurrence packed (store/packedOccurrence.ts): its size is what a sync's byte bound counts.
 * Its folded texts go to the word index (and the staging rows), not to the row.
 */
function occurrenceRow(
  calendarId: string,
  copyKey: number,
  itemKey: string,
  occurrence: ProviderOccurrence,
  copied: { level: DetailLevel; privateDetails: boolean },
  ids: EventIds,
) {
  const kept = forCopy(occurrence, copied);
  const start = Temporal.PlainDateTime.from(kept.start).toZonedDateTime(kept.timeZone ?? 'UTC', {
    disambiguation: 'compatible',
  });
  const duration = Temporal.Duration.from(kept.duration);
  const end = start.add(duration);
  const withDays = duration.years || duration.months || duration.weeks || duration.days;
  const sealed = sealedIds(calendarId, kept, ids);
  return {
    copy_key: copyKey,
    item_key: itemKey,
    start_ms: start.epochMilliseconds,
    end_ms: end.epochMilliseconds,
    data: packOccurrence(kept),
    ...indexedText(kept),
    event_id: sealed.eventId,
    occurrence_id: sealed.occurrenceId,
    floating: kept.timeZone !== undefined ? 0 : withDays ? 2 : 1,
    is_private: kept.privacy === 'private' || kept.privacy === 'secret' ? 1 : 0,
    is_free: kept.freeBusyStatus === 'free' ? 1 : 0,
    status_code: statusCodes[kept.status],
  };
}

export async function failuresSoFar(db: Db, calendarId: string): Promise<number> {
  const row = await db
    .selectFrom('calendar_copies')
    .select('failures')
    .where('calendar_id', '=', calendarId)
    .executeTakeFirst();
  return row?.failures ?? 0;
}

/** A failed sync: the copy stays as it was, the failure is counted, what it staged cleared and the lease released. */
export async function recordSyncFailure(
  db: Db,
  calendarId: string,
  owner: string,
  failure: { reason: string; nextSyncAt: number; forgetState: boolean },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const held = await trx
      .updateTable('calendar_copies')
      .set({
        failures: sql`failures + 1`,
        failure_reason: failure.reason,
        next_sync_at: failure.nextSyncAt,
        lease_owner: null,
        lease_until: null,
        staged_items: 0,
        ...(failure.forgetState ? { sync_state: null } : {}),
      })
      .where('calendar_id', '=', calendarId)
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    if (Number(held.numUpdatedRows) === 1)
      await trx.deleteFrom('copy_staged_items').where('copy_key', '=', copyKeyOf(trx, calendarId)).execute();
  });
}
