/**
 * The search cache keeps what searches read of a copy's word index per edition of the copy: from
 * its second search on, whole or not at all for the buckets asked, never another version's
 * (an older one replaced, a newer one never by an older), within its bytes (the least recently
 * used first), and says whether each lookup was a hit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CacheOutcome, copyEdition, type ListRow, WordCache } from '../../src/store/wordCache.ts';
import { slotCount } from '../../src/store/wordPostings.ts';

const edition = (copyKey: number, version: number) => copyEdition({ copyKey, createdAt: 1_000, version });
const row = (slot: number, bucket: number, ...bytes: number[]): ListRow => ({
  slot,
  bucket,
  lists: Uint8Array.from(bytes),
});
/** Buckets 10–12 of slot 3 as a search read them: 12 has no row. */
const read = { slots: [3], from: 10, until: 12, rows: [row(3, 10, 1, 2), row(3, 11, 3)] };

const counting = () => {
  const outcomes: CacheOutcome[] = [];
  return { outcomes, cache: new WordCache(1024 * 1024, (outcome) => outcomes.push(outcome)) };
};

describe('the search cache', () => {
  it("keeps a copy's words from its second search on, and gives them back whole", () => {
    const { cache, outcomes } = counting();
    const first = edition(1, 1);
    assert.equal(cache.lists(first, [3], 10, 12), undefined);
    cache.keep(first, 'budget\nreview', read);
    assert.equal(cache.vocabulary(first), undefined);
    assert.equal(cache.bytes, 0);
    assert.equal(cache.lists(first, [3], 10, 12), undefined);
    cache.keep(first, 'budget\nreview', read);
    assert.equal(cache.vocabulary(first), 'budget\nreview');
    assert.deepEqual(
      cache.lists(first, [3], 10, 12),
      new Map([[3, read.rows.map(({ bucket, lists }) => ({ bucket, lists }))]]),
    );
    // Inside what was read: a hit; past it, or another slot: a miss.
    assert.deepEqual(cache.lists(first, [3], 12, 12), new Map([[3, []]]));
    assert.equal(cache.lists(first, [3], 10, 13), undefined);
    assert.equal(cache.lists(first, [4], 10, 12), undefined);
    assert.deepEqual(outcomes, ['miss', 'miss', 'hit', 'hit', 'miss', 'miss']);
    assert.ok(cache.bytes > 0);
  });

  it("keeps a copy's starts beside its words alone, and gives them back when every bucket asked is kept", () => {
    const { cache } = counting();
    const first = edition(1, 1);
    const found = new Map([[10, Uint8Array.from([1, 2])]]);
    // Not before the copy's words are kept.
    cache.keepStarts(first, [10, 11], found);
    assert.equal(cache.starts(first, [10, 11]), undefined);
    cache.keep(first, 'budget', read);
    cache.keep(first, 'budget', read);
    const words = cache.bytes;
    cache.keepStarts(first, [10, 11], found);
    assert.ok(cache.bytes > words + 2);
    // Bucket 11 has none; bucket 12 was never read.
    assert.deepEqual(cache.starts(first, [10, 11]), found);
    assert.deepEqual(cache.starts(first, [11]), new Map());
    assert.equal(cache.starts(first, [10, 12]), undefined);
    assert.equal(cache.starts(edition(1, 2), [10]), undefined);
    // Bytes of their own: the buffer read may change.
    found.get(10)![0] = 9;
    assert.deepEqual(cache.starts(first, [10])!.get(10), Uint8Array.from([1, 2]));
  });

  it('keeps each slot and bucket apart, before 1970 too (negative buckets)', () => {
    const { cache } = counting();
    const first = edition(1, 1);
    const slots = Array.from({ length: slotCount }, (_, slot) => slot);
    // Every slot of buckets -2 to 1, each list its own bytes: [slot, bucket + 2].
    const rows = slots.flatMap((slot) => [-2, -1, 0, 1].map((bucket) => row(slot, bucket, slot, bucket + 2)));
    const whole = { slots, from: -2, until: 1, rows };
    cache.keep(first, 'budget', whole);
    cache.keep(first, 'budget', whole);
    for (const slot of slots)
      assert.deepEqual(
        cache.lists(first, [slot], -2, 1),
        new Map([
          [slot, [-2, -1, 0, 1].map((bucket) => ({ bucket, lists: Uint8Array.from([slot, bucket + 2]) }))],
        ]),
      );
    assert.equal(cache.lists(first, [0], -3, 1), undefined);
    assert.equal(cache.lists(first, [15], -2, 2), undefined);
  });

  it('keeps lists in bytes of their own, never a view of the larger buffer a driver read them into', () => {
    const { cache } = counting();
    const shared = Uint8Array.from([9, 1, 2, 9, 3, 9]);
    const viewed = {
      slots: [3],
      from: 10,
      until: 11,
      rows: [
        { slot: 3, bucket: 10, lists: shared.subarray(1, 3) },
        { slot: 3, bucket: 11, lists: shared.subarray(4, 5) },
      ],
    };
    cache.keep(edition(1, 1), 'budget', viewed);
    cache.keep(edition(1, 1), 'budget', viewed);
    shared.fill(0);
    const kept = cache.lists(edition(1, 1), [3], 10, 11)!.get(3)!;
    assert.deepEqual(
      kept.map(({ bucket, lists }) => [bucket, [...lists]]),
      [
        [10, [1, 2]],
        [11, [3]],
      ],
    );
    for (const { lists } of kept) assert.equal(lists.buffer.byteLength, lists.byteLength);
  });

  it('never answers for another version of the copy, nor for another copy made with the same number', () => {
    const { cache } = counting();
    cache.keep(edition(1, 1), 'budget', read);
    cache.keep(edition(1, 1), 'budget', read);
    assert.equal(cache.lists(edition(1, 2), [3], 10, 12), undefined);
    assert.equal(cache.vocabulary(edition(1, 2)), undefined);
    const remade = copyEdition({ copyKey: 1, createdAt: 2_000, version: 1 });
    assert.equal(cache.vocabulary(remade), undefined);
    assert.equal(cache.lists(remade, [3], 10, 12), undefined);
  });

  it('replaces an older version of a copy, never a newer one by an older', () => {
    const { cache } = counting();
    for (let i = 0; i < 2; i++) cache.keep(edition(1, 2), 'newer', read);
    const held = cache.bytes;
    // A reader that read the copy before its change comes after: nothing of it is kept.
    for (let i = 0; i < 2; i++) cache.keep(edition(1, 1), 'older', read);
    assert.equal(cache.vocabulary(edition(1, 2)), 'newer');
    assert.equal(cache.vocabulary(edition(1, 1)), undefined);
    // The next version's first search already lets the one before go.
    cache.keep(edition(1, 3), 'newest', read);
    assert.equal(cache.vocabulary(edition(1, 2)), undefined);
    assert.equal(cache.bytes, 0);
    cache.keep(edition(1, 3), 'newest', read);
    assert.equal(cache.vocabulary(edition(1, 3)), 'newest');
    assert.equal(cache.bytes, held - 'newer'.length + 'newest'.length);
  });

  it('holds no more than its bytes, a newcomer taking the place of the least recently used only once that one has gone unused for a minute', () => {
    const big = 'w'.repeat(10_000);
    let now = 0;
    const cache = new WordCache(25_000, undefined, () => now);
    const keep = (copyKey: number) => {
      for (let i = 0; i < 2; i++) cache.keep(edition(copyKey, 1), big, read);
    };
    const held = () =>
      [1, 2, 3, 4, 5].filter((copyKey) => cache.vocabulary(edition(copyKey, 1)) !== undefined);
    keep(1);
    keep(2);
    // Full, and both used within the minute: a third is not kept (a round of more copies than
    // fit keeps finding those held).
    now = 30_000;
    keep(3);
    assert.deepEqual(held(), [1, 2]);
    // Copy 1 used again; a minute later copy 2, unused since, gives its place.
    now = 61_000;
    assert.ok(cache.lists(edition(1, 1), [3], 10, 12));
    keep(3);
    assert.deepEqual(held(), [1, 3]);
    assert.ok(cache.bytes <= 25_000);
    // A copy larger than the whole cache is not kept, and takes nothing out.
    now = 500_000;
    for (let i = 0; i < 2; i++) cache.keep(edition(4, 1), 'w'.repeat(30_000), read);
    assert.deepEqual(held(), [1, 3]);
    // Another slot of a copy held is kept beside its first when there is room.
    cache.keep(edition(1, 1), big, { slots: [5], from: 10, until: 10, rows: [row(5, 10, 9)] });
    assert.deepEqual(
      cache.lists(edition(1, 1), [5], 10, 10),
      new Map([[5, [{ bucket: 10, lists: Uint8Array.of(9) }]]]),
    );
  });

  it('counts a vocabulary as V8 holds it: a byte a character in Latin-1, else two', () => {
    const held = (vocabulary: string) => {
      const cache = new WordCache(1024 * 1024);
      for (let i = 0; i < 2; i++) cache.keep(edition(1, 1), vocabulary, read);
      return cache.bytes;
    };
    assert.equal(held('münchen'.repeat(100)) - held('x'), 700 - 1);
    assert.equal(held('łódź'.repeat(100)) - held('x'), 800 - 1);
  });

  it('keeps nothing with no room', () => {
    const cache = new WordCache(0);
    for (let i = 0; i < 3; i++) cache.keep(edition(1, 1), 'budget', read);
    assert.equal(cache.vocabulary(edition(1, 1)), undefined);
    assert.equal(cache.bytes, 0);
  });
});
