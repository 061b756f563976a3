/**
 * Who can make a meeting slot: each attendee whose busy time is known is free or busy then, the
 * others unknown; each whose working hours are known is outside them or not; the first room (in
 * the order given, smallest first) known to be free then. Best effort ranks slots by how few
 * attendees are busy or outside their hours. Pure.
 */
import type { BusySpan } from './availability.ts';
import type { Span } from './occurrences.ts';
import { type WorkingHours, withinHours } from './workingHours.ts';

export interface KnownBusy {
  email: string;
  /** undefined: nobody could tell. */
  busy?: readonly BusySpan[];
  /** undefined: not known (nobody is held to hours they never gave). */
  workingHours?: WorkingHours;
}

export interface SlotPeople {
  free: string[];
  busy: string[];
  unknown: string[];
  /** Those with known working hours the slot is not inside (independent of the three above). */
  outsideHours: string[];
}

/** Whether none of the spans overlaps the slot. */
export function freeDuring(busy: readonly BusySpan[], slot: Span): boolean {
  const start = slot.start.epochNanoseconds;
  const end = slot.end.epochNanoseconds;
  return !busy.some((span) => span.startNs < end && span.endNs > start);
}

export function slotPeople(people: readonly KnownBusy[], slot: Span): SlotPeople {
  const answer: SlotPeople = { free: [], busy: [], unknown: [], outsideHours: [] };
  for (const person of people) {
    if (person.busy === undefined) answer.unknown.push(person.email);
    else (freeDuring(person.busy, slot) ? answer.free : answer.busy).push(person.email);
    if (!inHours(person, slot)) answer.outsideHours.push(person.email);
  }
  return answer;
}

/** Whether the slot lies inside the person's working hours, or they are not known. */
export const inHours = (person: KnownBusy, slot: Span): boolean =>
  person.workingHours === undefined || withinHours(person.workingHours, slot);

/** The first room known to be free during the slot. */
export const freeRoom = (rooms: readonly KnownBusy[], slot: Span): string | undefined =>
  rooms.find((room) => room.busy !== undefined && freeDuring(room.busy, slot))?.email;

/**
 * Best effort: of the candidate slots (in order, not overlapping), the `limit` with the fewest
 * attendees known to be busy or outside their working hours (each counted once), the earlier
 * first among equals; returned in time order.
 */
export function bestSlots(candidates: readonly Span[], people: readonly KnownBusy[], limit: number): Span[] {
  const ranked = candidates.map((slot, index) => ({
    slot,
    index,
    busy: people.filter(
      (person) => (person.busy !== undefined && !freeDuring(person.busy, slot)) || !inHours(person, slot),
    ).length,
  }));
  ranked.sort((a, b) => a.busy - b.busy || a.index - b.index);
  return ranked
    .slice(0, limit)
    .sort((a, b) => a.index - b.index)
    .map((r) => r.slot);
}
