/**
 * The starts of each copy's instants, a row per copy and bucket of the word index (copy_starts),
 * written with the rows in the sync's transaction as the word lists are. The word index names
 * the rows that hold a search's words by bucket; with their starts beside them a search counts
 * its matches and chooses its page without reading the rows, and reads the page's rows alone
 * (store/copyReads.ts#namedPlaces). Rows of local times are not here: a reader's zone places them.
 */
import type { Kysely, Transaction } from 'kysely';
import { type BucketStarts, decodeStarts, encodeStarts } from './bucketStarts.ts';
import { inList, q, reused } from './reusedStatements.ts';
import { insertRows } from './rowsInsert.ts';
import type { Database } from './schema.ts';
import { readOffLoop } from './sqliteReaders.ts';
import type { CopyEdition, WordCache } from './wordCache.ts';
import { bucketOf, type IndexedRow, mergePostings } from './wordPostings.ts';

type Trx = Transaction<Database>;

/** Rows added to a copy and rows removed from it, into its buckets of starts. */
export async function indexStarts(
  trx: Trx,
  copyKey: number,
  added: readonly Pick<IndexedRow, 'id' | 'start_ms' | 'floating'>[],
  removed: readonly Pick<IndexedRow, 'id' | 'start_ms' | 'floating'>[],
): Promise<void> {
  const changes = new Map<number, { added: BucketStarts; removed: number[] }>();
  const changeOf = (startMs: number) => {
    const bucket = bucketOf(startMs);
    const held = changes.get(bucket) ?? { added: { ids: [], starts: [] }, removed: [] };
    changes.set(bucket, held);
    return held;
  };
  // A row written again at the same start (its id kept) changes nothing here.
  const again = new Map<number, number>();
  for (const row of removed) if (Number(row.floating) === 0) again.set(row.id, Number(row.start_ms));
  const kept = new Set<number>();
  for (const row of added)
    if (Number(row.floating) === 0 && again.get(row.id) === Number(row.start_ms)) kept.add(row.id);
  for (const row of removed)
    if (Number(row.floating) === 0 && !kept.has(row.id)) changeOf(Number(row.start_ms)).removed.push(row.id);
  const fresh = added
    .filter((row) => Number(row.floating) === 0 && !kept.has(row.id))
    .map((row) => ({ id: row.id, start: Number(row.start_ms) }))
    .sort((a, b) => a.id - b.id);
  for (const { id, start } of fresh) {
    const { added: into } = changeOf(start);
    into.ids.push(id);
    into.starts.push(start);
  }
  if (changes.size === 0) return;
  const held = new Map(
    (
      await trx
        .selectFrom('copy_starts')
        .select(['bucket', 'starts'])
        .where('copy_key', '=', copyKey)
        .where('bucket', 'in', [...changes.keys()])
        .execute()
    ).map((row) => [Number(row.bucket), decodeStarts(Number(row.bucket), row.starts)]),
  );
  const written: { copy_key: number; bucket: number; starts: Uint8Array }[] = [];
  const emptied: number[] = [];
  for (const [bucket, change] of changes) {
    const before = held.get(bucket) ?? { ids: [], starts: [] };
    const merged = mergePostings(
      { ids: before.ids, flags: before.starts },
      { ids: change.added.ids, flags: change.added.starts },
      change.removed.sort((a, b) => a - b),
    );
    if (merged.ids.length > 0)
      written.push({
        copy_key: copyKey,
        bucket,
        starts: encodeStarts(bucket, { ids: merged.ids, starts: merged.flags }),
      });
    else if (held.has(bucket)) emptied.push(bucket);
  }
  for (let i = 0; i < written.length; i += 500)
    await insertRows(trx, 'copy_starts', ['copy_key', 'bucket', 'starts'], written.slice(i, i + 500), {
      onConflict: '("copy_key", "bucket") do update set "starts" = excluded."starts"',
    });
  if (emptied.length > 0)
    await trx
      .deleteFrom('copy_starts')
      .where('copy_key', '=', copyKey)
      .where('bucket', 'in', emptied)
      .execute();
}

/**
 * The starts of the copies' buckets asked, as kept (`startsOfIds` reads them), by copy and
 * bucket; a bucket of no instants has none. Those the cache keeps beside a copy's words are not
 * read; the rest in one statement, the lists one parameter each (one text for any read).
 */
export async function bucketStarts(
  db: Kysely<Database>,
  copies: readonly { copyKey: number; edition?: CopyEdition }[],
  buckets: readonly number[],
  cache?: WordCache,
): Promise<Map<number, Map<number, Uint8Array>>> {
  const byCopy = new Map<number, Map<number, Uint8Array>>();
  if (buckets.length === 0) return byCopy;
  const unread: typeof copies = copies.filter((copy) => {
    const kept = copy.edition === undefined ? undefined : cache?.starts(copy.edition, buckets);
    if (kept !== undefined) byCopy.set(copy.copyKey, kept);
    return kept === undefined;
  });
  if (unread.length === 0) return byCopy;
  const rows = await readOffLoop(
    db,
    reused(
      db,
      q<{
        copy_key: number | string;
        bucket: number | string;
        starts: Uint8Array;
      }>`select copy_key, bucket, starts from copy_starts where copy_key ${inList(
        db,
        unread.map((copy) => copy.copyKey),
        'bigint',
      )} and bucket ${inList(db, buckets, 'bigint')}`,
    ),
  );
  for (const row of rows) {
    const copyKey = Number(row.copy_key);
    const ofCopy = byCopy.get(copyKey) ?? new Map<number, Uint8Array>();
    byCopy.set(copyKey, ofCopy);
    ofCopy.set(Number(row.bucket), row.starts);
  }
  for (const copy of unread)
    if (copy.edition !== undefined)
      cache?.keepStarts(copy.edition, buckets, byCopy.get(copy.copyKey) ?? new Map());
  return byCopy;
}
