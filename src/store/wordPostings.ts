/**
 * The word index of the copies, its pure part: a copied row's words, the stretch of time a
 * posting list covers, the lists as bytes, and a query word found in a copy's vocabulary. A query
 * word holds no white space, so it occurs in a row's folded text exactly when it occurs within
 * one of the row's words (domain/search.ts#distinctWords): the rows that may match are those
 * listed under the vocabulary's words that contain it.
 */
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import { distinctWords, eachWord, foldText } from '../domain/search.ts';

/** A posting list covers 2^28 ms (~3.1 days) of starts: a month's window reads about ten per word's slot. */
const bucketMs = 2 ** 28;

/** The first start (epoch ms, as stored) of a bucket. */
export const bucketStartMs = (bucket: number): number => bucket * bucketMs;

/** The stretch of starts (as stored: local times read as UTC) that `startMs` falls in. */
export const bucketOf = (startMs: number): number => Math.floor(startMs / bucketMs);

/** What the index needs of a copied row: its texts as `indexedText` folds them. */
export interface IndexedRow {
  id: number;
  start_ms: number;
  title_text: string;
  body_text: string;
  is_private: number;
  floating: number;
}

/**
 * The texts of an occurrence (as copied) that a search may match, folded: the title whole, and
 * the distinct words of the rest, one per line. Only the index and the staging rows hold them:
 * a copied row keeps the occurrence alone, and a search asks the index.
 */
export function indexedText(occurrence: ProviderOccurrence): { title_text: string; body_text: string } {
  return {
    title_text: foldText(occurrence.title ?? ''),
    body_text: distinctWords(
      [occurrence.description ?? '', ...(occurrence.categories ?? []), ...(occurrence.keywords ?? [])].join(
        '\n',
      ),
    ),
  };
}

/**
 * What a posting says beside its row's id, so that a search decides without the row: the word is
 * in the title (a titles-level reader sees no more), the row is private or secret (its text shows
 * only with private details), its times are local (placed by the reader's zone).
 */
export const postingFlags = { title: 1, private: 2, local: 4 } as const;

/** Rows listed under a word: their ids ascending, each one's flags beside it (no object per posting: lists are long). */
export interface Postings {
  ids: ArrayLike<number>;
  flags: ArrayLike<number>;
}

/**
 * Each word of a copied row with its posting's flags: the body's words (one per line), then the
 * folded title split. A word may come twice (in the title and the body, or twice in the title):
 * the flags of its visits together are its posting's. No collection per row: a sync indexes
 * ~65 words a row.
 */
export function eachRowWord(
  row: Omit<IndexedRow, 'id' | 'start_ms'>,
  visit: (word: string, flags: number) => void,
): void {
  const common =
    (Number(row.is_private) !== 0 ? postingFlags.private : 0) |
    (Number(row.floating) !== 0 ? postingFlags.local : 0);
  const body = row.body_text;
  for (let from = 0; from < body.length; ) {
    let end = body.indexOf('\n', from);
    if (end === -1) end = body.length;
    if (end > from) visit(body.slice(from, end), common);
    from = end + 1;
  }
  // Split as stored (already folded): a query word lies within one of these exactly when it lies within the text.
  eachWord(row.title_text, (word) => visit(word, common | postingFlags.title));
}

/** Bytes written by `encodePostings` before they are cut to length: one buffer, grown as lists need. */
let scratch = new Uint8Array(4096);

/** Postings as bytes: each the gap from the id before times 8 plus its flags, 7 bits a byte. */
export function encodePostings({ ids, flags }: Postings): Uint8Array {
  // A posting takes at most 8 bytes (ids below 2^53, gaps times 8 below 2^56).
  if (scratch.length < ids.length * 8) scratch = new Uint8Array(ids.length * 16);
  let at = 0;
  let last = 0;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    let value = (id - last) * 8 + flags[k]!;
    last = id;
    while (value >= 0x80) {
      scratch[at++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    scratch[at++] = value;
  }
  return scratch.slice(0, at);
}

export class PostingsCorrupt extends Error {}

/** Postings decoded: arrays a decoder writes into. */
export interface DecodedPostings extends Postings {
  ids: number[];
  flags: number[];
}

/** The postings `encodePostings` wrote. */
export function decodePostings(bytes: Uint8Array): DecodedPostings {
  const postings: DecodedPostings = { ids: [], flags: [] };
  decodePostingsInto(bytes, postings);
  return postings;
}

/**
 * The postings `encodePostings` wrote (in `bytes`, or in its bytes [start, end)), into the first
 * entries of `into`'s arrays; returns how many. The arrays are grown, never emptied: a search
 * decodes hundreds of lists, and fresh arrays for each were a quarter of its garbage.
 */
export function decodePostingsInto(
  bytes: Uint8Array,
  into: DecodedPostings,
  start = 0,
  end = bytes.length,
): number {
  const { ids, flags } = into;
  let count = 0;
  let last = 0;
  let value = 0;
  let scale = 1;
  // Indexed: a `for…of` over the bytes left an iterator's results behind in a search's hot loop.
  for (let at = start; at < end; at++) {
    const byte = bytes[at]!;
    value += (byte & 0x7f) * scale;
    if (byte & 0x80) {
      scale *= 0x80;
      if (scale > 2 ** 49) throw new PostingsCorrupt('a posting gap too long');
      continue;
    }
    const gap = Math.floor(value / 8);
    // Ids ascend from 1: a list names each row once, which a search counts on.
    if (gap === 0) throw new PostingsCorrupt('a posting repeating the id before');
    last += gap;
    if (last > Number.MAX_SAFE_INTEGER) throw new PostingsCorrupt('a posting past any row id');
    ids[count] = last;
    flags[count] = value % 8;
    count += 1;
    value = 0;
    scale = 1;
  }
  if (scale !== 1) throw new PostingsCorrupt('a posting list cut short');
  return count;
}

/**
 * Postings with every id moved by `offset` (rows copied whole under new ids): ids are gaps, so
 * only the first, counted from 0, changes; the rest of the bytes stay as they are.
 */
export function shiftPostings(bytes: Uint8Array, offset: number): Uint8Array {
  let end = 0;
  while (end < bytes.length && bytes[end]! & 0x80) end++;
  if (end >= bytes.length) return bytes;
  const first = decodePostings(bytes.subarray(0, end + 1));
  const head = encodePostings({ ids: [first.ids[0]! + offset], flags: first.flags });
  const out = new Uint8Array(head.length + bytes.length - end - 1);
  out.set(head);
  out.set(bytes.subarray(end + 1), head.length);
  return out;
}

/** `held` with `added` in (replacing the same id's) and the ids `removed` out: one pass over the three, all ascending by id. */
export function mergePostings(held: Postings, added: Postings, removed: ArrayLike<number>): Postings {
  const ids: number[] = [];
  const flags: number[] = [];
  let a = 0;
  let b = 0;
  let r = 0;
  while (a < held.ids.length || b < added.ids.length) {
    const heldId = a < held.ids.length ? held.ids[a]! : Number.POSITIVE_INFINITY;
    const addedId = b < added.ids.length ? added.ids[b]! : Number.POSITIVE_INFINITY;
    if (addedId <= heldId) {
      ids.push(addedId);
      flags.push(added.flags[b++]!);
      if (addedId === heldId) a++;
    } else {
      while (r < removed.length && removed[r]! < heldId) r++;
      if (r >= removed.length || removed[r] !== heldId) {
        ids.push(heldId);
        flags.push(held.flags[a]!);
      }
      a++;
    }
  }
  return { ids, flags };
}

/**
 * A copy's lists of one bucket are kept in 16 rows, each word's in the row of its slot: a row a
 * word would spend ~90 bytes on the row and its key alone on PostgreSQL, and a calendar's
 * rarest words (a reference, a meeting's number) are one list of one posting each. The slot is
 * part of the stored format: a change needs the rows regrouped.
 */
export const slotCount = 16;

/** A word's slot: FNV-1a over its UTF-16 code units, modulo `slotCount`. */
export function slotOf(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % slotCount;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes a length takes, 7 bits a byte. */
function lengthSize(length: number): number {
  let size = 1;
  for (let value = length; value >= 0x80; value >>>= 7) size++;
  return size;
}

/** A length as 7 bits a byte, low first, written at `at`; returns its end. */
function putLength(out: Uint8Array, at: number, length: number): number {
  let value = length;
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  out[at++] = value;
  return at;
}

/** A word's UTF-8 length when it is ASCII (its bytes its code units), else -1. */
function asciiLength(word: string): number {
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) >= 0x80) return -1;
  return word.length;
}

/**
 * A slot's lists as bytes: each word (UTF-8) and its postings, both behind their lengths, in
 * order of word. Written into one buffer sized first: a first sync encodes ~50 slots a bucket,
 * and pieces per word made this a sync's largest allocation after the rows.
 */
export function encodeSlot(lists: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const words = [...lists.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let size = 0;
  for (let w = 0; w < words.length; w++) {
    const word = words[w]!;
    const ascii = asciiLength(word);
    const bytes = ascii >= 0 ? ascii : Buffer.byteLength(word, 'utf8');
    const postings = lists.get(word)!.length;
    size += lengthSize(bytes) + bytes + lengthSize(postings) + postings;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (let w = 0; w < words.length; w++) {
    const word = words[w]!;
    const ascii = asciiLength(word);
    if (ascii >= 0) {
      at = putLength(out, at, ascii);
      for (let i = 0; i < ascii; i++) out[at++] = word.charCodeAt(i);
    } else {
      const name = utf8.encode(word);
      at = putLength(out, at, name.length);
      out.set(name, at);
      at += name.length;
    }
    const postings = lists.get(word)!;
    at = putLength(out, at, postings.length);
    out.set(postings, at);
    at += postings.length;
  }
  return out;
}

/** Where the length `lengthAt` read last ends (a number beside the result: no object per read). */
let lengthEnd = 0;

/** The length written at `at` (7 bits a byte, low first); `lengthEnd` is set past it. */
function lengthAt(bytes: Uint8Array, at: number): number {
  // Words and most lists are shorter than 128 bytes: their length is one byte.
  const first = bytes[at];
  if (first !== undefined && first < 0x80) {
    lengthEnd = at + 1;
    return first;
  }
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    if (at >= bytes.length || shift > 28) throw new PostingsCorrupt('a slot cut short');
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) {
      lengthEnd = at;
      return value;
    }
  }
}

/** `at` moved past `count` bytes of `bytes`, which must hold them. */
function past(bytes: Uint8Array, at: number, count: number): number {
  if (at + count > bytes.length) throw new PostingsCorrupt('a slot cut short');
  return at + count;
}

/** Where the entry `entryAt` read last lies: its word's bytes [wordStart, wordEnd), its list's from listStart to where the next entry begins. */
const entry = { wordStart: 0, wordEnd: 0, listStart: 0 };

/**
 * Reads the entry of a slot at `at` into `entry` and answers where the next one begins. No
 * closure and no object per entry: a search walks thousands of them.
 */
function entryAt(bytes: Uint8Array, at: number): number {
  const wordLength = lengthAt(bytes, at);
  entry.wordStart = lengthEnd;
  entry.wordEnd = past(bytes, entry.wordStart, wordLength);
  const listLength = lengthAt(bytes, entry.wordEnd);
  entry.listStart = lengthEnd;
  return past(bytes, entry.listStart, listLength);
}

/** The lists `encodeSlot` wrote, by word (each list a view into `bytes`). */
export function decodeSlot(bytes: Uint8Array): Map<string, Uint8Array> {
  const lists = new Map<string, Uint8Array>();
  for (let at = 0; at < bytes.length; ) {
    const next = entryAt(bytes, at);
    let word: string;
    try {
      word = fromUtf8.decode(bytes.subarray(entry.wordStart, entry.wordEnd));
    } catch {
      throw new PostingsCorrupt('a word not UTF-8');
    }
    lists.set(word, bytes.subarray(entry.listStart, next));
    at = next;
  }
  return lists;
}

/** A word a search looks for in slots, with its UTF-8 bytes (compared as they are: no word is decoded). */
export interface SoughtWord {
  word: string;
  utf8: Uint8Array;
}

export const soughtWord = (word: string): SoughtWord => ({ word, utf8: utf8.encode(word) });

/**
 * Where the lists of the words sought lie in a slot: for each one held, the word's place in
 * `sought` and its list's start and end in `bytes`, three numbers each from the start of `into`;
 * answers how many. A slot holds each word once: the walk stops at the last one sought, and makes
 * nothing on its way (a search reads hundreds of slots).
 */
export function listsIn(bytes: Uint8Array, sought: readonly SoughtWord[], into: number[]): number {
  let found = 0;
  for (let at = 0; at < bytes.length && found < sought.length; ) {
    const next = entryAt(bytes, at);
    const { wordStart, wordEnd } = entry;
    for (let s = 0; s < sought.length; s++) {
      const name = sought[s]!.utf8;
      if (name.length !== wordEnd - wordStart) continue;
      let k = 0;
      while (k < name.length && name[k] === bytes[wordStart + k]) k++;
      if (k < name.length) continue;
      into[3 * found] = s;
      into[3 * found + 1] = entry.listStart;
      into[3 * found + 2] = next;
      found += 1;
      break;
    }
    at = next;
  }
  return found;
}

/** A vocabulary as kept: its words one per line, between newlines. */
export const vocabularyText = (words: Iterable<string>): string => {
  const list = [...words];
  return list.length === 0 ? '' : `\n${list.join('\n')}\n`;
};

/** The vocabulary's words that contain `word`, each once. */
export function wordsContaining(vocabulary: string, word: string): string[] {
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
    from = end + 1;
  }
}
