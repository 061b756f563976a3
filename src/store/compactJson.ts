/**
 * Plain data in a compact binary form: what `JSON.stringify` would write, read back as
 * `JSON.parse` would (no `toJSON`: the values are plain objects, arrays, strings, numbers), in fewer bytes and without zlib. Keys and string values found in the
 * tables given are one byte each; other strings are their UTF-8 bytes behind a length.
 *
 * Why not deflate: every zlib call allocates its own native state (deflate about 256 KB),
 * freed only when the garbage collector gets to its handle. Packing a sync's rows one by one
 * that way left the process's heap fragmented by hundreds of megabytes, and cost ~25 µs a row,
 * nearly all of it set-up. This is pure JavaScript: a few microseconds, nothing native.
 *
 * The tables are part of the format: a codec made with other tables reads other values.
 */

import type { TextCode } from './textCode.ts';

/** Bytes of buffer kept between calls. */
const kept = 64 * 1024;

/** The byte before each value. */
const Tag = {
  Null: 0,
  False: 1,
  True: 2,
  Number: 3,
  String: 4,
  Known: 5,
  Array: 6,
  Object: 7,
  Coded: 8,
} as const;

export interface CompactJson {
  encode(value: unknown): Buffer;
  /** Reads `bytes[from..]`, which must hold exactly one value. */
  decode(bytes: Uint8Array, from?: number): unknown;
}

/**
 * `keys` and `values`: at most 255 each; a key or value outside them is written out, in `code`
 * when that is shorter.
 */
export function compactJson(keys: readonly string[], values: readonly string[], code: TextCode): CompactJson {
  if (keys.length > 255 || values.length > 255) throw new Error('compactJson: at most 255 keys and values');
  const keyIndex = new Map(keys.map((key, i) => [key, i + 1]));
  const valueIndex = new Map(values.map((value, i) => [value, i]));
  let out = Buffer.allocUnsafeSlow(kept);
  let at = 0;
  /** A string's UTF-8 bytes, on their way in or out. */
  let scratch = Buffer.allocUnsafeSlow(kept);
  // One huge description must not keep megabytes of buffers for the life of the process.
  const shrink = () => {
    if (out.length > kept) out = Buffer.allocUnsafeSlow(kept);
    if (scratch.length > kept) scratch = Buffer.allocUnsafeSlow(kept);
  };
  const scratchFor = (bytes: number) => {
    if (scratch.length < bytes) scratch = Buffer.allocUnsafeSlow(Math.max(scratch.length * 2, bytes));
  };

  const room = (bytes: number) => {
    if (at + bytes <= out.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(out.length * 2, at + bytes));
    out.copy(grown, 0, 0, at);
    out = grown;
  };
  const varint = (n: number) => {
    room(5);
    while (n >= 0x80) {
      out[at++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    out[at++] = n;
  };
  /** The string's UTF-8 bytes into `scratch`; their count. */
  const utf8 = (s: string) => {
    const length = s.length;
    scratchFor(length * 3);
    // Most strings are ASCII: copied byte by byte, no encoder call.
    for (let i = 0; i < length; i++) {
      const unit = s.charCodeAt(i);
      if (unit >= 0x80) return scratch.write(s, 0, 'utf8');
      scratch[i] = unit;
    }
    return length;
  };
  const raw = (bytes: number) => {
    varint(bytes);
    room(bytes);
    scratch.copy(out, at, 0, bytes);
    at += bytes;
  };
  const text = (s: string) => {
    const bytes = utf8(s);
    if (bytes >= 8) {
      const size = code.size(scratch, bytes);
      if (size < bytes) {
        room(1);
        out[at++] = Tag.Coded;
        varint(bytes);
        room(size);
        at = code.encode(scratch, bytes, out, at);
        return;
      }
    }
    room(1);
    out[at++] = Tag.String;
    raw(bytes);
  };
  /** Whether JSON writes an object's member holding this (it leaves out undefined, functions, symbols). */
  const written = (member: unknown) =>
    member !== undefined && typeof member !== 'function' && typeof member !== 'symbol';
  const write = (value: unknown): void => {
    switch (typeof value) {
      case 'string': {
        const known = valueIndex.get(value);
        if (known === undefined) text(value);
        else {
          room(2);
          out[at++] = Tag.Known;
          out[at++] = known;
        }
        return;
      }
      case 'boolean':
        room(1);
        out[at++] = value ? Tag.True : Tag.False;
        return;
      case 'number':
        if (!Number.isFinite(value)) break;
        room(9);
        out[at++] = Tag.Number;
        // JSON has no negative zero.
        out.writeDoubleLE(value === 0 ? 0 : value, at);
        at += 8;
        return;
      case 'object': {
        if (value === null) break;
        if (Array.isArray(value)) {
          room(1);
          out[at++] = Tag.Array;
          varint(value.length);
          for (let i = 0; i < value.length; i++) write(value[i]);
          return;
        }
        // Counted, then written: no array of the members kept (a sync packs every occurrence's objects).
        const object = value as Record<string, unknown>;
        const keys = Object.keys(object);
        let count = 0;
        for (let k = 0; k < keys.length; k++) if (written(object[keys[k]!])) count++;
        room(1);
        out[at++] = Tag.Object;
        varint(count);
        for (let k = 0; k < keys.length; k++) {
          const key = keys[k]!;
          if (!written(object[key])) continue;
          const known = keyIndex.get(key);
          if (known === undefined) {
            varint(0);
            raw(utf8(key));
          } else varint(known);
          write(object[key]);
        }
        return;
      }
      default:
        // Undefined, a function, a symbol: null in an array (objects leave them out), as JSON writes.
        break;
    }
    room(1);
    out[at++] = Tag.Null;
  };

  return {
    encode(value) {
      at = 0;
      if (!written(value)) throw new TypeError('compactJson: nothing to encode');
      write(value);
      const encoded = Buffer.from(out.subarray(0, at));
      shrink();
      return encoded;
    },
    decode(bytes, from = 0) {
      const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      let pos = from;
      const fail = (why: string): never => {
        throw new Error(`compactJson: ${why} at byte ${pos}`);
      };
      const readVarint = () => {
        // Most are one byte: keys, the tables' values, short lengths.
        const first = view[pos];
        if (first !== undefined && first < 0x80) {
          pos++;
          return first;
        }
        let n = 0;
        for (let shift = 0; shift < 35; shift += 7) {
          if (pos >= view.length) fail('truncated number');
          const byte = view[pos++]!;
          n += (byte & 0x7f) * 2 ** shift;
          if (byte < 0x80) return n;
        }
        return fail('overlong number');
      };
      const readText = () => {
        const length = readVarint();
        if (pos + length > view.length) fail('truncated text');
        const s = view.toString('utf8', pos, pos + length);
        pos += length;
        return s;
      };
      const read = (): unknown => {
        if (pos >= view.length) fail('truncated value');
        const tag = view[pos++];
        switch (tag) {
          case Tag.Null:
            return null;
          case Tag.False:
            return false;
          case Tag.True:
            return true;
          case Tag.Number: {
            if (pos + 8 > view.length) fail('truncated number');
            const n = view.readDoubleLE(pos);
            pos += 8;
            return n;
          }
          case Tag.String:
            return readText();
          case Tag.Coded: {
            const length = readVarint();
            // Each byte's code is at least a bit: a length past eight times the bytes left is a lie.
            if (length > (view.length - pos) * 8) fail('coded text longer than its bytes');
            scratchFor(length);
            pos = code.decode(view, pos, length, scratch);
            return scratch.toString('utf8', 0, length);
          }
          case Tag.Known: {
            const value = values[view[pos++]!];
            return value ?? fail('unknown value');
          }
          case Tag.Array: {
            const length = readVarint();
            if (length > view.length - pos) fail('array longer than its bytes');
            const array: unknown[] = [];
            for (let i = 0; i < length; i++) array.push(read());
            return array;
          }
          case Tag.Object: {
            const count = readVarint();
            if (count > view.length - pos) fail('object longer than its bytes');
            const object: Record<string, unknown> = {};
            for (let i = 0; i < count; i++) {
              const index = readVarint();
              const key = index === 0 ? readText() : (keys[index - 1] ?? fail('unknown key'));
              const member = read();
              // As JSON.parse does for "__proto__": an own member, never the prototype.
              if (key === '__proto__')
                Object.defineProperty(object, key, {
                  value: member,
                  enumerable: true,
                  writable: true,
                  configurable: true,
                });
              else object[key] = member;
            }
            return object;
          }
          default:
            return fail(`unknown tag ${tag}`);
        }
      };
      try {
        const value = read();
        if (pos !== view.length) fail('bytes after the value');
        return value;
      } finally {
        shrink();
      }
    },
  };
}
