/**
 * The word index of the copies: per copy, word and ~3 days of starts, the ids of the rows whose
 * text holds the word (store/wordPostings.ts), a bucket's lists kept in the rows of their words'
 * slots, written with the rows in the sync's transaction; and a vocabulary per copy. A search
 * reads the lists of the words that contain its query words instead of every row of its window,
 * and it is the only place a search finds text: the rows keep their occurrences packed and no
 * text beside them (the index is made from those occurrences).
 */
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { loopTurns } from '../lib/loopTurns.ts';
import { copyKeyOf } from './calendarCopies.ts';
import { indexStarts } from './copyStarts.ts';
import { listChanges } from './listChanges.ts';
import { unpackOccurrence } from './packedOccurrence.ts';
import { inList, numberParameter, plannedEachCall, q, reused } from './reusedStatements.ts';
import { insertRows } from './rowsInsert.ts';
import type { CopyOccurrencesTable, Database } from './schema.ts';
import { readOffLoop } from './sqliteReaders.ts';
import type { CopyEdition, ListRow, WordCache } from './wordCache.ts';
import {
  bucketOf,
  type DecodedPostings,
  decodePostings,
  decodePostingsInto,
  decodeSlot,
  encodePostings,
  encodeSlot,
  type IndexedRow,
  indexedText,
  listsIn,
  mergePostings,
  postingFlags,
  type SoughtWord,
  slotOf,
  soughtWord,
  vocabularyText,
  wordsContaining,
} from './wordPostings.ts';

type Db = Kysely<Database>;
type Trx = Transaction<Database>;

/** The columns of copy_occurrences the index is made from: the texts come from the occurrence kept. */
export const indexedColumns = ['id', 'start_ms', 'is_private', 'floating', 'data'] as const;

/** Copied rows as the index needs them, their texts folded from their occurrences. */
export const indexedRows = <
  R extends Pick<Selectable<CopyOccurrencesTable>, (typeof indexedColumns)[number]>,
>(
  rows: readonly R[],
): (Omit<R, 'data'> & IndexedRow)[] =>
  rows.map(({ data, ...row }) => ({
    ...row,
    id: Number(row.id),
    start_ms: Number(row.start_ms),
    ...indexedText(unpackOccurrence(data)),
  }));

/** A vocabulary grown past this (words of rows long gone stay in it) is made anew from the rows. */
const vocabularyLimit = 256 * 1024;

/** Rows added to a copy and rows removed from it, into its word index, vocabulary and starts. */
export async function indexRows(
  trx: Trx,
  calendarId: string,
  added: readonly IndexedRow[],
  removed: readonly IndexedRow[],
): Promise<void> {
  if (added.length === 0 && removed.length === 0) return;
  const copy = await copyKeyOf(trx, calendarId).executeTakeFirst();
  // No copy, no rows: their lists went with it.
  if (copy === undefined) return;
  const copyKey = copy.copy_key;
  await indexStarts(trx, copyKey, added, removed);
  const changes = listChanges(added, removed);
  if (changes.length === 0) return;
  // A copy whose index is empty (a first sync) has no slot to merge with: none is read.
  const empty =
    (await trx.selectFrom('copy_words').select('bucket').where('copy_key', '=', copyKey).limit(1).execute())
      .length === 0;
  // Each changed slot's lists by word: those held (read once), then as the changes leave them.
  const slots = new Map<number, Map<number, Map<string, Uint8Array>>>();
  const slotFor = (bucket: number, slot: number) => {
    const ofBucket = slots.get(bucket) ?? new Map<number, Map<string, Uint8Array>>();
    slots.set(bucket, ofBucket);
    const lists = ofBucket.get(slot) ?? new Map<string, Uint8Array>();
    ofBucket.set(slot, lists);
    return lists;
  };
  for (const { word, bucket } of changes) slotFor(bucket, slotOf(word));
  const held = new Set<string>();
  if (!empty) {
    for (const [bucket, ofBucket] of slots) {
      const rows = await trx
        .selectFrom('copy_words')
        .select(['slot', 'lists'])
        .where('copy_key', '=', copyKey)
        .where('bucket', '=', bucket)
        .where('slot', 'in', [...ofBucket.keys()])
        .execute();
      for (const row of rows) {
        ofBucket.set(row.slot, decodeSlot(row.lists));
        held.add(`${bucket} ${row.slot}`);
      }
    }
  }
  const newWords = new Set<string>();
  for (const { word, bucket, added: plus, removed: minus } of changes) {
    if (plus.ids.length > 0) newWords.add(word);
    const lists = slotFor(bucket, slotOf(word));
    const before = lists.get(word);
    // A list of new rows alone (a first sync's) needs no merge.
    const after =
      before === undefined && minus.length === 0
        ? plus
        : mergePostings(before === undefined ? { ids: [], flags: [] } : decodePostings(before), plus, minus);
    if (after.ids.length > 0) lists.set(word, encodePostings(after));
    else lists.delete(word);
  }
  const written: { copy_key: number; bucket: number; slot: number; lists: Uint8Array }[] = [];
  const emptied: { bucket: number; slot: number }[] = [];
  for (const [bucket, ofBucket] of slots)
    for (const [slot, lists] of ofBucket) {
      if (lists.size > 0) written.push({ copy_key: copyKey, bucket, slot, lists: encodeSlot(lists) });
      else if (held.has(`${bucket} ${slot}`)) emptied.push({ bucket, slot });
    }
  // In the key's order: on PostgreSQL a table keeps rows where they were written, and a search
  // reads one slot over the window's buckets, which then share a page or two instead of one each.
  written.sort((a, b) => a.slot - b.slot || a.bucket - b.bucket);
  // Slots written over those of the same bucket and slot.
  for (let i = 0; i < written.length; i += 500)
    await insertRows(trx, 'copy_words', ['copy_key', 'bucket', 'slot', 'lists'], written.slice(i, i + 500), {
      onConflict: '("copy_key", "slot", "bucket") do update set "lists" = excluded."lists"',
    });
  for (const { bucket, slot } of emptied)
    await trx
      .deleteFrom('copy_words')
      .where('copy_key', '=', copyKey)
      .where('bucket', '=', bucket)
      .where('slot', '=', slot)
      .execute();
  if (newWords.size > 0) await growVocabulary(trx, calendarId, newWords);
}

/** The copy's vocabulary with `words` it lacks added (words whose rows are gone stay until it is made anew). */
async function growVocabulary(trx: Trx, calendarId: string, words: Set<string>): Promise<void> {
  const held = await trx
    .selectFrom('copy_vocabulary')
    .select('words')
    .where('calendar_id', '=', calendarId)
    .executeTakeFirst();
  const text = held?.words ?? '';
  // A write's few words are looked for in the text; a sync's many against its words split once.
  let isKnown = (word: string) => text.includes(`\n${word}\n`);
  if (words.size > 64) {
    const known = new Set(text.split('\n'));
    isKnown = (word) => known.has(word);
  }
  const fresh = [...words].filter((word) => !isKnown(word));
  if (fresh.length === 0) return;
  const grown = text === '' ? vocabularyText(fresh) : `${text}${fresh.join('\n')}\n`;
  await trx
    .insertInto('copy_vocabulary')
    .values({ calendar_id: calendarId, words: grown })
    .onConflict((conflict) => conflict.column('calendar_id').doUpdateSet({ words: grown }))
    .execute();
}

/** The index and vocabulary of a copy made anew from its rows. */
export async function rebuildWords(trx: Trx, calendarId: string): Promise<void> {
  await dropWords(trx, calendarId);
  const copyKey = copyKeyOf(trx, calendarId);
  let after = -1;
  for (;;) {
    const rows = await trx
      .selectFrom('copy_occurrences')
      .select(indexedColumns)
      .where('copy_key', '=', copyKey)
      .where('id', '>', after)
      .orderBy('id')
      .limit(2000)
      .execute();
    if (rows.length === 0) break;
    await indexRows(trx, calendarId, indexedRows(rows), []);
    after = Number(rows.at(-1)!.id);
  }
}

/** A copy's index and vocabulary, gone (its rows went, or will be listed anew). */
export async function dropWords(trx: Trx, calendarId: string): Promise<void> {
  await trx.deleteFrom('copy_words').where('copy_key', '=', copyKeyOf(trx, calendarId)).execute();
  await trx.deleteFrom('copy_starts').where('copy_key', '=', copyKeyOf(trx, calendarId)).execute();
  await trx.deleteFrom('copy_vocabulary').where('calendar_id', '=', calendarId).execute();
}

/** Whether a copy's vocabulary has grown past its bound: then the sync's end makes it anew. */
export async function vocabularyOverGrown(trx: Trx, calendarId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('copy_vocabulary')
    .select(sql<number>`length(words)`.as('size'))
    .where('calendar_id', '=', calendarId)
    .executeTakeFirst();
  return row !== undefined && Number(row.size) > vocabularyLimit;
}

/** One copy's part of a search by the index: the starts (as stored) its rows may have. */
export interface WordQuery {
  calendarId: string;
  /** The copy's number, by which its lists are keyed. */
  copyKey: number;
  /** The copy's edition, when its words may be kept (store/wordCache.ts). */
  edition?: CopyEdition;
  fromMs: number;
  untilMs: number;
}

/** What the reader may see matched: the title alone, private events' text. */
export interface WordReader {
  titlesOnly: boolean;
  privateDetails: boolean;
}

/**
 * The rows of a copy the index names as holding every word where the reader may see it: the ids
 * of rows of instants by their bucket of starts, and apart those whose times are local (placed in
 * the reader's zone). Lists, not an object per row: a search names thousands.
 */
export interface Candidates {
  buckets: Map<number, number[]>;
  local: number[];
}

export const noCandidates = (): Candidates => ({ buckets: new Map(), local: [] });

/**
 * `ids` appended to `into`. Indexed: a read's code runs once a request, mostly unoptimised, where
 * a `for…of` over thousands of ids left an iterator result behind for each one.
 */
export function appendIds(into: number[], ids: readonly number[]): void {
  for (let k = 0; k < ids.length; k++) into.push(ids[k]!);
}

/** A row named, into `candidates`. */
export function addCandidate(candidates: Candidates, id: number, bucket: number, local: boolean): void {
  if (local) candidates.local.push(id);
  else {
    const ids = candidates.buckets.get(bucket);
    if (ids === undefined) candidates.buckets.set(bucket, [id]);
    else ids.push(id);
  }
}

/** How many rows `candidates` names. */
export function candidateCount({ buckets, local }: Candidates): number {
  let count = local.length;
  for (const ids of buckets.values()) count += ids.length;
  return count;
}

/** The ids of every row `candidates` names. */
export function candidateIds({ buckets, local }: Candidates): Set<number> {
  const ids = new Set(local);
  for (const ofBucket of buckets.values()) for (let k = 0; k < ofBucket.length; k++) ids.add(ofBucket[k]!);
  return ids;
}

/** A list found in a slot: where its postings lie in the slot's bytes, and its bucket. */
interface FoundList {
  bucket: number;
  bytes: Uint8Array;
  start: number;
  end: number;
}

/** Work between two yields of the event loop, in ms: a query word inside most words reads every list of its window. */
const turnMs = 3;

/**
 * The rows of each copy that hold every word in text the reader may see, from the index alone:
 * the lists of the vocabulary's words that contain each query word, within the copies' buckets.
 * A query word found nearly everywhere reads every list of the window: the work is the window's
 * postings, split into turns of the event loop of a few milliseconds each.
 */
export async function wordCandidates(
  db: Db,
  queries: readonly WordQuery[],
  words: readonly string[],
  reader: WordReader,
  cache?: WordCache,
): Promise<Map<string, Candidates>> {
  const candidates = new Map<string, Candidates>(queries.map((q) => [q.calendarId, noCandidates()]));
  if (queries.length === 0 || words.length === 0) return candidates;
  const vocabularies = new Map<string, string>();
  const unread: string[] = [];
  for (const query of queries) {
    const kept = query.edition === undefined ? undefined : cache?.vocabulary(query.edition);
    if (kept === undefined) unread.push(query.calendarId);
    else vocabularies.set(query.calendarId, kept);
  }
  // Lists as one parameter each: the statements keep one text for any number of calendars and
  // words, prepared once per connection (PostgreSQL planned a union of 20 at every search).
  if (unread.length > 0) {
    const vocabularyRows = await readOffLoop(
      db,
      reused(
        db,
        q<{
          calendar_id: string;
          words: string;
        }>`select calendar_id, words from copy_vocabulary where calendar_id ${inList(db, unread, 'text')}`,
      ),
    );
    for (const row of vocabularyRows) vocabularies.set(row.calendar_id, row.words);
  }
  // Per copy, the vocabulary's words for each query word; a word found in none of them: nothing of the copy matches.
  const lookups: { query: WordQuery; found: string[][] }[] = [];
  for (const query of queries) {
    const vocabulary = vocabularies.get(query.calendarId) ?? '';
    const found = words.map((word) => wordsContaining(vocabulary, word));
    if (found.every((list) => list.length > 0)) lookups.push({ query, found });
  }
  if (lookups.length === 0) return candidates;
  const rangeOf = (query: WordQuery) => ({ from: bucketOf(query.fromMs), until: bucketOf(query.untilMs) });
  // The words looked for, by slot: a slot's other words are passed over by their bytes.
  const sought = new Map<number, SoughtWord[]>();
  for (const word of new Set(lookups.flatMap(({ found }) => found.flat()))) {
    const slot = slotOf(word);
    const list = sought.get(slot);
    if (list === undefined) sought.set(slot, [soughtWord(word)]);
    else list.push(soughtWord(word));
  }
  // The lists of copies whose slots are kept; the rest are read.
  const rows: SlotRow[] = [];
  const toRead: WordQuery[] = [];
  for (const { query, found } of lookups) {
    const { from, until } = rangeOf(query);
    const kept =
      query.edition === undefined
        ? undefined
        : cache?.lists(query.edition, [...new Set(found.flat().map(slotOf))], from, until);
    if (kept === undefined) toRead.push(query);
    else
      for (const [slot, lists] of kept)
        for (const { bucket, lists: bytes } of lists)
          rows.push({ copy_key: query.copyKey, slot, bucket, lists: bytes });
  }
  if (toRead.length > 0) {
    // One range of buckets for all: a copy's rows outside its own range are left out below.
    const read = await readOffLoop(
      db,
      plannedEachCall(
        db,
        q<SlotRow>`select copy_key, slot, bucket, lists from copy_words where copy_key ${inList(
          db,
          toRead.map((query) => query.copyKey),
          'bigint',
        )} and slot ${inList(db, [...sought.keys()], 'bigint')} and bucket >= ${numberParameter(Math.min(...toRead.map((query) => rangeOf(query).from)))} and bucket <= ${numberParameter(Math.max(...toRead.map((query) => rangeOf(query).until)))}`,
      ),
    );
    for (const row of read) rows.push(row);
    if (cache !== undefined) keepRead(cache, toRead, vocabularies, [...sought.keys()], read);
  }
  const turn = loopTurns(turnMs);
  // Per copy, its buckets and its lists by word.
  const ranges = new Map(
    lookups.map(({ query }) => [
      query.copyKey,
      { ...rangeOf(query), byWord: new Map<string, FoundList[]>() },
    ]),
  );
  // Where the lists of one slot lie (word, start, end), written over for each row.
  const found: number[] = [];
  for (let n = 0; n < rows.length; n++) {
    if (n % 256 === 255) await turn();
    const row = rows[n]!;
    const bucket = Number(row.bucket);
    const range = ranges.get(Number(row.copy_key));
    if (range === undefined || bucket < range.from || bucket > range.until) continue;
    const inSlot = sought.get(Number(row.slot)) ?? [];
    const count = listsIn(row.lists, inSlot, found);
    for (let k = 0; k < count; k++) {
      const { word } = inSlot[found[3 * k]!]!;
      const lists = range.byWord.get(word);
      const list = { bucket, bytes: row.lists, start: found[3 * k + 1]!, end: found[3 * k + 2]! };
      if (lists === undefined) range.byWord.set(word, [list]);
      else lists.push(list);
    }
  }
  // What the reader may not see matched is never listed for it.
  const hidden = reader.privateDetails ? 0 : postingFlags.private;
  const visible = (flags: number) =>
    (flags & hidden) === 0 && (!reader.titlesOnly || (flags & postingFlags.title) !== 0);
  // Every list decoded into the same two arrays.
  const postings: DecodedPostings = { ids: [], flags: [] };
  for (const { query, found: containingWords } of lookups) {
    const { byWord } = ranges.get(query.copyKey)!;
    // Each query word's rows among the previous words': the postings of its words are walked
    // once, each row kept once (several words may contain the query word). A row lies in one
    // bucket, its times local or not, under every word it holds.
    let kept: Candidates | undefined;
    for (const containing of containingWords) {
      const before = kept === undefined ? undefined : candidateIds(kept);
      // A word's lists name each row once: only rows under several words are told apart.
      const seen = containing.length > 1 ? new Set<number>() : undefined;
      const these = noCandidates();
      for (const name of containing)
        for (const { bucket, bytes, start, end } of byWord.get(name) ?? []) {
          const count = decodePostingsInto(bytes, postings, start, end);
          const { ids, flags } = postings;
          for (let k = 0; k < count; k++) {
            const id = ids[k]!;
            if (!visible(flags[k]!) || (before !== undefined && !before.has(id))) continue;
            if (seen !== undefined) {
              if (seen.has(id)) continue;
              seen.add(id);
            }
            addCandidate(these, id, bucket, (flags[k]! & postingFlags.local) !== 0);
          }
          const yielding = turn();
          if (yielding !== undefined) await yielding;
        }
      kept = these;
      if (candidateCount(kept) === 0) break;
    }
    if (kept !== undefined) candidates.set(query.calendarId, kept);
  }
  return candidates;
}

/** A row of the copies' slots as a search reads it. */
interface SlotRow {
  copy_key: number | string;
  slot: number;
  bucket: number | string;
  lists: Uint8Array;
}

/** What a search read of each copy's words, offered to the cache for the next (which copies only what it keeps). */
function keepRead(
  cache: WordCache,
  read: readonly WordQuery[],
  vocabularies: ReadonlyMap<string, string>,
  slots: readonly number[],
  rows: readonly SlotRow[],
): void {
  const ofCopy = new Map<number, ListRow[]>(read.map((query) => [query.copyKey, []]));
  for (const row of rows)
    ofCopy.get(Number(row.copy_key))?.push({
      slot: Number(row.slot),
      bucket: Number(row.bucket),
      lists: row.lists,
    });
  for (const query of read)
    if (query.edition !== undefined)
      cache.keep(query.edition, vocabularies.get(query.calendarId) ?? '', {
        slots,
        from: bucketOf(query.fromMs),
        until: bucketOf(query.untilMs),
        rows: ofCopy.get(query.copyKey)!,
      });
}
