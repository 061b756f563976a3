/**
 * Opaque, stable event and occurrence ids: keyed MACs of the provider's ids, so the same event
 * keeps its id across syncs while the id reveals neither provider ids nor addresses. Reads
 * return the same events again and again, so computed ids are remembered (bounded).
 */
import type { EventIds } from '../domain/occurrences.ts';
import { mac } from '../lib/secrets.ts';

const idLength = 22;
const remembered = 200_000;

function memo(compute: (key: string) => string): (key: string) => string {
  const known = new Map<string, string>();
  return (key) => {
    let id = known.get(key);
    if (id === undefined) {
      id = compute(key);
      if (known.size >= remembered) known.clear();
      known.set(key, id);
    }
    return id;
  };
}

export function createEventIds(secretKey: Buffer): EventIds {
  const eventId = memo((key) => `evt_${mac(secretKey, 'event-id', key).slice(0, idLength)}`);
  const occurrenceId = memo((key) => `occ_${mac(secretKey, 'occurrence-id', key).slice(0, idLength)}`);
  return {
    eventId: (calendarId, providerEventId) => eventId(`${calendarId}\0${providerEventId}`),
    occurrenceId: (calendarId, providerEventId, recurrenceId) =>
      occurrenceId(`${calendarId}\0${providerEventId}\0${recurrenceId ?? ''}`),
  };
}
