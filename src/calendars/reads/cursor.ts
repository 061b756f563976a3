/**
 * Opaque page cursors for `list_events` and `GET /v1/events`: the position after the last
 * event returned (start instant, calendar id, occurrence id), so events added or removed
 * meanwhile never shift a page, bound by a MAC to the grant and the exact request.
 */
import { type Ordered, type PlacedEvent, startMsOf } from '../../domain/occurrences.ts';
import type { ReadRequest } from '../../domain/readRequest.ts';
import { invalidField } from '../../errors.ts';
import { constantTimeEqual, mac } from '../../lib/secrets.ts';

interface Position {
  startNs: bigint;
  calendarId: string;
  occurrenceId: string;
}

export interface Page {
  items: PlacedEvent[];
  nextCursor?: string;
}

export interface Pager {
  /** What a page of `limit` asks of the read: the events after the cursor, one more than fit (is there a next page?). */
  wanted(limit: number): { after?: Ordered; first: number };
  /** The page of `limit` from the events the read gave for `wanted(limit)`. */
  page(events: readonly PlacedEvent[], limit: number): Page;
}

function fingerprint(grantId: string, request: ReadRequest): string {
  return JSON.stringify([
    grantId,
    [...request.calendarIds].sort(),
    request.window.start.toString(),
    request.window.end.toString(),
    request.timeZone ?? null,
  ]);
}

/** Checks the cursor (if any) before anything is read: a foreign or forged one is `invalid_request`. */
export function createPager(
  secretKey: Buffer,
  grantId: string,
  request: ReadRequest,
  cursor: { value: string | undefined; field: string },
): Pager {
  const bound = fingerprint(grantId, request);
  const sign = (body: string) => mac(secretKey, 'page-cursor', `${bound}\0${body}`).slice(0, 22);

  const encode = (p: PlacedEvent) => {
    const body = Buffer.from(
      JSON.stringify([p.startNs.toString(), p.event.calendarId, p.event.occurrenceId]),
    ).toString('base64url');
    return `${body}.${sign(body)}`;
  };

  const decode = (cursor: string, field: string): Position => {
    const parts = cursor.split('.');
    const [body = '', signature = ''] = parts;
    if (parts.length !== 2 || cursor.length > 1024 || !constantTimeEqual(signature, sign(body))) {
      throw invalidField(field, `This ${field} does not belong to this request; start again without it.`);
    }
    const [startNs, calendarId, occurrenceId] = JSON.parse(
      Buffer.from(body, 'base64url').toString(),
    ) as string[];
    return { startNs: BigInt(startNs!), calendarId: calendarId!, occurrenceId: occurrenceId! };
  };

  const position = cursor.value === undefined ? undefined : decode(cursor.value, cursor.field);
  // The cursor's place in the one order (each copy's query starts there).
  const after: Ordered | undefined = position && {
    startMs: startMsOf(position.startNs),
    startNs: position.startNs,
    event: { calendarId: position.calendarId, occurrenceId: position.occurrenceId },
  };
  return {
    wanted: (limit) => ({ ...(after === undefined ? {} : { after }), first: limit + 1 }),
    page(events, limit) {
      const items = events.slice(0, limit);
      return events.length > limit ? { items, nextCursor: encode(items.at(-1)!) } : { items };
    },
  };
}
