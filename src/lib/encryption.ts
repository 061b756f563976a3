/**
 * Secrets at rest (provider passwords, refresh tokens): AES-256-GCM under a key derived from
 * SECRET_KEY, bound to the row it belongs to (associated data), so a ciphertext copied to
 * another row does not decrypt. Format: `v1.<iv>.<ciphertext>.<tag>`, base64url parts.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface SecretBox {
  seal(plaintext: string, boundTo: string): string;
  open(sealed: string, boundTo: string): string;
}

export function createSecretBox(secretKey: Buffer): SecretBox {
  const key = Buffer.from(
    hkdfSync('sha256', secretKey, Buffer.alloc(0), 'calendar-access secrets at rest v1', 32),
  );
  return {
    seal(plaintext, boundTo) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(boundTo));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv, ciphertext, cipher.getAuthTag()]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open(sealed, boundTo) {
      const [version, iv, ciphertext, tag] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || ciphertext === undefined || tag === undefined) {
        throw new Error('Unreadable sealed secret');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(boundTo));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}
