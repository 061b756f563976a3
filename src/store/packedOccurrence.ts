/**
 * A copied occurrence as stored: its JSON deflated against a dictionary of what every occurrence
 * shares (its keys and usual values), behind a format byte. The JSON was the copies' largest
 * column (about 770 of 2,200 bytes per event of the bench's calendars; packed, about 320). The
 * dictionary is part of the format: a changed one needs a new format byte. Rows written before
 * hold their JSON as text (SQLite) or its UTF-8 bytes (PostgreSQL): read as they are.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ProviderOccurrence } from '../domain/providerFacts.ts';

const deflated = 1;

/** The shape of an occurrence's JSON as the copies write it (`JSON.stringify` keeps key order). */
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

/** The occurrence's JSON, packed for its row. */
export function packOccurrence(json: string): Buffer {
  return Buffer.concat([Buffer.of(deflated), deflateRawSync(json, { dictionary })]);
}

export function unpackOccurrence(stored: string | Uint8Array): ProviderOccurrence {
  if (typeof stored === 'string') return JSON.parse(stored) as ProviderOccurrence;
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const json =
    bytes[0] === deflated
      ? inflateRawSync(bytes.subarray(1), { dictionary }).toString('utf8')
      : bytes.toString('utf8');
  return JSON.parse(json) as ProviderOccurrence;
}
