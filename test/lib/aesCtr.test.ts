/** AES-256-CTR from a reused ECB cipher: byte for byte what OpenSSL's aes-256-ctr gives. */
import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { aesCtr } from '../../src/lib/aesCtr.ts';

const openssl = (key: Buffer, iv: Buffer, data: Buffer) => {
  const cipher = createCipheriv('aes-256-ctr', key, iv);
  return Buffer.concat([cipher.update(data), cipher.final()]);
};

const ours = (xor: ReturnType<typeof aesCtr>, iv: Buffer, data: Buffer) => {
  const out = Buffer.alloc(data.length + 3);
  xor(iv, data, out, 3);
  return out.subarray(3);
};

describe('AES-256-CTR from one ECB cipher', () => {
  it('equals aes-256-ctr for random IVs and every length up to 200 bytes, one cipher throughout', () => {
    const key = randomBytes(32);
    const xor = aesCtr(key);
    for (let length = 0; length <= 200; length++) {
      for (let round = 0; round < 20; round++) {
        const iv = randomBytes(16);
        const data = randomBytes(length);
        assert.deepEqual(ours(xor, iv, data), openssl(key, iv, data), `length ${length}`);
      }
    }
  });

  it('carries the counter across bytes and wraps it past 2^128 as OpenSSL does', () => {
    const key = randomBytes(32);
    const xor = aesCtr(key);
    const data = randomBytes(16 * 300);
    const ivs = [
      Buffer.alloc(16, 0xff),
      Buffer.alloc(16, 0),
      Buffer.concat([randomBytes(8), Buffer.alloc(8, 0xff)]),
      Buffer.concat([randomBytes(14), Buffer.from([0xff, 0xfe])]),
      Buffer.concat([randomBytes(15), Buffer.from([0xf0])]),
      Buffer.concat([Buffer.from([0x7f]), Buffer.alloc(15, 0xff)]),
    ];
    for (const iv of ivs) assert.deepEqual(ours(xor, iv, data), openssl(key, iv, data), iv.toString('hex'));
  });
});
