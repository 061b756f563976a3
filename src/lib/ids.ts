/** Opaque, URL-safe, prefixed identifiers that reveal nothing about what they name. */
import { randomBytes } from 'node:crypto';

export type IdPrefix = 'usr' | 'ws' | 'acc' | 'cal' | 'evt' | 'occ' | 'grt' | 'cli';

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBytes(16).toString('base64url')}`;

export const isId = (prefix: IdPrefix, value: string): boolean =>
  new RegExp(`^${prefix}_[A-Za-z0-9_-]{22}$`).test(value);

const base32hex = '0123456789abcdefghijklmnopqrstuv';

/**
 * 26 random base32hex characters (130 bits): the provider-side identity of an event the service
 * creates, valid as a CalDAV UID and object name and as a Google event id.
 */
export function newProviderUid(): string {
  const bytes = randomBytes(26);
  let uid = '';
  for (const byte of bytes) uid += base32hex[byte & 31];
  return uid;
}
