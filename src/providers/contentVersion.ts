import { createHash } from 'node:crypto';

/**
 * An item's version when the provider gives none: its content's sha256, cut to 128 bits (22
 * characters). It only tells a changed item from the same one (collisions are 2^-128 likely),
 * and every copied item keeps it: the 43 characters of a whole digest were ~20 bytes an event.
 */
export const contentVersion = (content: string): string =>
  createHash('sha256').update(content).digest().subarray(0, 16).toString('base64url');
