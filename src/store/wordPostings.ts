/**
 * The word index of the copies, its pure part: a copied row's words, the stretch of time a
 * posting list covers, the lists as bytes, and a query word found in a copy's vocabulary. A query
 * word holds no white space, so it occurs in a row's folded text exactly when it occurs within
 * one of the row's words (domain/search.ts#distinctWords): the rows that may match are those
 * listed under the vocabulary's words that contain it.
 */
/** A posting list covers 2^28 ms (~3.1 days) of starts: a month's window reads about ten per word. */
const bucketMs = 2 ** 28;

/** The stretch of starts (as stored: local times read as UTC) that `startMs` falls in. */
export const bucketOf = (startMs: number): number => Math.floor(startMs / bucketMs);

/** What the index needs of a copied row. */
export interface IndexedRow {
  id: number;
  start_ms: number;
  title_text: string;
  body_text: string;
}

/** The distinct words of a copied row: its folded title split, and the body's words (one per line). */
export function rowWords(row: Pick<IndexedRow, 'title_text' | 'body_text'>): Set<string> {
  const words = new Set<string>();
  // Split as stored (already folded): a query word lies within one of these exactly when it lies within the text.
  for (const word of row.title_text.split(/\p{White_Space}+/u)) if (word !== '') words.add(word);
  for (const word of row.body_text.split('\n')) if (word !== '') words.add(word);
  return words;
}

/** Ascending row ids as bytes: each the gap from the one before, 7 bits a byte. */
export function encodeIds(ids: readonly number[]): Uint8Array {
  const out: number[] = [];
  let last = 0;
  for (const id of ids) {
    let gap = id - last;
    last = id;
    while (gap >= 0x80) {
      out.push((gap % 0x80) | 0x80);
      gap = Math.floor(gap / 0x80);
    }
    out.push(gap);
  }
  return Uint8Array.from(out);
}

export class PostingsCorrupt extends Error {}

/** The ids `encodeIds` wrote. */
export function decodeIds(bytes: Uint8Array): number[] {
  const ids: number[] = [];
  let last = 0;
  let gap = 0;
  let scale = 1;
  for (const byte of bytes) {
    gap += (byte & 0x7f) * scale;
    if (byte & 0x80) {
      scale *= 0x80;
      if (scale > 2 ** 49) throw new PostingsCorrupt('a posting gap too long');
      continue;
    }
    last += gap;
    if (last > Number.MAX_SAFE_INTEGER) throw new PostingsCorrupt('a posting past any row id');
    ids.push(last);
    gap = 0;
    scale = 1;
  }
  if (scale !== 1) throw new PostingsCorrupt('a posting list cut short');
  return ids;
}

/** `held` with `added` in and `removed` out, ascending and distinct. */
export function mergeIds(
  held: readonly number[],
  added: readonly number[],
  removed: ReadonlySet<number>,
): number[] {
  const ids = new Set<number>();
  for (const id of held) if (!removed.has(id)) ids.add(id);
  for (const id of added) ids.add(id);
  return [...ids].sort((a, b) => a - b);
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
