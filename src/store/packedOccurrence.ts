/**
 * A copied occurrence as stored: its JSON form in store/compactJson.ts's binary form, behind a
 * format byte. Keys and the usual values are a byte each; text is packed with a static code
 * (store/textCode.ts) made from the sample below. The tables and the sample are part of the
 * format: changing them needs a new format byte.
 *
 * Rows written before read as they are: format 1 (JSON deflated against a dictionary), and
 * JSON as text (SQLite) or its UTF-8 bytes (PostgreSQL).
 */
import { inflateRawSync } from 'node:zlib';
import type { ProviderOccurrence } from '../domain/providerFacts.ts';
import { compactJson } from './compactJson.ts';
import { textCode } from './textCode.ts';

const deflated = 1;
const compact = 2;

/** Format 1's dictionary: rows deflated against it still read. */
const dictionary = Buffer.from(
  '{"uri":"https://","name":"","email":"@","optional":false,"response":"needsAction","accepted","declined",' +
    '"tentative","private","public","secret","alerts":[{"trigger":"-PT15M","action":"display"}],"color":"",' +
    '"categories":[],"keywords":[],"links":[],"virtualLocations":[{"uri":"https://","name":""}],' +
    '"responseStatus":"accepted","organizer":{"name":"","email":"@"},"attendees":[{"name":"","email":"@",' +
    '"optional":false,"response":"accepted"}],"recurrenceId":"T00:00:00Z",' +
    '{"providerEventId":"","duration":"PT1H","showWithoutTime":false,"status":"confirmed","freeBusyStatus":"busy",' +
    '"facts":{"recurring":false,"organizer":"none","attendees":false,"conference":false,"managedCopy":false,' +
    '"version":"","userIsAttendee":false},"start":"2026-01-01T00:00:00","timeZone":"Europe/","title":"",' +
    '"description":"","locations":[{"name":""}]}',
);

/**
 * Every member name of a ProviderOccurrence and what it holds, frozen here rather than taken from
 * the domain's types: a key's byte is its place in this list, so a new member is added at the end
 * (or under a new format byte), never in between. A member missing here is still written, in full.
 */
const keys = [
  'providerEventId',
  'recurrenceId',
  'start',
  'timeZone',
  'duration',
  'showWithoutTime',
  'title',
  'description',
  'locations',
  'virtualLocations',
  'links',
  'categories',
  'keywords',
  'color',
  'status',
  'freeBusyStatus',
  'privacy',
  'alerts',
  'workingLocation',
  'responseStatus',
  'organizer',
  'attendees',
  'facts',
  'recurring',
  'conference',
  'managedCopy',
  'version',
  'userIsAttendee',
  'name',
  'email',
  'self',
  'optional',
  'response',
  'coordinates',
  'uri',
  'href',
  'rel',
  'offset',
  'action',
  'type',
  'label',
];

/** Values many occurrences hold: the enumerations, usual durations, alert offsets and zones. */
const values = [
  'confirmed',
  'tentative',
  'cancelled',
  'free',
  'busy',
  'public',
  'private',
  'secret',
  'needs-action',
  'accepted',
  'declined',
  'self',
  'other',
  'none',
  'unknown',
  'display',
  'email',
  'home',
  'office',
  'custom',
  'PT15M',
  'PT30M',
  'PT45M',
  'PT1H',
  'PT1H30M',
  'PT2H',
  'PT0S',
  'P1D',
  '-PT5M',
  '-PT10M',
  '-PT15M',
  '-PT30M',
  '-PT1H',
  '-P1D',
  'UTC',
  'Europe/Berlin',
  'Europe/London',
  'Europe/Paris',
  'America/New_York',
  'America/Chicago',
  'America/Los_Angeles',
  'Asia/Tokyo',
  'Australia/Sydney',
];

/** What copied text looks like: titles, agendas, places, addresses, dates and ids. */
const sample = `Project kickoff with the design and engineering teams. Agenda:
1. Where we are: a short review of last month's results and the open questions.
2. What we decide today, and who takes each item forward before the next meeting.
3. Questions, then the plan for the coming weeks; please bring your notes.

Dial in or join the call from the link in this invitation, and tell the organizer if you
cannot attend. Interview, lunch, offsite, board meeting, dentist appointment, flight to Berlin,
training session, product demo, budget review, all hands, standup, birthday party, holiday.
Conference room B, 2nd floor, 221 Baker Street, London. Microsoft Teams meeting, Google Meet:
https://meet.example.com/xyz-abcd-efg?pwd=Q1w2E3 https://www.example.org/docs/notes.html
Marie Dupont <marie.dupont@example.com>, John Doe <john@example.net>; Zoë, Café, Straße.
2026-03-10T09:30:00 2025-11-28T17:45:00Z 19970714T170000Z item_4711-20260310 "5e8b1c0a"`;

const packing = compactJson(keys, values, textCode(sample));

/** The occurrence, packed for its row. */
export function packOccurrence(occurrence: ProviderOccurrence): Buffer {
  const body = packing.encode(occurrence);
  const packed = Buffer.allocUnsafe(body.length + 1);
  packed[0] = compact;
  body.copy(packed, 1);
  return packed;
}

/** Rows whose `column` holds packed occurrences, that column unpacked in place (the rows are the engine's own, fresh). */
export function unpackColumn(rows: Record<string, unknown>[], column: string): void {
  for (const row of rows)
    if (row[column] !== null) row[column] = unpackOccurrence(row[column] as string | Uint8Array);
}

export function unpackOccurrence(stored: string | Uint8Array): ProviderOccurrence {
  if (typeof stored === 'string') return JSON.parse(stored) as ProviderOccurrence;
  if (stored[0] === compact) return packing.decode(stored, 1) as ProviderOccurrence;
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const json =
    bytes[0] === deflated
      ? inflateRawSync(bytes.subarray(1), { dictionary }).toString('utf8')
      : bytes.toString('utf8');
  return JSON.parse(json) as ProviderOccurrence;
}
