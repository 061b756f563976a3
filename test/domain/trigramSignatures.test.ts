/**
 * The trigram signatures never say "cannot match" of a text that holds the words (no false
 * negatives, over random texts and words, Unicode included), and do rule out most that do not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { foldText, holdsWords } from '../../src/domain/search.ts';
import { mayHold, trigramMask, trigramSignatures } from '../../src/domain/trigramSignatures.ts';

describe('trigram signatures', () => {
  it('never rule out a text that holds every word', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 80 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat({ max: 12 })), { minLength: 1, maxLength: 3 }),
        (raw, picks) => {
          const texts = raw.map(foldText);
          const signatures = trigramSignatures(texts);
          // Words cut from one of the texts, so that it holds them.
          const [first] = picks[0]!;
          const i = first % texts.length;
          const text = texts[i]!;
          const words = picks.map(([, from, length]) => {
            const start = text.length === 0 ? 0 : from % text.length;
            return text.slice(start, start + length);
          });
          assert.ok(holdsWords(text, words));
          assert.ok(mayHold(signatures, i, trigramMask(words)), JSON.stringify({ text, words }));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('rules out texts that lack a word, and tests nothing for words under three letters', () => {
    const texts = [
      'weekly sync with the platform team',
      'budget review',
      'lunch with the sales team',
      'quarterly planning workshop',
    ];
    const signatures = trigramSignatures(texts);
    const mask = trigramMask(['budget']);
    assert.deepEqual(
      texts.map((_, i) => mayHold(signatures, i, mask)),
      [false, true, false, false],
    );
    const short = trigramMask(['te']);
    assert.equal(short.length, 0);
    assert.ok(texts.every((_, i) => mayHold(signatures, i, short)));
  });
});
