/**
 * The word index of the copies, its pure part: a copied row's words, the stretch of time a
 * posting list covers, the lists as bytes, and a query word found in a copy's vocabulary. A query
 * word holds no white space, so it occurs in a row's folded text exactly when it occurs within
 * one of the row's words (domain/search.ts#distinctWords): the rows that may match are those
 * listed under the vocabulary's words that contain it.
 */
/** A posting list covers 2^28 ms (~3.1 days) of starts: a month's window reads about ten per word. */
const bucketMs = 2 ** 28;

/** The first start (epoch ms, as stored) of a bucket. */
export const bucketStartMs = (bucket: number): number => bucket * bucketMs;

/** The stretch of starts (as stored: local times read as UTC) that `startMs` falls in. */
export const bucketOf = (startMs: number): number => Math.floor(startMs / bucketMs);

/** What the index needs of a copied row. */
export interface IndexedRow {
  id: number;
  start_ms: number;
  title_text: string;
  body_text: string;
  is_private: number;
  floating: number;
}

/**
 * What a posting says beside its row's id, so that a search decides without the row: the word is
 * in the title (a titles-level reader sees no more), the row is private or secret (its text shows
 * only with private details), its times are local (placed by the reader's zone).
 */
export const postingFlags = { title: 1, private: 2, local: 4 } as const;

/** One row listed under a word. */
export interface Posting {
  id: number;
  flags: number;
}

/** The distinct words of a copied row, each with its posting's flags: the folded title split, and the body's words (one per line). */
export function rowWords(row: Omit<IndexedRow, 'id' | 'start_ms'>): Map<string, number> {
  const common =
    (Number(row.is_private) !== 0 ? postingFlags.private : 0) |
    (Number(row.floating) !== 0 ? postingFlags.local : 0);
  const words = new Map<string, number>();
  for (const word of row.body_text.split('\n')) if (word !== '') words.set(word, common);
  // Split as stored (already folded): a query word lies within one of these exactly when it lies within the text.
  for (const word of row.title_text.split(/\p{White_Space}+/u))
    if (word !== '') words.set(word, common | postingFlags.title);
  return words;
}

/** Postings in ascending order of id as bytes: each the gap from the one before times 8 plus its flags, 7 bits a byte. */
export const encodePostings = (postings: readonly Posting[]): Uint8Array =>
  encodeColumns(
    postings.map((p) => p.id),
    postings.map((p) => p.flags),
  );

/** `encodePostings` of ids (ascending) and their flags side by side: a first sync's lists, made without an object per posting. */
export function encodeColumns(ids: readonly number[], flags: readonly number[]): Uint8Array {
  const out: number[] = [];
  let last = 0;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    let value = (id - last) * 8 + flags[k]!;
    last = id;
    while (value >= 0x80) {
      out.push((value % 0x80) | 0x80);
      value = Math.floor(value / 0x80);
    }
    out.push(value);
  }
  return Uint8Array.from(out);
}

export class PostingsCorrupt extends Error {}

/** The postings `encodePostings` wrote. */
export function decodePostings(bytes: Uint8Array): Posting[] {
  const postings: Posting[] = [];
  let last = 0;
  let value = 0;
  let scale = 1;
  for (const byte of bytes) {
    value += (byte & 0x7f) * scale;
    if (byte & 0x80) {
      scale *= 0x80;
      if (scale > 2 ** 49) throw new PostingsCorrupt('a posting gap too long');
      continue;
    }
    last += Math.floor(value / 8);
    if (last > Number.MAX_SAFE_INTEGER) throw new PostingsCorrupt('a posting past any row id');
    postings.push({ id: last, flags: value % 8 });
    value = 0;
    scale = 1;
  }
  if (scale !== 1) throw new PostingsCorrupt('a posting list cut short');
  return postings;
}

/** `held` with `added` in (replacing the same id's) and `removed` out, in ascending order of id. */
export function mergePostings(
  held: readonly Posting[],
  added: readonly Posting[],
  removed: ReadonlySet<number>,
): Posting[] {
  const byId = new Map<number, number>();
  for (const { id, flags } of held) if (!removed.has(id)) byId.set(id, flags);
  for (const { id, flags } of added) byId.set(id, flags);
  return [...byId].sort((a, b) => a[0] - b[0]).map(([id, flags]) => ({ id, flags }));
}

/** A vocabulary as kept: its words one per line, between newlines. */
export const vocabularyText = (words: Iterable<string>): string => {
  const list = [...words];
  return list.length === 0 ? '' : `\n${list.join('\n')}\n`;
};

/**
 * The vocabulary's words that contain `word`, or undefined past `most` of them (a word found
 * nearly everywhere is cheaper to search row by row).
 */
export function wordsContaining(vocabulary: string, word: string, most: number): string[] | undefined {
  const found: string[] = [];
  let from = 0;
  for (;;) {
    const at = vocabulary.indexOf(word, from);
    if (at === -1) return found;
    const start = vocabulary.lastIndexOf('\n', at) + 1;
    const end = vocabulary.indexOf('\n', at + word.length);
    // A well-formed vocabulary ends with a newline; a hit past it would be no word.
    if (end === -1) return found;
    found.push(vocabulary.slice(start, end));
    if (found.length > most) return undefined;
    from = end + 1;
  }
}
