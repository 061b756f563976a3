/**
 * The lists a batch changes, against a plain model: per word and bucket, the postings of the
 * rows removed out and of the rows added in; a list whose postings come out as they went in is
 * left alone, and each list's ids come ascending whatever order the rows came in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { listChanges } from '../../src/store/listChanges.ts';
import { bucketOf, eachRowWord, type IndexedRow } from '../../src/store/wordPostings.ts';

const vocabulary = ['budget', 'review', 'plan', 'müller', 'a'];

const row = fc.record({
  id: fc.integer({ min: 1, max: 40 }),
  start_ms: fc.constantFrom(0, 2 ** 28, 3 * 2 ** 28, -1),
  title_text: fc.array(fc.constantFrom(...vocabulary), { maxLength: 3 }).map((words) => words.join(' ')),
  body_text: fc
    .uniqueArray(fc.constantFrom(...vocabulary), { maxLength: 3 })
    .map((words) => words.join('\n')),
  is_private: fc.constantFrom(0, 1),
  floating: fc.constantFrom(0, 1),
});

/** Distinct ids, in any order. */
const rows = fc.uniqueArray(row, { selector: (r) => r.id, maxLength: 12 });

/** Postings as the model keeps them: `bucket word` → id → flags. */
function postings(list: readonly IndexedRow[]): Map<string, Map<number, number>> {
  const lists = new Map<string, Map<number, number>>();
  for (const each of list)
    eachRowWord(each, (word, flags) => {
      const key = `${bucketOf(each.start_ms)} ${word}`;
      const ids = lists.get(key) ?? new Map<number, number>();
      lists.set(key, ids);
      ids.set(each.id, (ids.get(each.id) ?? 0) | flags);
    });
  return lists;
}

describe('the lists a batch changes', () => {
  it('turns any index holding the removed rows into one holding the added rows, touching only lists that change', () => {
    fc.assert(
      fc.property(rows, rows, (removed, added) => {
        const before = postings(removed);
        const after = postings(added);
        const changes = listChanges(added, removed);
        const seen = new Set<string>();
        for (const change of changes) {
          const key = `${change.bucket} ${change.word}`;
          assert.ok(!seen.has(key), `${key} listed twice`);
          seen.add(key);
          const addedIds = Array.from(change.added.ids);
          const removedIds = Array.from(change.removed);
          for (const ids of [addedIds, removedIds])
            assert.deepEqual(
              ids,
              [...ids].sort((a, b) => a - b),
            );
          // Applied to the list as it was, the change gives the list as it must be.
          const list = new Map(before.get(key) ?? []);
          for (const id of removedIds) list.delete(id);
          for (const [k, id] of addedIds.entries()) list.set(id, change.added.flags[k]!);
          assert.deepEqual(
            [...list].sort(([a], [b]) => a - b),
            [...(after.get(key) ?? [])].sort(([a], [b]) => a - b),
          );
          assert.ok(addedIds.length + removedIds.length > 0);
        }
        // A list left out is one the batch leaves as it was.
        for (const key of new Set([...before.keys(), ...after.keys()]))
          if (!seen.has(key))
            assert.deepEqual(
              [...(before.get(key) ?? [])].sort(([a], [b]) => a - b),
              [...(after.get(key) ?? [])].sort(([a], [b]) => a - b),
            );
      }),
      { seed: 24, numRuns: 400 },
    );
  });

  it('lists every posting of rows holding more words than the tables are first made for', () => {
    // Tables start at 64 postings a row: one row of 300 words, and 300 rows of one word, grow them.
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
    const long = {
      id: 1,
      start_ms: 0,
      title_text: words.join(' '),
      body_text: '',
      is_private: 0,
      floating: 0,
    };
    const many = words.map((word, i) => ({ ...long, id: i + 2, title_text: word }));
    const byWord = (changes: ReturnType<typeof listChanges>) =>
      new Map(changes.map(({ word, added }) => [word, Array.from(added.ids)]));
    const listed = byWord(listChanges([long], []));
    assert.deepEqual(
      words.map((word) => listed.get(word)),
      words.map(() => [1]),
    );
    assert.deepEqual(byWord(listChanges(many, [])), new Map(words.map((word, i) => [word, [i + 2]])));
    const both = byWord(listChanges([long, ...many], []));
    assert.deepEqual(
      words.map((word) => both.get(word)),
      words.map((_, i) => [1, i + 2]),
    );
  });

  it('writes nothing for rows written again as they were, and lists a changed word alone', () => {
    const was = {
      id: 7,
      start_ms: 0,
      title_text: 'budget review',
      body_text: 'plan',
      is_private: 0,
      floating: 0,
    };
    assert.deepEqual(listChanges([was], [was]), []);
    const renamed = { ...was, title_text: 'budget plan' };
    assert.deepEqual(
      listChanges([renamed], [was]).map(({ word, added, removed }) => [
        word,
        Array.from(added.ids),
        Array.from(removed),
      ]),
      [
        // In the body before, in the title now: the same id with other flags.
        ['plan', [7], []],
        ['review', [], [7]],
      ],
    );
    assert.throws(
      () => listChanges([was, { ...was, start_ms: 2 ** 28 }, { ...was, id: 3 }], []),
      /listed twice/,
    );
  });
});
