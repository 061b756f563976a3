/**
 * A static Huffman code over UTF-8 bytes, built once from a sample of the text it is meant for:
 * English-like prose packs to about 60 % of its bytes, any other byte still has a (longer) code.
 * Pure JavaScript, no state between calls. The sample is part of the format: another sample
 * makes another code.
 */

export interface TextCode {
  /** Appends the code of `bytes[0..length)` to `out` at `at`; returns the end. `out` must have room: `maxBytes(length)`. */
  encode(bytes: Uint8Array, length: number, out: Uint8Array, at: number): number;
  /** Bytes the code of `length` bytes takes at most. */
  maxBytes(length: number): number;
  /** Bytes the code of these bytes takes. */
  size(bytes: Uint8Array, length: number): number;
  /** Decodes `count` bytes from `input` at `from` into `out`; returns where the code ended in `input`. */
  decode(input: Uint8Array, from: number, count: number, out: Uint8Array): number;
}

/** No code is longer than this (every byte's weight is floored so that it holds). */
const longest = 24;
/** Bits decoding looks up at once: most codes of text like the sample are shorter, two often fit. */
const peekBits = 12;
const peekMask = (1 << peekBits) - 1;

export function textCode(sample: string): TextCode {
  const weights = new Array<number>(256).fill(0);
  for (const byte of Buffer.from(sample, 'utf8')) weights[byte]! += 1;
  const total = weights.reduce((sum, w) => sum + w, 0);
  // Bytes the sample lacks still get a code, a long one: a small floor keeps codes within `longest` bits.
  const floor = total / 2 ** 16;
  for (let b = 0; b < 256; b++) weights[b] = Math.max(weights[b]!, floor);

  const lengths = codeLengths(weights);
  if (Math.max(...lengths) > longest) throw new Error('textCode: a code longer than 24 bits');
  // Canonical codes: by length, then by byte, so the lengths alone define them.
  const order = [...Array(256).keys()].sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const codes = new Array<number>(256).fill(0);
  let code = 0;
  let previous = lengths[order[0]!]!;
  for (const byte of order) {
    code <<= lengths[byte]! - previous;
    previous = lengths[byte]!;
    codes[byte] = code++;
  }
  // A decoding tree as arrays: node n's children are left[n], right[n]; a leaf is -1 - byte.
  const left: number[] = [0];
  const right: number[] = [0];
  for (let byte = 0; byte < 256; byte++) {
    let node = 0;
    for (let bit = lengths[byte]! - 1; bit >= 0; bit--) {
      const branch = (codes[byte]! >>> bit) & 1 ? right : left;
      if (bit === 0) branch[node] = -1 - byte;
      else {
        if (branch[node] === undefined || branch[node] === 0) {
          branch[node] = left.length;
          left.push(0);
          right.push(0);
        }
        node = branch[node]!;
      }
    }
  }
  const leftNodes = Int32Array.from(left);
  const rightNodes = Int32Array.from(right);
  const codeOf = Uint32Array.from(codes);
  const lengthOf = Uint8Array.from(lengths);
  // Decoding looks up `peekBits` bits at a time, not one branch per bit (reads unpack hundreds of
  // texts a page). An entry holds the bytes whose codes those bits begin with, one or two: the
  // first byte, the second, the first code's length, both codes' length and how many (bits 0–7,
  // 8–15, 16–19, 20–23, 24–25); or, for a longer first code, zero bytes and the node the bits lead
  // to (bits 0–23), where the walk goes on bit by bit.
  const walk = (bits: number, from: number) => {
    let node = 0;
    let used = from;
    while (used < peekBits && node >= 0) {
      node = (bits >>> (peekBits - 1 - used)) & 1 ? rightNodes[node]! : leftNodes[node]!;
      used++;
    }
    return { node, used };
  };
  const peeked = new Int32Array(1 << peekBits);
  for (let bits = 0; bits < peeked.length; bits++) {
    const one = walk(bits, 0);
    if (one.node >= 0) {
      peeked[bits] = one.node;
      continue;
    }
    const two = walk(bits, one.used);
    peeked[bits] =
      two.node < 0
        ? (-1 - one.node) | ((-1 - two.node) << 8) | (one.used << 16) | (two.used << 20) | (2 << 24)
        : (-1 - one.node) | (one.used << 16) | (one.used << 20) | (1 << 24);
  }

  return {
    maxBytes: (length) => Math.ceil((length * longest) / 8),
    size(bytes, length) {
      let bits = 0;
      for (let i = 0; i < length; i++) bits += lengthOf[bytes[i]!]!;
      return Math.ceil(bits / 8);
    },
    encode(bytes, length, out, at) {
      let pending = 0;
      let pendingBits = 0;
      for (let i = 0; i < length; i++) {
        const byte = bytes[i]!;
        pending = (pending << lengthOf[byte]!) | codeOf[byte]!;
        pendingBits += lengthOf[byte]!;
        while (pendingBits >= 8) {
          pendingBits -= 8;
          out[at++] = (pending >>> pendingBits) & 0xff;
        }
        pending &= (1 << pendingBits) - 1;
      }
      if (pendingBits > 0) out[at++] = (pending << (8 - pendingBits)) & 0xff;
      return at;
    },
    decode(input, from, count, out) {
      let at = from;
      // Bits read ahead, the newest last; past the input's end, zeros (`padding` of them) that
      // no code may use.
      let held = 0;
      let heldBits = 0;
      let padding = 0;
      const end = input.length;
      let i = 0;
      while (i < count) {
        while (heldBits < peekBits) {
          held = (held << 8) & 0xffffff;
          if (at < end) held |= input[at++]!;
          else padding += 8;
          heldBits += 8;
        }
        const entry = peeked[(held >>> (heldBits - peekBits)) & peekMask]!;
        const bytes = entry >>> 24;
        if (bytes === 2 && i + 1 < count) {
          out[i++] = entry & 0xff;
          out[i++] = (entry >>> 8) & 0xff;
          heldBits -= (entry >>> 20) & 0xf;
        } else if (bytes !== 0) {
          out[i++] = entry & 0xff;
          heldBits -= (entry >>> 16) & 0xf;
        } else {
          heldBits -= peekBits;
          let node = entry;
          while (node >= 0) {
            if (heldBits === 0) {
              held = (held << 8) & 0xffffff;
              if (at < end) held |= input[at++]!;
              else padding += 8;
              heldBits = 8;
            }
            heldBits--;
            node = (held >>> heldBits) & 1 ? rightNodes[node]! : leftNodes[node]!;
          }
          out[i++] = -1 - node;
        }
        if (heldBits < padding) throw new Error('textCode: the code ends early');
      }
      // The code ends in the byte that holds its last bit.
      return at - ((heldBits - padding) >> 3);
    },
  };
}

/** Huffman code lengths for 256 weights; ties broken by byte and by order of making, so the same weights give the same lengths. */
function codeLengths(weights: number[]): number[] {
  type Node = { weight: number; order: number; bytes: number[] };
  let nodes: Node[] = weights.map((weight, byte) => ({ weight, order: byte, bytes: [byte] }));
  const lengths = new Array<number>(256).fill(0);
  let made = 256;
  while (nodes.length > 1) {
    nodes.sort((a, b) => a.weight - b.weight || a.order - b.order);
    const [a, b] = nodes as [Node, Node];
    for (const byte of a.bytes) lengths[byte]! += 1;
    for (const byte of b.bytes) lengths[byte]! += 1;
    nodes = [
      { weight: a.weight + b.weight, order: made++, bytes: [...a.bytes, ...b.bytes] },
      ...nodes.slice(2),
    ];
  }
  return lengths;
}
