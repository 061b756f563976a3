/**
 * The starts of a bucket's instants, as bytes (the pure part of store/copyStarts.ts): each row's
 * id as the gap from the one before, then its start as the milliseconds past the bucket's first,
 * both 7 bits a byte. A bucket's starts lie within its 2^28 ms: at most 4 bytes, ~6 a row.
 */
import { bucketStartMs, PostingsCorrupt } from './wordPostings.ts';

/** A bucket's rows of instants: their ids ascending, each one's start (epoch ms) beside it. */
export interface BucketStarts {
  ids: number[];
  starts: number[];
}

/** One number, 7 bits a byte, low first (a value below 2^53: no 32-bit shifts). */
function put(out: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

export function encodeStarts(
  bucket: number,
  { ids, starts }: { ids: ArrayLike<number>; starts: ArrayLike<number> },
): Uint8Array {
  const first = bucketStartMs(bucket);
  const out: number[] = [];
  let last = 0;
  for (let k = 0; k < ids.length; k++) {
    const offset = starts[k]! - first;
    if (offset < 0 || offset >= bucketStartMs(1)) throw new RangeError('a start outside its bucket');
    put(out, ids[k]! - last);
    put(out, offset);
    last = ids[k]!;
  }
  return Uint8Array.from(out);
}

/** Where the number `numberAt` read last ends (beside its result: no object per number). */
let numberEnd = 0;

/** The number written at `at`, 7 bits a byte, low first; `numberEnd` is set past it. */
function numberAt(bytes: Uint8Array, at: number): number {
  let value = 0;
  let next = at;
  for (let scale = 1; ; scale *= 0x80) {
    if (next >= bytes.length || scale > 2 ** 49) throw new PostingsCorrupt('a bucket of starts cut short');
    const byte = bytes[next++]!;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) {
      numberEnd = next;
      return value;
    }
  }
}

/** The id after `last` whose gap `numberAt` read: ids ascend (a search looks rows up in them). */
function nextId(last: number, gap: number): number {
  if (gap === 0) throw new PostingsCorrupt('a start repeating the id before');
  return last + gap;
}

/** The starts `encodeStarts` wrote for `bucket`. */
export function decodeStarts(bucket: number, bytes: Uint8Array): BucketStarts {
  const first = bucketStartMs(bucket);
  const ids: number[] = [];
  const starts: number[] = [];
  let last = 0;
  for (let at = 0; at < bytes.length; ) {
    last = nextId(last, numberAt(bytes, at));
    const offset = numberAt(bytes, numberEnd);
    at = numberEnd;
    ids.push(last);
    starts.push(first + offset);
  }
  return { ids, starts };
}

/**
 * The starts of `ids` (ascending) among those `encodeStarts` wrote for `bucket`, into the first
 * entries of `into` (NaN for an id not listed): one walk of the bytes beside the ids, nothing
 * made of the rows not asked for (a search asks a few of each bucket's rows).
 */
export function startsOfIds(bucket: number, bytes: Uint8Array, ids: ArrayLike<number>, into: number[]): void {
  const first = bucketStartMs(bucket);
  let last = 0;
  let k = 0;
  for (let at = 0; k < ids.length && at < bytes.length; ) {
    last = nextId(last, numberAt(bytes, at));
    const offset = numberAt(bytes, numberEnd);
    at = numberEnd;
    while (k < ids.length && ids[k]! < last) into[k++] = Number.NaN;
    if (k < ids.length && ids[k] === last) into[k++] = first + offset;
  }
  while (k < ids.length) into[k++] = Number.NaN;
}
