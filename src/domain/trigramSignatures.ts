/**
 * A quick "cannot match" test for substring search: each text gets a 1,024-bit signature of its
 * trigrams (three consecutive UTF-16 units, hashed); a word's trigrams must all be in a text's
 * signature for the text to hold it. Only texts that pass are searched for real, so a search of
 * thousands of texts reads a few of them. Words shorter than three units test nothing. Pure.
 */

const signatureWords = 32; // × 32 bits

const trigramBit = (a: number, b: number, c: number): number =>
  (Math.imul((a * 961 + b * 31 + c) | 0, 0x9e3779b1) >>> 22) & 1023;

/**
 * The texts' signatures, stored word by word: word `w` of text `i` is at `columns[w * count + i]`.
 * A search tests a few words of every text, so it reads a few runs of memory in order rather than
 * a scattered word from each text's 128 bytes.
 */
export interface TrigramSignatures {
  count: number;
  columns: Int32Array;
}

export function trigramSignatures(texts: readonly string[]): TrigramSignatures {
  const count = texts.length;
  const columns = new Int32Array(count * signatureWords);
  texts.forEach((text, i) => {
    for (let k = 2; k < text.length; k++) {
      const bit = trigramBit(text.charCodeAt(k - 2), text.charCodeAt(k - 1), text.charCodeAt(k));
      columns[(bit >>> 5) * count + i]! |= 1 << (bit & 31);
    }
  });
  return { count, columns };
}

/** The parts of a signature every text holding all the words must have: word index, bits, word index, bits… */
export function trigramMask(words: readonly string[]): Int32Array {
  const mask = new Uint32Array(signatureWords);
  for (const word of words) {
    for (let k = 2; k < word.length; k++) {
      const bit = trigramBit(word.charCodeAt(k - 2), word.charCodeAt(k - 1), word.charCodeAt(k));
      mask[bit >>> 5]! |= 1 << (bit & 31);
    }
  }
  const parts: number[] = [];
  mask.forEach((bits, index) => {
    if (bits !== 0) parts.push(index, bits | 0);
  });
  return Int32Array.from(parts);
}

/** False when text `i` certainly lacks a word of the mask; true when it may hold them all. */
export function mayHold(signatures: TrigramSignatures, i: number, mask: Int32Array): boolean {
  const { count, columns } = signatures;
  for (let k = 0; k < mask.length; k += 2) {
    const bits = mask[k + 1]!;
    if ((columns[mask[k]! * count + i]! & bits) !== bits) return false;
  }
  return true;
}
