/** The one rule for what counts as an e-mail address, wherever people or calendars give one. */

export const maxEmailLength = 254;
// Deliberately permissive: one @, something on each side, a dot in the domain, no spaces.
const shape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether text (already trimmed) is an e-mail address: the shape above, at most 254 characters. */
export const isEmailAddress = (text: string): boolean => text.length <= maxEmailLength && shape.test(text);
