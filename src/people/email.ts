/** E-mail addresses as people type them, and the case-insensitive key that makes them unique. */
import { invalidField } from '../errors.ts';
import { isEmailAddress } from '../lib/email.ts';

export function parseEmail(input: unknown, field = 'email'): { email: string; key: string } {
  if (typeof input !== 'string') throw invalidField(field, 'Enter an e-mail address.');
  const email = input.trim().normalize('NFC');
  if (!isEmailAddress(email)) {
    throw invalidField(field, 'Enter a valid e-mail address, like name@example.com.');
  }
  return { email, key: emailKey(email) };
}

export const emailKey = (email: string): string => email.trim().normalize('NFC').toLowerCase();
