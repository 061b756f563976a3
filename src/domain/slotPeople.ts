/**
 * Who can make a meeting slot: each attendee whose busy time is known is free or busy then, the
 * others unknown; the first room (in the order given, smallest first) known to be free then.
 * Best effort ranks slots by how few known attendees are busy. Pure.
 */
import type { BusySpan } from './availability.ts';
import type { Span } from './occurrences.ts';

export interface KnownBusy {
  email: string;
  /** undefined: nobody could tell. */
  busy?: readonly BusySpan[];
}

export interface SlotPeople {
  free: string[];
  busy: string[];
  unknown: string[];
}

/** Whether none of the spans overlaps the slot. */
export function freeDuring(busy: readonly BusySpan[], slot: Span): boolean {
  const start = slot.start.epochNanoseconds;
  const end = slot.end.epochNanoseconds;
  return !busy.some((span) => span.startNs < end && span.endNs > start);
}

export function slotPeople(people: readonly KnownBusy[], slot: Span): SlotPeople {
  const answer: SlotPeople = { free: [], busy: [], unknown: [] };
  for (const person of people) {
    if (person.busy === undefined) answer.unknown.push(person.email);
    else (freeDuring(person.busy, slot) ? answer.free : answer.busy).push(person.email);
  }
  return answer;
}

/** The first room known to be free during the slot. */
export const freeRoom = (rooms: readonly KnownBusy[], slot: Span): string | undefined =>
  rooms.find((room) => room.busy !== undefined && freeDuring(room.busy, slot))?.email;

/**
 * Best effort: of the candidate slots (in order, not overlapping), the `limit` with the fewest
 * known attendees busy, the earlier first among equals; returned in time order.
 */
export function bestSlots(candidates: readonly Span[], people: readonly KnownBusy[], limit: number): Span[] {
  const ranked = candidates.map((slot, index) => ({
    slot,
    index,
    busy: slotPeople(people, slot).busy.length,
  }));
  ranked.sort((a, b) => a.busy - b.busy || a.index - b.index);
  return ranked
    .slice(0, limit)
    .sort((a, b) => a.index - b.index)
    .map((r) => r.slot);
}
