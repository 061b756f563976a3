/** Canonical JSON: the same text for equal values, whatever order their keys were written in. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../src/lib/canonicalJson.ts';

describe('canonicalJson', () => {
  it('orders the keys of every object, nested ones and those inside arrays included', () => {
    const one = { b: 1, a: { d: [{ y: 1, x: 2 }], c: null } };
    const other = { a: { c: null, d: [{ x: 2, y: 1 }] }, b: 1 };
    assert.equal(canonicalJson(one), '{"a":{"c":null,"d":[{"x":2,"y":1}]},"b":1}');
    assert.equal(canonicalJson(other), canonicalJson(one));
  });

  it('keeps the order of arrays and drops what JSON drops', () => {
    assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
    assert.equal(canonicalJson({ a: undefined, b: 'x' }), '{"b":"x"}');
    assert.equal(canonicalJson([undefined, () => 1]), '[null,null]');
    assert.equal(
      canonicalJson({ when: new Date(0), n: Number.NaN }),
      '{"n":null,"when":"1970-01-01T00:00:00.000Z"}',
    );
  });

  it("writes the text copies' versions were hashed from: array-index keys first, as numbers", () => {
    // A change of this text would change every listing-synced item's version: all rewritten once.
    assert.equal(canonicalJson({ b: 1, 10: 2, 9: 3, '09': 4, a: 5 }), '{"9":3,"10":2,"09":4,"a":5,"b":1}');
  });

  it('orders keys as sort() does, by code unit, for objects of few keys and of many', () => {
    // The text every version was hashed from, made plainly: entries sorted, set in that order.
    const plainly = (value: unknown): string =>
      JSON.stringify(value, (_key, item: unknown) =>
        item === null || typeof item !== 'object' || Array.isArray(item)
          ? item
          : Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      );
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: 'binary', maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), {
          maxKeys: 48,
        }),
        (record) => {
          assert.equal(canonicalJson(record), plainly(record));
        },
      ),
      { seed: 20261201, numRuns: 400 },
    );
  });
});
