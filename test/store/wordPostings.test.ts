/**
 * The word index's pure part: id lists survive their bytes and refuse corrupt ones, merges keep
 * order, a row's words are what a query word can lie within, and a query word finds exactly the
 * vocabulary's words that contain it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { distinctWords, foldText } from '../../src/domain/search.ts';
import {
  bucketOf,
  decodePostings,
  decodePostingsInto,
  decodeSlot,
  eachRowWord,
  encodePostings,
  encodeSlot,
  listsIn,
  mergePostings,
  PostingsCorrupt,
  postingFlags,
  shiftPostings,
  slotCount,
  slotOf,
  soughtWord,
  vocabularyText,
  wordsContaining,
} from '../../src/store/wordPostings.ts';

const seed = 24;

/** The lists of a slot `listsIn` finds for `words`: each word and where its list lies ([start, end)). */
function listsOf(bytes: Uint8Array, words: readonly string[]): { word: string; ids: [number, number] }[] {
  const sought = words.map(soughtWord);
  const into: number[] = [];
  const count = listsIn(bytes, sought, into);
  return Array.from({ length: count }, (_, k) => ({
    word: sought[into[3 * k]!]!.word,
    ids: [into[3 * k + 1]!, into[3 * k + 2]!],
  }));
}

/** The ids of the list at [start, end) of `bytes`, decoded where it lies. */
function decodedIn(bytes: Uint8Array, [start, end]: [number, number]): number[] {
  const into = { ids: [] as number[], flags: [] as number[] };
  const count = decodePostingsInto(bytes, into, start, end);
  assert.deepEqual(into.ids.slice(0, count), [...decodePostings(bytes.subarray(start, end)).ids]);
  return into.ids.slice(0, count);
}

/** A row's words as one posting each: the flags of a word's visits together. */
function rowWords(row: Parameters<typeof eachRowWord>[0]): Map<string, number> {
  const words = new Map<string, number>();
  eachRowWord(row, (word, flags) => words.set(word, (words.get(word) ?? 0) | flags));
  return words;
}

describe('word postings', () => {
  it('reads back any ascending list of postings, ids as large as a bigserial gets in 2^49 rows', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 49 }), { maxLength: 200 }),
        fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 200, maxLength: 200 }),
        (raw, allFlags) => {
          const ids = [...raw].sort((a, b) => a - b);
          const postings = { ids, flags: allFlags.slice(0, ids.length) };
          assert.deepEqual(decodePostings(encodePostings(postings)), postings);
        },
      ),
      { seed, numRuns: 500 },
    );
    // Close ids take a byte each, flags and all.
    const close = { ids: [1000, 1001, 1005, 1010], flags: [1, 1, 1, 1].map(() => postingFlags.title) };
    assert.equal(encodePostings(close).length, 2 + 1 + 1 + 1);
  });

  it('decodes list after list into the same arrays: each list is the first entries, counted', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 40 }), { maxLength: 40 }), { maxLength: 8 }),
        (lists) => {
          const into = { ids: [] as number[], flags: [] as number[] };
          for (const raw of lists) {
            const ids = [...raw].sort((a, b) => a - b);
            const postings = { ids, flags: ids.map((id) => id % 8) };
            // A shorter list after a longer one: the entries past its count are the longer one's.
            const count = decodePostingsInto(encodePostings(postings), into);
            assert.equal(count, ids.length);
            assert.deepEqual({ ids: into.ids.slice(0, count), flags: into.flags.slice(0, count) }, postings);
          }
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it('refuses a list cut short, a gap past any id or an id named twice, never loops', () => {
    assert.throws(() => decodePostings(Uint8Array.from([0x85])), PostingsCorrupt);
    // Ids 1 and 1 (gaps 1 and 0, flags 0): a row named twice would be counted twice.
    assert.throws(() => decodePostings(Uint8Array.from([0x08, 0x00])), PostingsCorrupt);
    assert.throws(() => decodePostings(Uint8Array.from([0x03])), PostingsCorrupt);
    assert.throws(() => decodePostings(new Uint8Array(10).fill(0xff)), PostingsCorrupt);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          const { ids, flags } = decodePostings(bytes);
          assert.equal(ids.length, flags.length);
          for (let k = 1; k < ids.length; k++) assert.ok(ids[k]! > ids[k - 1]!);
          for (const id of ids) assert.ok(Number.isSafeInteger(id));
          for (const flag of flags) assert.ok(flag >= 0 && flag < 8);
        } catch (error) {
          assert.ok(error instanceof PostingsCorrupt);
        }
      }),
      { seed, numRuns: 500 },
    );
  });

  it('merges additions and removals into one ascending list, an added posting replacing its id', () => {
    const list = (...pairs: [number, number][]) => ({
      ids: pairs.map(([id]) => id),
      flags: pairs.map(([, f]) => f),
    });
    assert.deepEqual(
      mergePostings(list([1, 0], [4, 0], [9, 0]), list([2, 0], [4, 1], [7, 0]), [3, 9]),
      list([1, 0], [2, 0], [4, 1], [7, 0]),
    );
    assert.deepEqual(mergePostings(list([5, 0]), list(), [5]), list());
    // Against a plain model: any lists, any removals.
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 30 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 30 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 10 }),
        (heldIds, addedIds, removedIds) => {
          const held = list(
            ...[...heldIds].sort((a, b) => a - b).map((id): [number, number] => [id, id % 8]),
          );
          const added = list(
            ...[...addedIds].sort((a, b) => a - b).map((id, k): [number, number] => [id, (id + k) % 8]),
          );
          const model = new Map<number, number>();
          for (const [k, id] of held.ids.entries())
            if (!removedIds.includes(id)) model.set(id, held.flags[k]!);
          for (const [k, id] of added.ids.entries()) model.set(id, added.flags[k]!);
          const ids = [...model.keys()].sort((a, b) => a - b);
          assert.deepEqual(
            mergePostings(
              held,
              added,
              [...removedIds].sort((a, b) => a - b),
            ),
            {
              ids,
              flags: ids.map((id) => model.get(id)!),
            },
          );
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it('moves every id of a list by an offset, flags kept, without decoding the rest', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 40 }), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (raw, offset) => {
          const ids = [...raw].sort((a, b) => a - b);
          const flags = ids.map((id) => id % 8);
          assert.deepEqual(decodePostings(shiftPostings(encodePostings({ ids, flags }), offset)), {
            ids: ids.map((id) => id + offset),
            flags,
          });
        },
      ),
      { seed, numRuns: 300 },
    );
  });

  it('walks a slot no further than the last word sought', () => {
    const bytes = encodeSlot(
      new Map([
        ['agenda', encodePostings({ ids: [3], flags: [0] })],
        ['budget', encodePostings({ ids: [5, 9], flags: [1, 0] })],
        ['review', encodePostings({ ids: [7], flags: [1] })],
      ]),
    );
    // Bytes past the words sought (here a length cut short) are never read.
    const tailed = new Uint8Array([...bytes, 0x80]);
    const found = listsOf(tailed, ['budget', 'agenda']);
    assert.deepEqual(
      found.map(({ word, ids }) => [word, decodedIn(tailed, ids)]),
      [
        ['agenda', [3]],
        ['budget', [5, 9]],
      ],
    );
    assert.throws(() => listsOf(tailed, ['roadmap']), PostingsCorrupt);
  });

  it('keeps the lists of a slot by word, finds the words sought by their bytes, refuses a slot cut short', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
          fc.uint8Array({ minLength: 1, maxLength: 300 }),
          { maxKeys: 40 },
        ),
        fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), { maxLength: 5 }),
        (record, others) => {
          const lists = new Map(Object.entries(record));
          const bytes = encodeSlot(lists);
          assert.deepEqual(
            new Map([...decodeSlot(bytes)].map(([word, ids]) => [word, [...ids]])),
            new Map([...lists].map(([word, ids]) => [word, [...ids]])),
          );
          // Sought: some held, some not (a word of the same length but other bytes is not found).
          const sought = [...new Set([...[...lists.keys()].slice(0, 3), ...others])];
          const found = listsOf(bytes, sought);
          assert.deepEqual(
            found.map(({ word, ids }) => [word, [...bytes.subarray(...ids)]]).sort(),
            sought
              .filter((word) => lists.has(word))
              .map((word) => [word, [...lists.get(word)!]])
              .sort(),
          );
          if (bytes.length > 0) {
            const cut = bytes.subarray(0, bytes.length - 1);
            assert.throws(() => decodeSlot(cut), PostingsCorrupt);
            // A word the slot does not hold (longer than any it does) is looked for to the cut.
            assert.throws(() => listsOf(cut, ['w'.repeat(13)]), PostingsCorrupt);
          }
        },
      ),
      { seed, numRuns: 300 },
    );
    // A word's slot is part of the stored format (migration 0028 wrote it so): FNV-1a of its
    // code units, modulo 16.
    assert.equal(slotCount, 16);
    assert.deepEqual(['budget', 'review', '#1005.', 'überprüfung'].map(slotOf), [8, 1, 6, 12]);
  });

  it('puts a start in the bucket of its ~3 days, before 1970 too', () => {
    assert.equal(bucketOf(0), 0);
    assert.equal(bucketOf(2 ** 28 - 1), 0);
    assert.equal(bucketOf(2 ** 28), 1);
    assert.equal(bucketOf(-1), -1);
  });

  it("lists a row's words so that a query word lies in its text exactly when it lies in one of them", () => {
    const title = foldText('Quarterly  Planning:\tBudget Review');
    const body = distinctWords('Agenda:\n1. Budget — Müller\u00a0& co.\n\nSee the notes');
    const words = rowWords({ title_text: title, body_text: body, is_private: 0, floating: 0 });
    // A word met twice (title and body) is visited twice: its posting's flags are both visits'.
    let visits = 0;
    eachRowWord(
      { title_text: 'budget budget', body_text: 'budget', is_private: 0, floating: 0 },
      () => visits++,
    );
    assert.equal(visits, 3);
    assert.deepEqual([...words.keys()].sort(), [
      '&',
      '1.',
      'agenda:',
      'budget',
      'co.',
      'muller',
      'notes',
      'planning:',
      'quarterly',
      'review',
      'see',
      'the',
      '—',
    ]);
    // A word of the title is flagged so (also when the body has it); the row's privacy and local times on every word.
    assert.equal(words.get('budget'), postingFlags.title);
    assert.equal(words.get('notes'), 0);
    const privateFloating = rowWords({ title_text: 'x', body_text: 'y', is_private: 1, floating: 2 });
    assert.equal(privateFloating.get('x'), postingFlags.title | postingFlags.private | postingFlags.local);
    assert.equal(privateFloating.get('y'), postingFlags.private | postingFlags.local);
    for (const query of ['budget', 'ning:', 'mull', 'co.', 'the', 'gen', 'r\u00a0&', 'budget review']) {
      const inText = title.includes(query) || body.includes(query);
      const inWords = [...words.keys()].some((word) => word.includes(query));
      // A query word never holds white space; those that do are split before they get here.
      if (/\s/u.test(query)) assert.equal(inWords, false);
      else assert.equal(inWords, inText, query);
    }
  });

  it('finds the words of a vocabulary that contain a query word', () => {
    const vocabulary = vocabularyText(['budget', 'budgets', 'review', 'nudge', 'get']);
    assert.deepEqual(wordsContaining(vocabulary, 'budget'), ['budget', 'budgets']);
    assert.deepEqual(wordsContaining(vocabulary, 'dge'), ['budget', 'budgets', 'nudge']);
    assert.deepEqual(wordsContaining(vocabulary, 'get'), ['budget', 'budgets', 'get']);
    assert.deepEqual(wordsContaining(vocabulary, 'xyz'), []);
    assert.deepEqual(wordsContaining(vocabulary, 'e'), ['budget', 'budgets', 'review', 'nudge', 'get']);
    assert.deepEqual(wordsContaining('', 'a'), []);
    // Every word containing the query word, each once, whatever the vocabulary.
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-c]{1,5}$/), { maxLength: 30 }),
        fc.stringMatching(/^[a-c]{1,3}$/),
        (words, word) => {
          const found = wordsContaining(vocabularyText(words), word);
          assert.deepEqual(
            found,
            words.filter((w) => w.includes(word)),
          );
        },
      ),
      { seed, numRuns: 300 },
    );
  });
});
