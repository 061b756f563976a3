/**
 * What iCalendar can hold of a text a write sends, and the checks of an object's text that every
 * write must pass (RFC 5545 §3.1): shared by the unit properties and the Radicale round trips.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import ICAL from 'ical.js';
import { type Component, parseCalendar } from '../../src/domain/ical/parse.ts';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters iCalendar cannot hold.
const notContent = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/**
 * A text as iCalendar holds it: control characters other than tab cannot be content (§3.1) and
 * are left out; then CR, LF and CRLF are each one line break; lone surrogates are U+FFFD.
 */
export const asWritten = (text: string): string =>
  text.replace(notContent, '').replace(/\r\n?/g, '\n').toWellFormed();

/** The object as text: CRLF lines only, no control character but tab, lines of at most 75 octets, whole UTF-8. */
export function assertWellFormed(ics: string): void {
  assert.ok(ics.endsWith('\r\n'), 'every line ends with CRLF');
  assert.doesNotMatch(ics, /\r(?!\n)|(?<!\r)\n/, 'no bare CR or LF');
  assert.doesNotMatch(ics, new RegExp(notContent.source), 'no control characters');
  const bytes = Buffer.from(ics, 'utf8');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  for (let end = bytes.indexOf('\r\n'); end !== -1; end = bytes.indexOf('\r\n', start)) {
    const line = bytes.subarray(start, end);
    assert.ok(line.length <= 75, `a line of ${line.length} octets: ${JSON.stringify(line.toString())}`);
    // A fold inside a multi-octet character leaves a line that is not UTF-8 on its own.
    assert.doesNotThrow(() => decoder.decode(line), `a fold splits a character: ${line.toString('hex')}`);
    start = end + 2;
  }
}

/** The one VEVENT of an object, read by the project's parser (a bare CR breaks a line, as CalDAV servers read it) and by ical.js alone. */
export function readBoth(ics: string): Component[] {
  const project = parseCalendar(ics).components.filter((component) => component.name === 'vevent');
  const icalJs = new ICAL.Component(ICAL.parse(ics)).getAllSubcomponents('vevent');
  assert.equal(project.length, 1, `one VEVENT by the project's parser:\n${JSON.stringify(ics)}`);
  assert.equal(icalJs.length, 1, `one VEVENT by ical.js:\n${JSON.stringify(ics)}`);
  return [project[0]!, icalJs[0]!];
}

/** A component's property names, sorted (repeated ones as often as they occur). */
export const propertyNames = (component: Component): string[] =>
  component
    .getAllProperties()
    .map((property) => property.name)
    .sort();

/** ATTENDEEs as [address, CN]. */
export const guestsOf = (event: Component): unknown[][] =>
  event
    .getAllProperties('attendee')
    .map((attendee) => [attendee.getFirstValue(), attendee.getFirstParameter('cn')]);

/** Pieces an attacker or a careless client might send, mixed with random text of any code points. */
export const hostilePiece = fc.oneof(
  fc.constantFrom(
    '\r',
    '\n',
    '\r\n',
    '\n\r',
    '\t',
    '\u0000',
    '\u0001',
    '\u000b',
    '\u001b',
    '\u007f',
    '\u0085',
    '\u2028',
    '\ud83d',
    '\\',
    '\\n',
    ';',
    ',',
    ':',
    '"',
    '^',
    "^'",
    '^n',
    ' ',
    'é',
    '😀',
    '\rATTENDEE:mailto:evil@example.org\r',
    '\r\nORGANIZER;CN="x":mailto:evil@example.org',
    '\rBEGIN:VALARM\rACTION:EMAIL\rATTENDEE:mailto:evil@example.org\rTRIGGER:-PT5M\rEND:VALARM\r',
    '\nEND:VEVENT\n',
  ),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ maxLength: 30 }),
);
