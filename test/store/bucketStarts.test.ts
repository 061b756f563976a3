/** A bucket's starts as bytes: read back as written, a few bytes a row, and refused when broken. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeStarts, encodeStarts, startsOfIds } from '../../src/store/bucketStarts.ts';
import { bucketStartMs, PostingsCorrupt } from '../../src/store/wordPostings.ts';

describe("a bucket's starts", () => {
  const bucket = 6_602;
  const first = bucketStartMs(bucket);

  it('reads back the ids and starts written, from the bucket’s first millisecond to its last', () => {
    const written = {
      ids: [1, 2, 300, 2 ** 40, Number.MAX_SAFE_INTEGER],
      starts: [first, first + 1, first + 60_000, first + 2 ** 27, bucketStartMs(bucket + 1) - 1],
    };
    const bytes = encodeStarts(bucket, written);
    assert.deepEqual(decodeStarts(bucket, bytes), written);
    assert.deepEqual(decodeStarts(bucket, encodeStarts(bucket, { ids: [], starts: [] })), {
      ids: [],
      starts: [],
    });
    // A month of a calendar's rows, a minute apart and ids close together: about 5 bytes a row.
    const ids = Array.from({ length: 1_000 }, (_, k) => 5_000 + 3 * k);
    const starts = ids.map((_, k) => first + 60_000 * k);
    assert.ok(encodeStarts(bucket, { ids, starts }).length <= 6 * ids.length);
  });

  it('refuses a start outside its bucket, and bytes cut short or repeating an id', () => {
    assert.throws(() => encodeStarts(bucket, { ids: [1], starts: [first - 1] }), RangeError);
    assert.throws(() => encodeStarts(bucket, { ids: [1], starts: [bucketStartMs(bucket + 1)] }), RangeError);
    const bytes = encodeStarts(bucket, { ids: [1, 2], starts: [first + 200, first + 300] });
    assert.throws(() => decodeStarts(bucket, bytes.subarray(0, bytes.length - 1)), PostingsCorrupt);
    assert.throws(() => decodeStarts(bucket, Uint8Array.from([1, 0, 0, 0])), PostingsCorrupt);
    assert.throws(
      () => decodeStarts(bucket, Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])),
      PostingsCorrupt,
    );
  });

  it('gives the starts of the ids asked, and none for an id not listed', () => {
    const ids = [2, 3, 5, 8, 13, 21];
    const bytes = encodeStarts(bucket, { ids, starts: ids.map((id) => first + 1_000 * id) });
    const into: number[] = [];
    startsOfIds(bucket, bytes, [0, 2, 4, 8, 9, 21, 22], into);
    assert.deepEqual(into, [NaN, first + 2_000, NaN, first + 8_000, NaN, first + 21_000, NaN]);
    startsOfIds(bucket, bytes, [], into);
    startsOfIds(bucket, new Uint8Array(0), [3], into);
    assert.deepEqual(into.slice(0, 1), [NaN]);
    assert.throws(() => startsOfIds(bucket, bytes.subarray(0, bytes.length - 1), [21], []), PostingsCorrupt);
  });
});
