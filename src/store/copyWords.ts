/**
 * The word index of the copies: per copy, word and ~3 days of starts, the ids of the rows whose
 * text holds the word (store/wordPostings.ts), kept with the rows in the sync's transaction, and a
 * vocabulary per copy. A search reads the lists of the words that contain its query words instead
 * of every row of its window; the rows it names are then checked as a scan would check them, so
 * the index only ever narrows which rows are looked at.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import { engineOf } from './database.ts';
import { inList, numberParameter, reused } from './reusedStatements.ts';
import type { Database } from './schema.ts';
import { readOffLoop } from './sqliteReaders.ts';
import {
  bucketOf,
  decodePostings,
  encodePostings,
  type IndexedRow,
  inOrder,
  mergePostings,
  postingFlags,
  rowWords,
  vocabularyText,
  wordsContaining,
} from './wordPostings.ts';

type Db = Kysely<Database>;
type Trx = Transaction<Database>;

/** The columns of copy_occurrences the index is made from. */
export const indexedColumns = [
  'id',
  'start_ms',
  'title_text',
  'body_text',
  'is_private',
  'floating',
] as const;

/** A vocabulary grown past this (words of rows long gone stay in it) is made anew from the rows. */
const vocabularyLimit = 256 * 1024;

/** Rows added to a copy and rows removed from it, into its word index and vocabulary. */
export async function indexRows(
  trx: Trx,
  calendarId: string,
  added: readonly IndexedRow[],
  removed: readonly IndexedRow[],
): Promise<void> {
  if (added.length === 0 && removed.length === 0) return;
  // Per bucket and word: the postings added (ids ascending as rows come, flags beside) and the ids removed.
  const changes = new Map<number, Map<string, { ids: number[]; flags: number[]; removed?: Set<number> }>>();
  const change = (word: string, bucket: number) => {
    let words = changes.get(bucket);
    if (words === undefined) {
      words = new Map();
      changes.set(bucket, words);
    }
    let found = words.get(word);
    if (found === undefined) {
      found = { ids: [], flags: [] };
      words.set(word, found);
    }
    return found;
  };
  const newWords = new Set<string>();
  for (const row of removed) {
    const bucket = bucketOf(Number(row.start_ms));
    for (const word of rowWords(row).keys()) {
      const found = change(word, bucket);
      found.removed ??= new Set();
      found.removed.add(Number(row.id));
    }
  }
  for (const row of added) {
    const bucket = bucketOf(Number(row.start_ms));
    const id = Number(row.id);
    for (const [word, flags] of rowWords(row)) {
      const found = change(word, bucket);
      found.ids.push(id);
      found.flags.push(flags);
      newWords.add(word);
    }
  }
  const written: { word: string; bucket: number; ids: Uint8Array }[] = [];
  const emptied = new Map<number, string[]>();
  // A copy whose index is empty (a first sync) has no list to merge with: none is read.
  const empty =
    (
      await trx
        .selectFrom('copy_words')
        .select('bucket')
        .where('calendar_id', '=', calendarId)
        .limit(1)
        .execute()
    ).length === 0;
  for (const [bucket, words] of changes) {
    const names = [...words.keys()];
    const held = new Map<string, Uint8Array>();
    for (let i = 0; !empty && i < names.length; i += 500) {
      const rows = await trx
        .selectFrom('copy_words')
        .select(['word', 'ids'])
        .where('calendar_id', '=', calendarId)
        .where('bucket', '=', bucket)
        .where('word', 'in', names.slice(i, i + 500))
        .execute();
      for (const row of rows) held.set(row.word, row.ids);
    }
    for (const [word, { ids, flags, removed: gone }] of words) {
      const before = held.get(word);
      // A list of new rows alone (a first sync's) needs no merge, only their order.
      const after =
        before === undefined && gone === undefined
          ? inOrder({ ids, flags })
          : mergePostings(
              before === undefined ? { ids: [], flags: [] } : decodePostings(before),
              { ids, flags },
              gone ?? new Set(),
            );
      if (after.ids.length > 0) written.push({ word, bucket, ids: encodePostings(after) });
      else if (before !== undefined) emptied.set(bucket, [...(emptied.get(bucket) ?? []), word]);
    }
  }
  await writeLists(trx, calendarId, written);
  for (const [bucket, words] of emptied) {
    for (let i = 0; i < words.length; i += 500) {
      await trx
        .deleteFrom('copy_words')
        .where('calendar_id', '=', calendarId)
        .where('bucket', '=', bucket)
        .where('word', 'in', words.slice(i, i + 500))
        .execute();
    }
  }
  if (newWords.size > 0) await growVocabulary(trx, calendarId, newWords);
}

/** Lists written over those of the same word and bucket. */
async function writeLists(
  trx: Trx,
  calendarId: string,
  lists: readonly { word: string; bucket: number; ids: Uint8Array }[],
): Promise<void> {
  for (let i = 0; i < lists.length; i += 1000) {
    await trx
      .insertInto('copy_words')
      .values(lists.slice(i, i + 1000).map((list) => ({ calendar_id: calendarId, ...list })))
      .onConflict((conflict) =>
        conflict
          .columns(['calendar_id', 'word', 'bucket'])
          .doUpdateSet({ ids: (eb) => eb.ref('excluded.ids') }),
      )
      .execute();
  }
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

/** The index and vocabulary of a copy made anew from its rows, and the copy marked as indexed. */
export async function rebuildWords(trx: Trx, calendarId: string): Promise<void> {
  await dropWords(trx, calendarId);
  let after = -1;
  for (;;) {
    const rows = await trx
      .selectFrom('copy_occurrences')
      .select(indexedColumns)
      .where('calendar_id', '=', calendarId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(2000)
      .execute();
    if (rows.length === 0) break;
    await indexRows(trx, calendarId, rows, []);
    after = Number(rows.at(-1)!.id);
  }
  await trx
    .updateTable('calendar_copies')
    .set({ words_indexed: engineOf(trx) === 'postgres' ? true : 1 })
    .where('calendar_id', '=', calendarId)
    .execute();
}

/** A copy's index and vocabulary, gone (its rows went, or will be listed anew). */
export async function dropWords(trx: Trx, calendarId: string): Promise<void> {
  await trx.deleteFrom('copy_words').where('calendar_id', '=', calendarId).execute();
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
  fromMs: number;
  untilMs: number;
}

/** What the reader may see matched: the title alone, private events' text. */
export interface WordReader {
  titlesOnly: boolean;
  privateDetails: boolean;
}

/** A row the index names as holding every word where the reader may see it: its bucket of starts, whether its times are local. */
export interface Candidate {
  id: number;
  bucket: number;
  local: boolean;
}

/** Past this many words containing one query word, the index is not worth reading. */
const wordsPerQueryWord = 64;
/** Past this many rows named, checking them costs more than a scan of the window. */
const mostCandidates = 20_000;

/**
 * The rows of each copy that hold every word in text the reader may see, from the index;
 * undefined when a copy has no index yet or the words are too common for the index to pay (then
 * the read scans).
 */
export async function wordCandidates(
  db: Db,
  queries: readonly WordQuery[],
  words: readonly string[],
  reader: WordReader,
): Promise<Map<string, Candidate[]> | undefined> {
  if (queries.length === 0 || words.length === 0) return undefined;
  // Lists as one parameter each: the statements keep one text for any number of calendars and
  // words, prepared once per connection (PostgreSQL planned a union of 20 at every search).
  const among = (values: readonly string[]) => inList(db, values, 'text');
  const copies = await readOffLoop(
    db,
    reused(
      sql<{
        calendar_id: string;
        words_indexed: number | boolean;
        words: string | null;
      }>`select c.calendar_id, c.words_indexed, v.words from calendar_copies c left join copy_vocabulary v on v.calendar_id = c.calendar_id where c.calendar_id ${among(queries.map((q) => q.calendarId))}`,
    ).compile(db),
  );
  const vocabularies = new Map<string, string>();
  for (const copy of copies) {
    if (!copy.words_indexed) return undefined;
    vocabularies.set(copy.calendar_id, copy.words ?? '');
  }
  // Per copy, the vocabulary's words for each query word.
  const lookups: { query: WordQuery; found: string[][] }[] = [];
  for (const query of queries) {
    const vocabulary = vocabularies.get(query.calendarId);
    if (vocabulary === undefined) return undefined;
    const found: string[][] = [];
    for (const word of words) {
      const containing = wordsContaining(vocabulary, word, wordsPerQueryWord);
      if (containing === undefined) return undefined;
      found.push(containing);
    }
    // A word found in none of its words: nothing of this copy can match.
    if (found.every((list) => list.length > 0)) lookups.push({ query, found });
  }
  const candidates = new Map<string, Candidate[]>(queries.map((q) => [q.calendarId, []]));
  if (lookups.length === 0) return candidates;
  // One range of buckets for all: a copy's rows outside its own range are left out below.
  const ranges = new Map(
    lookups.map(({ query }) => [query.calendarId, [bucketOf(query.fromMs), bucketOf(query.untilMs)]]),
  );
  const bounds = [...ranges.values()];
  const rows = await readOffLoop(
    db,
    reused(
      sql<{
        calendar_id: string;
        word: string;
        bucket: number | string;
        ids: Uint8Array;
      }>`select calendar_id, word, bucket, ids from copy_words where calendar_id ${among(lookups.map(({ query }) => query.calendarId))} and word ${among([...new Set(lookups.flatMap(({ found }) => found.flat()))])} and bucket >= ${numberParameter(Math.min(...bounds.map(([from]) => from!)))} and bucket <= ${numberParameter(Math.max(...bounds.map(([, until]) => until!)))}`,
    ).compile(db),
  );
  // What the reader may not see matched is never listed for it.
  const hidden = reader.privateDetails ? 0 : postingFlags.private;
  const listed = new Map<string, Map<string, Candidate[]>>();
  for (const row of rows) {
    const bucket = Number(row.bucket);
    const [from, until] = ranges.get(row.calendar_id)!;
    if (bucket < from! || bucket > until!) continue;
    const byWord = listed.get(row.calendar_id) ?? new Map<string, Candidate[]>();
    listed.set(row.calendar_id, byWord);
    const held = byWord.get(row.word) ?? [];
    byWord.set(row.word, held);
    const { ids, flags } = decodePostings(row.ids);
    for (let k = 0; k < ids.length; k++) {
      if (flags[k]! & hidden) continue;
      if (reader.titlesOnly && !(flags[k]! & postingFlags.title)) continue;
      held.push({ id: ids[k]!, bucket, local: (flags[k]! & postingFlags.local) !== 0 });
    }
  }
  let total = 0;
  for (const { query, found } of lookups) {
    const byWord = listed.get(query.calendarId);
    if (byWord === undefined) continue;
    let kept: Map<number, Candidate> | undefined;
    for (const containing of found) {
      const these = new Map<number, Candidate>();
      for (const name of containing)
        for (const candidate of byWord.get(name) ?? [])
          if (kept === undefined || kept.has(candidate.id)) these.set(candidate.id, candidate);
      kept = these;
      if (kept.size === 0) break;
    }
    const named = [...(kept?.values() ?? [])];
    total += named.length;
    if (total > mostCandidates) return undefined;
    candidates.set(query.calendarId, named);
  }
  return candidates;
}
