/** Random tokens, one-way hashes and MACs: the primitives behind sessions, links and CSRF. */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 bits of randomness, URL-safe. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** Tokens are stored only as this hash, so a copy of the database grants nothing. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('base64url');

export const mac = (key: Buffer, purpose: string, value: string): string =>
  createHmac('sha256', key).update(`${purpose}\0${value}`).digest('base64url');

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
