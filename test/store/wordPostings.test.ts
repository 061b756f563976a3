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
  decodeIds,
  encodeIds,
  mergeIds,
  PostingsCorrupt,
  rowWords,
  vocabularyText,
  wordsContaining,
} from '../../src/store/wordPostings.ts';

const seed = 24;

describe('word postings', () => {
  it('reads back any ascending list of ids, small or as large as a bigserial gets', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.maxSafeNat(), { maxLength: 200 }), (raw) => {
        const ids = [...raw].sort((a, b) => a - b);
        assert.deepEqual(decodeIds(encodeIds(ids)), ids);
      }),
      { seed, numRuns: 500 },
    );
    // Close ids take a byte each.
    assert.equal(encodeIds([1000, 1001, 1005, 1100]).length, 2 + 1 + 1 + 1);
  });

  it('refuses a list cut short or a gap past any id, never loops', () => {
    assert.throws(() => decodeIds(Uint8Array.from([0x85])), PostingsCorrupt);
    assert.throws(() => decodeIds(new Uint8Array(10).fill(0xff)), PostingsCorrupt);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          for (const id of decodeIds(bytes)) assert.ok(Number.isSafeInteger(id));
        } catch (error) {
          assert.ok(error instanceof PostingsCorrupt);
        }
      }),
      { seed, numRuns: 500 },
    );
  });

  it('merges additions and removals into one ascending list without repeats', () => {
    assert.deepEqual(mergeIds([1, 4, 9], [7, 4, 2], new Set([9, 3])), [1, 2, 4, 7]);
    assert.deepEqual(mergeIds([5], [], new Set([5])), []);
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
    const words = rowWords({ title_text: title, body_text: body });
    assert.deepEqual(
      [...words],
      [
        'quarterly',
        'planning:',
        'budget',
        'review',
        'agenda:',
        '1.',
        '—',
        'muller',
        '&',
        'co.',
        'see',
        'the',
        'notes',
      ],
    );
    for (const query of ['budget', 'ning:', 'mull', 'co.', 'the', 'gen', 'r\u00a0&', 'budget review']) {
      const inText = title.includes(query) || body.includes(query);
      const inWords = [...words].some((word) => word.includes(query));
      // A query word never holds white space; those that do are split before they get here.
      if (/\s/u.test(query)) assert.equal(inWords, false);
      else assert.equal(inWords, inText, query);
    }
  });

  it('finds the words of a vocabulary that contain a query word, and gives up past a bound', () => {
    const vocabulary = vocabularyText(['budget', 'budgets', 'review', 'nudge', 'get']);
    assert.deepEqual(wordsContaining(vocabulary, 'budget', 10), ['budget', 'budgets']);
    assert.deepEqual(wordsContaining(vocabulary, 'dge', 10), ['budget', 'budgets', 'nudge']);
    assert.deepEqual(wordsContaining(vocabulary, 'get', 10), ['budget', 'budgets', 'get']);
    assert.deepEqual(wordsContaining(vocabulary, 'xyz', 10), []);
    assert.equal(wordsContaining(vocabulary, 'e', 3), undefined);
    assert.deepEqual(wordsContaining('', 'a', 10), []);
    // Every word containing the query word, each once, whatever the vocabulary.
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-c]{1,5}$/), { maxLength: 30 }),
        fc.stringMatching(/^[a-c]{1,3}$/),
        (words, word) => {
          const found = wordsContaining(vocabularyText(words), word, 1_000);
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
