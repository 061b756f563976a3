/**
 * What searches read of the word index again and again — a copy's vocabulary, its slots'
 * lists per bucket of starts, and its buckets' starts — kept in memory per edition of the copy: its number, when it was
 * made and its version, which every change of its rows (and so of its lists) moves. An entry
 * only grows (another slot or bucket read) until a later edition's replaces it. An accelerator,
 * never needed: bounded in bytes. A copy is kept from its second search on (one searched once
 * between two changes takes no room), and in place of the
 * least recently used only when that one has gone unused for a while: searches going round more
 * copies than fit keep finding those held, where plain LRU would evict each before its turn.
 */

import { slotCount } from './wordPostings.ts';

/**
 * A copy as one version of it holds its words: the copy (its number and when it was made: a
 * number may be given again after a copy goes) and the version.
 */
export interface CopyEdition {
  copy: string;
  version: number;
}

export const copyEdition = (copy: { copyKey: number; createdAt: number; version: number }): CopyEdition => ({
  copy: `${copy.copyKey} ${copy.createdAt}`,
  version: copy.version,
});

/** Slot and bucket of a list, as its key in an entry: one number (a search looks up hundreds). */
const listKey = (slot: number, bucket: number) => bucket * slotCount + slot;

interface Entry {
  version: number;
  /** When a search last used it (ms, the cache's clock). */
  usedAt: number;
  vocabulary: string;
  /** Per slot and bucket, its lists, or null where the copy has none. */
  lists: Map<number, Uint8Array | null>;
  /** Per bucket, its instants' starts (store/copyStarts.ts), or null where it has none. */
  starts: Map<number, Uint8Array | null>;
  bytes: number;
}

/** Whether a lookup of a copy found everything it needed here. */
export type CacheOutcome = 'hit' | 'miss';

/** Room an entry takes besides its bytes of text and lists (keys, maps, objects). */
const entryOverhead = 200;
const listOverhead = 80;
/** Editions searched once remembered at most. */
const seenAtMost = 4096;
/** How long an entry goes unused before a newcomer may take its place (ms). */
const idleMs = 60_000;

export class WordCache {
  /** By copy: one edition each. */
  readonly #entries = new Map<string, Entry>();
  /** Editions searched once, not yet kept (bounded: the oldest forgotten first). */
  readonly #seen = new Set<string>();
  readonly #maxBytes: number;
  readonly #counted: ((outcome: CacheOutcome) => void) | undefined;
  readonly #now: () => number;
  #bytes = 0;

  constructor(
    maxBytes: number,
    counted?: (outcome: CacheOutcome) => void,
    now: () => number = () => performance.now(),
  ) {
    this.#maxBytes = maxBytes;
    this.#counted = counted;
    this.#now = now;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The copy's vocabulary, if kept. */
  vocabulary(edition: CopyEdition): string | undefined {
    return this.#held(edition)?.vocabulary;
  }

  #held({ copy, version }: CopyEdition): Entry | undefined {
    const entry = this.#entries.get(copy);
    return entry?.version === version ? entry : undefined;
  }

  /**
   * The copy's lists of `slots` over buckets `from`…`until` (the key of each: slot and bucket),
   * when every one is kept; undefined when any is not. Counts the lookup as a hit or a miss.
   */
  lists(
    edition: CopyEdition,
    slots: readonly number[],
    from: number,
    until: number,
  ): Map<number, { bucket: number; lists: Uint8Array }[]> | undefined {
    const entry = this.#held(edition);
    const found = entry === undefined ? undefined : listsIn(entry, slots, from, until);
    this.#counted?.(found === undefined ? 'miss' : 'hit');
    if (entry === undefined || found === undefined) return undefined;
    this.#used(edition.copy, entry);
    return found;
  }

  /** Used now: to the end of the line. */
  #used(copy: string, entry: Entry): void {
    entry.usedAt = this.#now();
    this.#entries.delete(copy);
    this.#entries.set(copy, entry);
  }

  /**
   * What a search read of a copy: its vocabulary, and its lists of `slots` over the buckets (the
   * rows found; the others have none). Kept on the copy's second search, beside what is kept of
   * the same edition; an older edition goes, a newer one stays. The lists kept are copied into
   * bytes of their own (a driver's rows may share a larger buffer), and only those: a search that
   * finds the cache full, or reads a copy for the first time, copies nothing.
   */
  keep(
    edition: CopyEdition,
    vocabulary: string,
    read: { slots: readonly number[]; from: number; until: number; rows: Iterable<ListRow> },
  ): void {
    if (this.#maxBytes === 0) return;
    const held = this.#entries.get(edition.copy);
    if (held !== undefined && held.version > edition.version) return;
    const current = held?.version === edition.version ? held : undefined;
    if (held !== undefined && current === undefined) this.#drop(edition.copy, held);
    if (current === undefined && !this.#secondSearch(edition)) return;
    // What the read adds: its buckets of each slot (none where no row was found), and the rows' lists.
    const added = new Map<number, Uint8Array | null>();
    let bytes = current === undefined ? entryOverhead + textBytes(vocabulary) : 0;
    for (const slot of read.slots)
      for (let bucket = read.from; bucket <= read.until; bucket++)
        if (current?.lists.has(listKey(slot, bucket)) !== true) {
          added.set(listKey(slot, bucket), null);
          bytes += listOverhead;
        }
    for (const row of read.rows) {
      const key = listKey(row.slot, row.bucket);
      if (added.get(key) === null) {
        added.set(key, row.lists);
        bytes += row.lists.byteLength;
      }
    }
    if ((current?.bytes ?? 0) + bytes > this.#maxBytes || !this.#roomFor(bytes, edition.copy)) return;
    const entry = current ?? {
      version: edition.version,
      usedAt: 0,
      vocabulary,
      lists: new Map(),
      starts: new Map(),
      bytes: 0,
    };
    for (const [key, lists] of added) entry.lists.set(key, lists === null ? null : new Uint8Array(lists));
    entry.bytes += bytes;
    this.#bytes += bytes;
    this.#used(edition.copy, entry);
  }

  /** The copy's starts of `buckets` (those it has), when every one is kept beside its words; else undefined. */
  starts(edition: CopyEdition, buckets: readonly number[]): Map<number, Uint8Array> | undefined {
    const entry = this.#held(edition);
    if (entry === undefined) return undefined;
    const found = new Map<number, Uint8Array>();
    for (const bucket of buckets) {
      const starts = entry.starts.get(bucket);
      if (starts === undefined) return undefined;
      if (starts !== null) found.set(bucket, starts);
    }
    return found;
  }

  /**
   * The starts a search read of `buckets` (those found; the others have none), kept beside the
   * copy's words when those are kept (copied into bytes of their own, as lists are), room permitting.
   */
  keepStarts(edition: CopyEdition, buckets: readonly number[], found: ReadonlyMap<number, Uint8Array>): void {
    const entry = this.#held(edition);
    if (entry === undefined) return;
    const added = buckets.filter((bucket) => !entry.starts.has(bucket));
    let bytes = 0;
    for (const bucket of added) bytes += listOverhead + (found.get(bucket)?.byteLength ?? 0);
    if (bytes === 0 || entry.bytes + bytes > this.#maxBytes || !this.#roomFor(bytes, edition.copy)) return;
    for (const bucket of added) {
      const starts = found.get(bucket);
      entry.starts.set(bucket, starts === undefined ? null : new Uint8Array(starts));
    }
    entry.bytes += bytes;
    this.#bytes += bytes;
  }

  /** Whether this is the edition's second search (the first is remembered, within a bound). */
  #secondSearch({ copy, version }: CopyEdition): boolean {
    const seen = `${copy} ${version}`;
    if (this.#seen.delete(seen)) return true;
    this.#seen.add(seen);
    for (const oldest of this.#seen) {
      if (this.#seen.size <= seenAtMost) break;
      this.#seen.delete(oldest);
    }
    return false;
  }

  /** Room for `bytes` more, made by taking out entries unused for a while, least recently used first (never `keeping`). */
  #roomFor(bytes: number, keeping: string): boolean {
    for (const [copy, entry] of this.#entries) {
      if (this.#bytes + bytes <= this.#maxBytes) return true;
      if (copy === keeping) continue;
      if (this.#now() - entry.usedAt < idleMs) return false;
      this.#drop(copy, entry);
    }
    return this.#bytes + bytes <= this.#maxBytes;
  }

  #drop(copy: string, entry: Entry): void {
    this.#entries.delete(copy);
    this.#bytes -= entry.bytes;
  }
}

/** A string's bytes in V8: one a character when every one is Latin-1 (folded words mostly are), else two. */
const textBytes = (text: string) => (/[\u0100-\uffff]/.test(text) ? text.length * 2 : text.length);

/** A row of a copy's slots as the search reads it. */
export interface ListRow {
  slot: number;
  bucket: number;
  lists: Uint8Array;
}

function listsIn(entry: Entry, slots: readonly number[], from: number, until: number) {
  const found = new Map<number, { bucket: number; lists: Uint8Array }[]>();
  for (const slot of slots) {
    const ofSlot: { bucket: number; lists: Uint8Array }[] = [];
    for (let bucket = from; bucket <= until; bucket++) {
      const lists = entry.lists.get(listKey(slot, bucket));
      if (lists === undefined) return undefined;
      if (lists !== null) ofSlot.push({ bucket, lists });
    }
    found.set(slot, ofSlot);
  }
  return found;
}
