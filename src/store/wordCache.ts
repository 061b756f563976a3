/**
 * What searches read of the word index again and again — a copy's vocabulary and its slots'
 * lists per bucket of starts — kept in memory per edition of the copy: its number, when it was
 * made and its version, which every change of its rows (and so of its lists) moves. An entry is
 * never changed, only replaced by a later edition's. An accelerator, never needed: bounded in
 * bytes, the least recently used going first; a copy is kept from its second search on (one
 * searched once, as most of an organisation's are between two changes, takes no room).
 */

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

/** Slot and bucket of a list, as its key in an entry. */
const listKey = (slot: number, bucket: number) => `${slot} ${bucket}`;

interface Entry {
  version: number;
  vocabulary: string;
  /** Per slot and bucket, its lists, or null where the copy has none. */
  lists: Map<string, Uint8Array | null>;
  bytes: number;
}

/** Whether a lookup of a copy found everything it needed here. */
export type CacheOutcome = 'hit' | 'miss';

/** Room an entry takes besides its bytes of text and lists (keys, maps, objects). */
const entryOverhead = 200;
const listOverhead = 80;
/** Editions searched once remembered at most. */
const seenAtMost = 4096;

export class WordCache {
  /** By copy: one edition each. */
  readonly #entries = new Map<string, Entry>();
  /** Editions searched once, not yet kept (bounded: the oldest forgotten first). */
  readonly #seen = new Set<string>();
  readonly #maxBytes: number;
  readonly #counted: ((outcome: CacheOutcome) => void) | undefined;
  #bytes = 0;

  constructor(maxBytes: number, counted?: (outcome: CacheOutcome) => void) {
    this.#maxBytes = maxBytes;
    this.#counted = counted;
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
    // Used: to the end of the line.
    this.#entries.delete(edition.copy);
    this.#entries.set(edition.copy, entry);
    return found;
  }

  /**
   * What a search read of a copy: its vocabulary, and its lists of `slots` over the buckets (the
   * rows found; the others have none). Kept on the copy's second search; its older editions go.
   */
  keep(
    edition: CopyEdition,
    vocabulary: string,
    read: { slots: readonly number[]; from: number; until: number; rows: Iterable<ListRow> },
  ): void {
    if (this.#maxBytes === 0) return;
    const entry = this.#held(edition);
    const seen = `${edition.copy} ${edition.version}`;
    if (entry === undefined && !this.#seen.has(seen)) {
      this.#seen.add(seen);
      for (const oldest of this.#seen) {
        if (this.#seen.size <= seenAtMost) break;
        this.#seen.delete(oldest);
      }
      return;
    }
    this.#seen.delete(seen);
    const kept = entry ?? {
      version: edition.version,
      vocabulary,
      lists: new Map(),
      bytes: entryOverhead + vocabulary.length * 2,
    };
    const before = entry?.bytes ?? 0;
    for (const slot of read.slots)
      for (let bucket = read.from; bucket <= read.until; bucket++)
        if (!kept.lists.has(listKey(slot, bucket))) {
          kept.lists.set(listKey(slot, bucket), null);
          kept.bytes += listOverhead;
        }
    for (const row of read.rows) {
      const key = listKey(row.slot, row.bucket);
      if (kept.lists.get(key) === null) {
        kept.lists.set(key, row.lists);
        kept.bytes += row.lists.byteLength;
      }
    }
    // An older edition of the copy goes; a newer one (its reader ahead of this one) stays.
    const replaced = this.#entries.get(edition.copy);
    if (replaced !== undefined && replaced.version > edition.version) return;
    this.#entries.delete(edition.copy);
    this.#bytes -= replaced === undefined ? 0 : replaced === entry ? before : replaced.bytes;
    if (kept.bytes > this.#maxBytes) return;
    this.#entries.set(edition.copy, kept);
    this.#bytes += kept.bytes;
    for (const [oldest, { bytes }] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= bytes;
    }
  }
}

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
