/**
 * AES-256-CTR from one reused AES-256-ECB cipher: the keystream blocks are the encrypted counter
 * blocks (the IV, then the IV plus 1, 2… as one 128-bit big-endian number, as OpenSSL counts), so
 * the bytes equal `createCipheriv('aes-256-ctr', key, iv)`'s without a cipher object per message.
 */
import { createCipheriv } from 'node:crypto';

const block = 16;

/** `xor(iv, data, out, at)` writes data XOR the keystream from `iv` into `out` from `at`. */
export function aesCtr(key: Buffer): (iv: Uint8Array, data: Uint8Array, out: Buffer, at: number) => void {
  const ecb = createCipheriv('aes-256-ecb', key, null);
  ecb.setAutoPadding(false);
  return (iv, data, out, at) => {
    const blocks = Math.ceil(data.length / block);
    const counters = Buffer.allocUnsafe(blocks * block);
    for (let b = 0; b < blocks; b++) {
      const base = b * block;
      counters.set(iv, base);
      // Adds b to the 128-bit counter, carrying from the last byte up (wrapping past 2^128).
      let carry = b;
      for (let k = block - 1; k >= 0 && carry > 0; k--) {
        const sum = counters[base + k]! + carry;
        counters[base + k] = sum & 0xff;
        carry = Math.floor(sum / 256);
      }
    }
    const keystream = ecb.update(counters);
    for (let i = 0; i < data.length; i++) out[at + i] = data[i]! ^ keystream[i]!;
  };
}
