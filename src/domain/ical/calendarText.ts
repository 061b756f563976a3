/**
 * A calendar object as the text the service sends: every value and parameter stays inside its
 * own property. CalDAV servers read a bare CR as a line break, and ical.js writes CR and other
 * control characters as they are, so a title could otherwise add properties (an ATTENDEE, a
 * VALARM) past the service's own rules. Pure.
 *
 * - TEXT values and parameter values: CR, LF and CRLF are one line break, written escaped
 *   (`\n` in TEXT, RFC 5545 §3.3.11; `^n` in a parameter, RFC 6868); ical.js escapes the rest
 *   (`\ ; ,` in TEXT; `"` as `^'` and quotes around `: ; ,` in parameters).
 * - Other control characters (all but tab, §3.1) cannot be written at all: they are dropped.
 *   Tool arguments refuse them before this (mcp/toolInput.ts); what an object read from the
 *   server holds is cleaned on rewrite. Other values (addresses, URIs, names) lose line breaks too.
 * - Lines are folded at 75 octets between characters, never inside a UTF-8 sequence, and each
 *   ends with CRLF.
 */
import ICAL from 'ical.js';
import { withoutStrayControlCharacters } from '../../lib/text.ts';
import type { Component } from './parse.ts';

const maxLineOctets = 75;

/** Text that may hold line breaks, each written as one escaped LF. */
const lines = (text: string) => withoutStrayControlCharacters(text).replace(/\r\n?/g, '\n');
/** Text that has no way to hold a line break. */
const oneLine = (text: string) => withoutStrayControlCharacters(text).replace(/[\r\n]/g, '');

/** Every string in a jCal value (strings, numbers, lists, structured values, recurrence objects). */
function cleaned(value: unknown, clean: (text: string) => string): unknown {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map((item) => cleaned(item, clean));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [oneLine(key), cleaned(item, clean)]),
    );
  }
  return value;
}

type JCalProperty = [string, Record<string, unknown>, string, ...unknown[]];
type JCalComponent = [string, JCalProperty[], JCalComponent[]];

function cleanedComponent([name, properties, components]: JCalComponent): JCalComponent {
  return [
    oneLine(name),
    properties.map(
      ([property, parameters, type, ...values]): JCalProperty => [
        oneLine(property),
        cleaned(parameters, lines) as Record<string, unknown>,
        oneLine(type),
        ...values.map((value) => cleaned(value, type === 'text' ? lines : oneLine)),
      ],
    ),
    components.map(cleanedComponent),
  ];
}

const octets = (char: string) => {
  const point = char.codePointAt(0)!;
  return point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
};

/** A content line folded (§3.1): a continuation's leading space counts toward its 75 octets. */
function folded(line: string): string {
  let result = '';
  let used = 0;
  for (const char of line) {
    const size = octets(char);
    if (used + size > maxLineOctets) {
      result += '\r\n ';
      used = 1;
    }
    result += char;
    used += size;
  }
  return result;
}

export function calendarText(calendar: Component): string {
  const text = new ICAL.Component(cleanedComponent(calendar.toJSON() as JCalComponent)).toString();
  // No value holds a line break now, so every CRLF + space is one of ical.js's folds: undone, then
  // folded again by octets (ical.js lets a continuation line reach 76).
  return `${text.toWellFormed().replaceAll('\r\n ', '').split('\r\n').map(folded).join('\r\n')}\r\n`;
}
