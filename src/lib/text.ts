import { invalidField } from '../errors.ts';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const controlCharacters = /[\u0000-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const strayControls = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const strayControlRuns = new RegExp(strayControls.source, 'g');

/** Whether text holds a C0 control character or DEL (NUL among them, which PostgreSQL cannot store). */
export const hasControlCharacters = (value: string): boolean => controlCharacters.test(value);

/** Whether text holds a control character other than tab and line breaks: nothing people type. */
export const hasStrayControlCharacters = (value: string): boolean => strayControls.test(value);

/**
 * Text from elsewhere that is stored (a calendar's name from its provider): stray control
 * characters are dropped rather than refused, since the person cannot fix them.
 */
export const withoutStrayControlCharacters = (value: string): string => value.replace(strayControlRuns, '');

/** A trimmed, non-empty line of text of at most `max` characters, without control characters. */
export function requiredText(input: unknown, field: string, label: string, max = 100): string {
  const value = typeof input === 'string' ? input.trim().normalize('NFC') : '';
  if (value.length === 0) throw invalidField(field, `Enter ${label}.`);
  if ([...value].length > max) throw invalidField(field, `Use at most ${max} characters for ${label}.`);
  if (hasControlCharacters(value)) throw invalidField(field, `${label} cannot contain control characters.`);
  return value;
}
