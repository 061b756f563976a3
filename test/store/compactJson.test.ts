/**
 * The compact form copied occurrences are stored in (store/compactJson.ts, store/textCode.ts):
 * whatever plain data goes in comes out as JSON would carry it, in any text, and bytes that are
 * not such a value are an error, never a hang.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compactJson } from '../../src/store/compactJson.ts';
import { textCode } from '../../src/store/textCode.ts';

const seed = 20261128;
const code = textCode('The quick brown fox jumps over the lazy dog. Meeting at 10:30, room 4.');
const codec = compactJson(['title', 'start', 'attendees', 'name'], ['confirmed', 'busy', 'PT1H'], code);
const viaJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('the text code', () => {
  it('gives back any bytes it packs, in the size it says', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const out = new Uint8Array(code.maxBytes(bytes.length));
        const end = code.encode(bytes, bytes.length, out, 0);
        assert.equal(end, code.size(bytes, bytes.length));
        const back = new Uint8Array(bytes.length);
        assert.equal(code.decode(out, 0, bytes.length, back), end);
        assert.deepEqual(back, bytes);
      }),
      { seed, numRuns: 300 },
    );
  });

  it('reads a code amid other bytes: it ends where the code ends, and a code cut short is an error', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 8 }),
        fc.uint8Array({ maxLength: 200 }),
        fc.uint8Array({ maxLength: 8 }),
        (before, bytes, after) => {
          const coded = new Uint8Array(code.maxBytes(bytes.length));
          const size = code.encode(bytes, bytes.length, coded, 0);
          const input = Buffer.concat([before, coded.subarray(0, size), after]);
          const back = new Uint8Array(bytes.length);
          assert.equal(code.decode(input, before.length, bytes.length, back), before.length + size);
          assert.deepEqual(back, bytes);
          if (size > 0)
            assert.throws(
              () =>
                code.decode(input.subarray(0, before.length + size - 1), before.length, bytes.length, back),
              /textCode: the code ends early/,
            );
        },
      ),
      { seed, numRuns: 500 },
    );
  });

  it('packs text like its sample smaller, and the same text the same way each time', () => {
    const text = Buffer.from('The lazy dog meets the brown fox in room 10 at 4:30.');
    const out = new Uint8Array(code.maxBytes(text.length));
    const size = code.encode(text, text.length, out, 0);
    assert.ok(size < text.length * 0.7, `${size} of ${text.length}`);
    const again = new Uint8Array(code.maxBytes(text.length));
    code.encode(text, text.length, again, 0);
    assert.deepEqual(again, out);
  });
});

describe('compact JSON', () => {
  it('gives back what JSON would, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.deepEqual(codec.decode(codec.encode(value)), viaJson(value));
      }),
      { seed, numRuns: 500 },
    );
  });

  it('leaves out and turns into null what JSON does: undefined members, NaN, -0, functions', () => {
    const loose = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(undefined, null, Number.NaN, -0, Number.POSITIVE_INFINITY, () => 1, true),
        fc.double(),
        fc.string({ unit: 'grapheme' }),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'title', 'name')), tie('value'), {
          maxKeys: 4,
        }),
      ),
    })).value;
    fc.assert(
      fc.property(
        loose.filter((value) => JSON.stringify(value) !== undefined),
        (value) => assert.deepEqual(codec.decode(codec.encode(value)), viaJson(value)),
      ),
      { seed, numRuns: 500 },
    );
  });

  it('packs and reads text far larger than its buffers, and what comes after as before', () => {
    const long = { title: 'Zoë '.repeat(200_000), attendees: [{ name: 'x'.repeat(300_000) }] };
    assert.deepEqual(codec.decode(codec.encode(long)), long);
    assert.deepEqual(codec.decode(codec.encode({ title: 'short' })), { title: 'short' });
  });

  it('keeps "__proto__" a member of its own, as JSON.parse does', () => {
    const read = codec.decode(codec.encode(JSON.parse('{"__proto__":{"polluted":true}}'))) as object;
    assert.equal(Object.getPrototypeOf(read), Object.prototype);
    assert.deepEqual(Object.keys(read), ['__proto__']);
  });

  it('reads a lone surrogate back as U+FFFD, as any UTF-8 text holds it', () => {
    assert.equal(codec.decode(codec.encode({ title: 'a\ud800b' })) instanceof Object, true);
    assert.deepEqual(codec.decode(codec.encode({ title: 'a\ud800b — long enough to pack' })), {
      title: 'a\ufffdb — long enough to pack',
    });
  });

  it('refuses bytes cut short or followed by more, and never hangs on any bytes', () => {
    const packed = codec.encode({
      title: 'Quarterly planning with the whole team',
      attendees: [{ name: 'Zoë' }],
    });
    for (let end = 0; end < packed.length; end++)
      assert.throws(() => codec.decode(packed.subarray(0, end)), /compactJson|textCode/, `cut at ${end}`);
    assert.throws(() => codec.decode(Buffer.concat([packed, Buffer.of(0)])), /bytes after the value/);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          codec.decode(bytes);
        } catch (error) {
          assert.match((error as Error).message, /compactJson|textCode/);
        }
      }),
      { seed, numRuns: 2000 },
    );
  });
});
