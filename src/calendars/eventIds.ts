/**
 * Opaque, stable event and occurrence ids: keyed MACs of the provider's ids, so the same event
 * keeps its id across syncs while the id reveals neither provider ids nor addresses.
 */
import type { EventIds } from '../domain/occurrences.ts';
import { mac } from '../lib/secrets.ts';

const idLength = 22;

export function createEventIds(secretKey: Buffer): EventIds {
  return {
    eventId: (calendarId, providerEventId) =>
      `evt_${mac(secretKey, 'event-id', `${calendarId}\0${providerEventId}`).slice(0, idLength)}`,
    occurrenceId: (calendarId, providerEventId, recurrenceId) =>
      `occ_${mac(secretKey, 'occurrence-id', `${calendarId}\0${providerEventId}\0${recurrenceId ?? ''}`).slice(0, idLength)}`,
  };
}
