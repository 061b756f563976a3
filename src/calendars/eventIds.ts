/**
 * Opaque, stable event and occurrence ids that the service can read back: the provider's ids
 * sealed with deterministic authenticated encryption (SIV: the IV is an HMAC of the calendar
 * and the plaintext, the plaintext AES-CTR under a second key). The same event keeps its id
 * across syncs, the id reveals neither provider ids nor addresses, and an id opens only for
 * the calendar it was minted for — so a write names its event without any stored mapping.
 * A sync seals each occurrence's ids once and its copied row keeps them: nothing is remembered
 * here (a process-wide memory of ids would grow with the people served, for little gain).
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { EventIds } from '../domain/occurrences.ts';
import { aesCtr } from '../lib/aesCtr.ts';

export interface OccurrenceRef {
  providerEventId: string;
  recurrenceId?: string;
}

export interface EventIdCodec extends EventIds {
  /** The provider event id behind `eventId` if it was minted for this calendar. */
  readEventId(calendarId: string, eventId: string): string | undefined;
  /** The first of the calendars `eventId` was minted for, and its provider event id. */
  eventCalendar(
    calendarIds: readonly string[],
    eventId: string,
  ): { calendarId: string; providerEventId: string } | undefined;
  /** The provider event and occurrence behind `occurrenceId` if it was minted for this calendar. */
  readOccurrenceId(calendarId: string, occurrenceId: string): OccurrenceRef | undefined;
}

const ivLength = 16;
/** Provider ids are at most a few hundred bytes; anything longer is not one of ours. */
const maxIdLength = 1024;

const derive = (secretKey: Buffer, info: string) =>
  Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), info, 32));

/** Seals and opens one kind of id (`evt_`, `occ_`) with keys of its own. */
function sealer(secretKey: Buffer, kind: 'evt' | 'occ') {
  const macKey = derive(secretKey, `calendar-access ${kind} id mac v2`);
  const encKey = derive(secretKey, `calendar-access ${kind} id enc v2`);
  const ivOf = (calendarId: string, plaintext: Buffer) =>
    createHmac('sha256', macKey)
      .update(calendarId)
      .update('\0')
      .update(plaintext)
      .digest()
      .subarray(0, ivLength);
  // Ids are sealed by the tens of thousands in a sync: one cipher for them all, not one per id.
  const xor = aesCtr(encKey);
  const ctr = (iv: Buffer, data: Buffer) => {
    const out = Buffer.allocUnsafe(data.length);
    xor(iv, data, out, 0);
    return out;
  };
  const prefix = `${kind}_`;
  return {
    seal(calendarId: string, plaintext: string): string {
      const bytes = Buffer.from(plaintext, 'utf8');
      const iv = ivOf(calendarId, bytes);
      const sealed = Buffer.allocUnsafe(ivLength + bytes.length);
      sealed.set(iv, 0);
      xor(iv, bytes, sealed, ivLength);
      return prefix + sealed.toString('base64url');
    },
    /** The first of the calendars `id` was sealed for, and what it holds: opened once, its MAC checked for each. */
    openAmong(
      calendarIds: readonly string[],
      id: string,
    ): { calendarId: string; plaintext: string } | undefined {
      if (!id.startsWith(prefix) || id.length > maxIdLength) return undefined;
      const body = id.slice(prefix.length);
      const raw = Buffer.from(body, 'base64url');
      // Only the one canonical spelling: base64 ignores stray bits and characters.
      if (raw.length <= ivLength || raw.toString('base64url') !== body) return undefined;
      const iv = raw.subarray(0, ivLength);
      const plaintext = ctr(iv, raw.subarray(ivLength));
      for (const calendarId of calendarIds)
        if (timingSafeEqual(iv, ivOf(calendarId, plaintext)))
          return { calendarId, plaintext: plaintext.toString('utf8') };
      return undefined;
    },
  };
}

export function createEventIds(secretKey: Buffer): EventIdCodec {
  const events = sealer(secretKey, 'evt');
  const occurrences = sealer(secretKey, 'occ');
  return {
    eventId: (calendarId, providerEventId) => events.seal(calendarId, providerEventId),
    // Recurrence ids are never empty, so an empty one stands for "a single event".
    occurrenceId: (calendarId, providerEventId, recurrenceId) =>
      occurrences.seal(calendarId, `${providerEventId}\0${recurrenceId ?? ''}`),
    readEventId: (calendarId, id) => events.openAmong([calendarId], id)?.plaintext,
    eventCalendar(calendarIds, id) {
      const opened = events.openAmong(calendarIds, id);
      return opened && { calendarId: opened.calendarId, providerEventId: opened.plaintext };
    },
    readOccurrenceId(calendarId, id) {
      const opened = occurrences.openAmong([calendarId], id)?.plaintext;
      if (opened === undefined) return undefined;
      const split = opened.lastIndexOf('\0');
      if (split < 0) return undefined;
      const providerEventId = opened.slice(0, split);
      const recurrenceId = opened.slice(split + 1);
      return recurrenceId === '' ? { providerEventId } : { providerEventId, recurrenceId };
    },
  };
}
