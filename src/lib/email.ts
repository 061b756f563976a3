/**
 * The one rule for what counts as an e-mail address, wherever people or calendars give one: a
 * bare address (RFC 5322 addr-spec, dot-atom form) and nothing around it. A display name, angle
 * brackets, a comma, quotes, spaces or control characters would let text that names one person
 * send mail to another, so all are refused.
 */

export const maxEmailLength = 254;
/** RFC 5321's limit of a local part. */
const maxLocalLength = 64;
/** RFC 5322 atext, and letters, marks and digits of any script (RFC 6531). */
const atom = String.raw`[A-Za-z0-9!#$%&'*+/=?^_\x60{|}~\-\p{L}\p{M}\p{N}]+`;
const local = new RegExp(String.raw`^${atom}(?:\.${atom})*$`, 'u');
/**
 * Host-name labels (any script), at least two, none longer than 63 or beginning or ending with a
 * hyphen; the last not all digits (no bare IPv4 address).
 */
const label = String.raw`[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}\-]{0,61}[\p{L}\p{M}\p{N}])?`;
const domain = new RegExp(String.raw`^(?:${label}\.)+(?![0-9]+$)${label}$`, 'u');

/** Whether text (already trimmed) is a bare e-mail address of at most 254 characters. */
export function isEmailAddress(text: string): boolean {
  if (text.length > maxEmailLength) return false;
  const at = text.lastIndexOf('@');
  if (at < 1) return false;
  const [localPart, domainPart] = [text.slice(0, at), text.slice(at + 1)];
  return localPart.length <= maxLocalLength && local.test(localPart) && domain.test(domainPart);
}
