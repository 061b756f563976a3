/**
 * Compare-and-set across tool calls: a write carries the values its caller read of what it
 * changes (`seen`), and is refused when the event now shows other values there. A change made at
 * the provider to fields the write does not touch lets the write go through. Stateless: reads
 * remember nothing, so they cost nothing more. Pure.
 */

import { invalidField } from '../errors.ts';
import { withoutStrayControlCharacters } from '../lib/text.ts';
import type { Alert, Event, FreeBusyStatus, Location, Privacy } from './event.ts';

/** Values of an Event as the caller read them; `null` says the event had none. */
export interface SeenValues {
  title?: string;
  description?: string | null;
  locations?: Location[] | null;
  start?: string;
  timeZone?: string | null;
  duration?: string;
  freeBusyStatus?: FreeBusyStatus;
  privacy?: Privacy | null;
  alerts?: Alert[] | null;
}

export type SeenField = keyof SeenValues;

export const seenFields: readonly SeenField[] = [
  'title',
  'description',
  'locations',
  'start',
  'timeZone',
  'duration',
  'freeBusyStatus',
  'privacy',
  'alerts',
];

/** What each changed field must have been seen as; a deletion must name what it deletes. */
const neededFor: Record<string, readonly SeenField[]> = {
  title: ['title'],
  description: ['description'],
  location: ['locations'],
  timing: ['start', 'duration'],
  recurrence: ['start', 'duration'],
  freeBusyStatus: ['freeBusyStatus'],
  privacy: ['privacy'],
  alerts: ['alerts'],
  delete: ['title', 'start'],
};

/** Refuses a write whose `seen` lacks a value the write depends on (`changed`: keys of the change, or `delete`). */
export function requireSeen(seen: SeenValues | undefined, changed: readonly string[]): void {
  for (const key of changed) {
    for (const field of neededFor[key] ?? []) {
      if (seen?.[field] === undefined) {
        throw invalidField(
          `seen.${field}`,
          `Give seen.${field}: the ${field} of the event as you last read it (null when it had none), so that a change made since is not overwritten.`,
        );
      }
    }
  }
}

const sameLocations = (a: readonly Location[] | undefined, b: readonly Location[] | null): boolean => {
  const left = a ?? [];
  const right = b ?? [];
  return (
    left.length === right.length &&
    left.every(
      (l, i) =>
        sendable(l.name) === sendable(right[i]!.name) &&
        sendable(l.description ?? null) === sendable(right[i]!.description ?? null) &&
        (l.coordinates ?? null) === (right[i]!.coordinates ?? null),
    )
  );
};

const sameAlerts = (a: readonly Alert[] | undefined, b: readonly Alert[] | null): boolean => {
  const left = a ?? [];
  const right = b ?? [];
  return (
    left.length === right.length &&
    left.every((l, i) => l.offset === right[i]!.offset && (l.action ?? null) === (right[i]!.action ?? null))
  );
};

const localDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

/**
 * Starts as the same moment: a read shows it with the offsets of the zone it asked for, a
 * write's check with the event's own (`10:00:00Z` = `11:00:00+01:00`); dates compare as text.
 */
function sameStart(current: string, seen: string): boolean {
  if (current === seen) return true;
  // A start read before times carried offsets: the local time in the event's own zone, which the
  // write's check shows it in.
  if (localDateTime.test(seen)) return current.slice(0, 19) === (seen.length === 16 ? `${seen}:00` : seen);
  try {
    return Temporal.Instant.from(current).equals(Temporal.Instant.from(seen));
  } catch {
    return false;
  }
}

/**
 * Text as a caller can send it back: tool arguments refuse stray control characters, which text
 * written by others may hold, so they are left out on both sides.
 */
const sendable = (value: unknown): unknown =>
  typeof value === 'string' ? withoutStrayControlCharacters(value) : value;

/** The fields given in `seen` whose value the event no longer has; empty when none changed. */
export function changedSince(current: Event, seen: SeenValues): SeenField[] {
  return seenFields.filter((field) => {
    const was = seen[field];
    if (was === undefined) return false;
    if (field === 'locations') return !sameLocations(current.locations, was as Location[] | null);
    if (field === 'alerts') return !sameAlerts(current.alerts, was as Alert[] | null);
    if (field === 'start') return !sameStart(current.start, was as string);
    return sendable(current[field] ?? null) !== sendable(was);
  });
}
