/** E-mail addresses as people type them, and the case-insensitive key that makes them unique. */
import { invalidField } from '../errors.ts';
import { hasControlCharacters } from '../lib/text.ts';

const maxLength = 254;
// Deliberately permissive: one @, something on each side, a dot in the domain, no spaces.
const shape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function parseEmail(input: unknown, field = 'email'): { email: string; key: string } {
  if (typeof input !== 'string') throw invalidField(field, 'Enter an e-mail address.');
  const email = input.trim().normalize('NFC');
  if (email.length === 0 || email.length > maxLength || !shape.test(email) || hasControlCharacters(email)) {
    throw invalidField(field, 'Enter a valid e-mail address, like name@example.com.');
  }
  return { email, key: emailKey(email) };
}

export const emailKey = (email: string): string => email.trim().normalize('NFC').toLowerCase();
