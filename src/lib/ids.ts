/** Opaque, URL-safe, prefixed identifiers that reveal nothing about what they name. */
import { randomBytes } from 'node:crypto';

export type IdPrefix = 'usr' | 'ws' | 'acc' | 'cal' | 'evt' | 'occ' | 'grt' | 'cli';

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBytes(16).toString('base64url')}`;

export const isId = (prefix: IdPrefix, value: string): boolean =>
  new RegExp(`^${prefix}_[A-Za-z0-9_-]{22}$`).test(value);
