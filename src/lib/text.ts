import { invalidField } from '../errors.ts';

/** A trimmed, non-empty line of text of at most `max` characters, without control characters. */
export function requiredText(input: unknown, field: string, label: string, max = 100): string {
  const value = typeof input === 'string' ? input.trim().normalize('NFC') : '';
  if (value.length === 0) throw invalidField(field, `Enter ${label}.`);
  if ([...value].length > max) throw invalidField(field, `Use at most ${max} characters for ${label}.`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(value))
    throw invalidField(field, `${label} cannot contain control characters.`);
  return value;
}
