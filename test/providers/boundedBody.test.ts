import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../src/errors.ts';
import { readBounded } from '../../src/providers/boundedBody.ts';

const mebibyte = 1024 * 1024;

/** A response whose whole body has already arrived: `chunks` pieces of `size` bytes, queued at once. */
const arrived = (chunks: number, size: number, headers?: Record<string, string>) =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < chunks; i++) controller.enqueue(new Uint8Array(size).fill(i % 251));
        controller.close();
      },
    }),
    { headers },
  );

/** Runs `work` and counts the turns of the event loop taken while it ran. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}

const limit = { maxBytes: 32 * mebibyte, what: 'The test body' };

describe('a provider answer read with a ceiling', () => {
  it('returns every byte, in order, in a buffer of its own', async () => {
    const bytes = await readBounded(arrived(40, 1000), limit);
    assert.equal(bytes.byteLength, 40_000);
    assert.equal(bytes.byteOffset, 0);
    assert.equal(bytes.buffer.byteLength, 40_000);
    for (let i = 0; i < 40; i++) assert.equal(bytes[i * 1000 + 999], i % 251, `chunk ${i}`);
  });

  it('gives the event loop a turn after each mebibyte of a body that has already arrived', async () => {
    // 8 MiB queued at once would otherwise be read and copied in microtasks alone: the loop held.
    const { result, turns } = await turnsDuring(() => readBounded(arrived(128, 64 * 1024), limit));
    assert.equal(result.byteLength, 8 * mebibyte);
    assert.ok(turns >= 14, `${turns} turns while reading and copying 8 MiB`);
  });

  it('refuses a body past the limit, whether announced or streamed', async () => {
    const small = { maxBytes: 100_000, what: 'The test body' };
    for (const response of [arrived(1, 10, { 'content-length': '100001' }), arrived(11, 10_000)]) {
      await assert.rejects(readBounded(response, small), (error) => {
        assert.ok(isAppError(error));
        assert.equal(error.code, 'payload_too_large');
        assert.deepEqual(error.details, { reason: 'too_large', maxBytes: 100_000 });
        return true;
      });
    }
  });

  it('reports a body that breaks off as cut off', async () => {
    const broken = new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new Uint8Array(10));
          controller.error(new Error('socket hang up'));
        },
      }),
    );
    await assert.rejects(readBounded(broken, limit), (error) => {
      assert.ok(isAppError(error));
      assert.equal(error.code, 'provider_unavailable');
      assert.deepEqual(error.details, { reason: 'cut_off' });
      return true;
    });
  });
});
