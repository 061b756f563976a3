/**
 * What rows added to a copy and rows removed from it do to its word lists, worked out in flat
 * arrays. A sync's thousand rows hold ~65,000 postings: a map per row and a pair of growing
 * arrays per list made indexing a sync's largest allocation (~22 MB a 1,000-event calendar),
 * much of it promoted to the old generation while the transaction awaited the database.
 */
import { bucketOf, eachRowWord, type IndexedRow, type Postings } from './wordPostings.ts';

/** One list a batch changes: the postings it gains and the ids it loses, both ascending by id. */
export interface ListChange {
  word: string;
  bucket: number;
  added: Postings;
  removed: ArrayLike<number>;
}

/** Postings of many lists, appended in the order rows come: list, id and flags side by side. */
class PostingTable {
  lists: Int32Array;
  ids: Float64Array;
  flags: Uint8Array;
  length = 0;

  /** Sized for `rows` (~65 postings each, up to a first size of 4,096): a write of one event allocates little. */
  constructor(rows: number) {
    const size = Math.min(4096, Math.max(64, rows * 64));
    this.lists = new Int32Array(size);
    this.ids = new Float64Array(size);
    this.flags = new Uint8Array(size);
  }

  push(list: number, id: number, flags: number): void {
    if (this.length === this.lists.length) {
      const grow = <T extends Int32Array | Float64Array | Uint8Array>(old: T, fresh: T): T => {
        fresh.set(old);
        return fresh;
      };
      const size = this.length * 2;
      this.lists = grow(this.lists, new Int32Array(size));
      this.ids = grow(this.ids, new Float64Array(size));
      this.flags = grow(this.flags, new Uint8Array(size));
    }
    this.lists[this.length] = list;
    this.ids[this.length] = id;
    this.flags[this.length] = flags;
    this.length++;
  }

  /** The postings grouped by list (a counting sort, row order kept within a list): where each list starts. */
  grouped(listCount: number): { starts: Int32Array; ids: Float64Array; flags: Uint8Array } {
    const starts = new Int32Array(listCount + 1);
    for (let k = 0; k < this.length; k++) starts[this.lists[k]! + 1]!++;
    for (let list = 0; list < listCount; list++) starts[list + 1]! += starts[list]!;
    const next = starts.slice(0, listCount);
    const ids = new Float64Array(this.length);
    const flags = new Uint8Array(this.length);
    for (let k = 0; k < this.length; k++) {
      const at = next[this.lists[k]!]!++;
      ids[at] = this.ids[k]!;
      flags[at] = this.flags[k]!;
    }
    return { starts, ids, flags };
  }
}

/**
 * The lists `added` and `removed` change, each once. A posting both removed and added as it was
 * (a row written again with the word, under its id, in its bucket, with its flags) cancels out:
 * a list whose postings all cancel is not changed at all. A row is listed once on each side.
 */
export function listChanges(added: readonly IndexedRow[], removed: readonly IndexedRow[]): ListChange[] {
  const listsByBucket = new Map<number, Map<string, number>>();
  const words: string[] = [];
  const buckets: number[] = [];
  // Per list, the last row that posted to it and where: a word a row has twice is one posting.
  const lastRow: number[] = [];
  const lastAt: number[] = [];
  let row = 0;
  const post = (rows: readonly IndexedRow[], table: PostingTable) => {
    let lists: Map<string, number> | undefined;
    let bucket = Number.NaN;
    let id = 0;
    const visit = (word: string, flags: number) => {
      let list = lists!.get(word);
      if (list === undefined) {
        list = words.length;
        lists!.set(word, list);
        words.push(word);
        buckets.push(bucket);
        lastRow.push(-1);
        lastAt.push(0);
      }
      if (lastRow[list] === row) table.flags[lastAt[list]!]! |= flags;
      else {
        lastRow[list] = row;
        lastAt[list] = table.length;
        table.push(list, id, flags);
      }
    };
    for (const each of rows) {
      const at = bucketOf(Number(each.start_ms));
      if (at !== bucket) {
        bucket = at;
        lists = listsByBucket.get(at);
        if (lists === undefined) {
          lists = new Map();
          listsByBucket.set(at, lists);
        }
      }
      id = Number(each.id);
      eachRowWord(each, visit);
      row++;
    }
  };
  const gone = new PostingTable(removed.length);
  post(byId(removed), gone);
  const fresh = new PostingTable(added.length);
  post(byId(added), fresh);
  const out = fresh.grouped(words.length);
  const old = gone.grouped(words.length);
  const changes: ListChange[] = [];
  for (let list = 0; list < words.length; list++) {
    // Views of a side only where it has postings: a first sync removes none from its ~50,000 lists.
    const adds = out.starts[list + 1]! - out.starts[list]!;
    const removes = old.starts[list + 1]! - old.starts[list]!;
    if (adds === 0 && removes === 0) continue;
    const word = words[list]!;
    const bucket = buckets[list]!;
    if (removes === 0) {
      changes.push({ word, bucket, added: ascending(out, list), removed: noIds });
      continue;
    }
    if (adds === 0) {
      changes.push({ word, bucket, added: noPostings, removed: ascending(old, list).ids });
      continue;
    }
    const plus = ascending(out, list);
    const minus = ascending(old, list);
    // Both ascending: an id on both sides is either the same posting (both dropped) or replaced
    // by the added one (the removal is then moot).
    const keptIds: number[] = [];
    const keptFlags: number[] = [];
    const removedIds: number[] = [];
    let a = 0;
    let r = 0;
    while (a < plus.ids.length || r < minus.ids.length) {
      const addedId = a < plus.ids.length ? plus.ids[a]! : Number.POSITIVE_INFINITY;
      const removedId = r < minus.ids.length ? minus.ids[r]! : Number.POSITIVE_INFINITY;
      if (removedId < addedId) {
        removedIds.push(removedId);
        r++;
        continue;
      }
      if (removedId !== addedId || minus.flags[r] !== plus.flags[a]) {
        keptIds.push(addedId);
        keptFlags.push(plus.flags[a]!);
      }
      if (removedId === addedId) r++;
      a++;
    }
    if (keptIds.length > 0 || removedIds.length > 0)
      changes.push({ word, bucket, added: { ids: keptIds, flags: keptFlags }, removed: removedIds });
  }
  return changes;
}

const noIds: ArrayLike<number> = Object.freeze([]);
const noPostings: Postings = Object.freeze({ ids: noIds, flags: noIds });

/** Rows in ascending order of id (as they nearly always come), so that every list's postings are too. */
function byId(rows: readonly IndexedRow[]): readonly IndexedRow[] {
  let ascending = true;
  for (let k = 1; k < rows.length && ascending; k++)
    ascending = Number(rows[k - 1]!.id) < Number(rows[k]!.id);
  if (ascending) return rows;
  const sorted = [...rows].sort((a, b) => Number(a.id) - Number(b.id));
  for (let k = 1; k < sorted.length; k++)
    if (Number(sorted[k - 1]!.id) === Number(sorted[k]!.id))
      throw new Error(`row ${sorted[k]!.id} listed twice`);
  return sorted;
}

/** One list's postings of a grouped table (ascending by id, as the rows were). */
function ascending(
  table: { starts: Int32Array; ids: Float64Array; flags: Uint8Array },
  list: number,
): Postings {
  const from = table.starts[list]!;
  const to = table.starts[list + 1]!;
  return { ids: table.ids.subarray(from, to), flags: table.flags.subarray(from, to) };
}
