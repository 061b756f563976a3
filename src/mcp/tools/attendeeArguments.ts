/** The `attendees` argument of the availability tools, and the `attendees` member of their answers. */
import {
  type AttendeeAddress,
  type AttendeeAvailability,
  busySources,
  unknownReasons,
} from '../../calendars/reads/colleagueBusy.ts';
import { invalidField } from '../../errors.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import { parseEmail } from '../../people/email.ts';

export const maxAttendees = 20;

/** Bounds checked by `parseAttendees`: the listing stays small. */
export const attendeesSchema = {
  type: 'array',
  maxItems: maxAttendees,
  items: { type: 'string' },
  description: "Members' busy times, and others' where the user's calendar provider tells them.",
} as const;

export const attendeesAnswerSchema = {
  type: 'array',
  items: closedObject(
    {
      email: { type: 'string' },
      availability: { enum: ['known', 'unknown'] },
      source: { enum: [...busySources] },
      reason: { enum: [...unknownReasons] },
    },
    ['email', 'availability'],
  ),
} as const;

/** The addresses asked about, validated, the same address (by its key) asked once. */
export function parseAttendees(input: unknown): AttendeeAddress[] {
  if (input === undefined) return [];
  if (!Array.isArray(input)) throw invalidField('attendees', 'Give a list of e-mail addresses.');
  if (input.length > maxAttendees) throw invalidField('attendees', `Name at most ${maxAttendees} attendees.`);
  const byKey = new Map<string, AttendeeAddress>();
  for (const value of input) {
    const address = parseEmail(value, 'attendees');
    if (!byKey.has(address.key)) byKey.set(address.key, address);
  }
  return [...byKey.values()];
}

/** Each attendee as an answer says it: whether their busy time is known, else why not. */
export const attendeesAnswer = (attendees: readonly AttendeeAvailability[]) =>
  attendees.map((a) =>
    a.availability === 'known'
      ? { email: a.email, availability: a.availability, source: a.source }
      : { email: a.email, availability: a.availability, reason: a.reason },
  );
