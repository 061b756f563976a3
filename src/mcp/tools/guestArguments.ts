/** The guest arguments of the write tools, described for a model, and the guests member of their answers. */
import type { GuestChanges } from '../../domain/eventChanges.ts';
import {
  type GuestInput,
  maxGuestNameLength,
  maxGuests,
  parseAddresses,
  parseGuests,
} from '../../domain/guests.ts';
import { maxEmailLength } from '../../lib/email.ts';
import { closedObject } from '../../lib/jsonSchema.ts';
import type { JsonSchema } from '../tool.ts';

const email = { type: 'string', minLength: 3, maxLength: maxEmailLength } as const;

/** Guests to invite: each an address, a name, and whether they are optional. */
export const guestListSchema = (description: string) => ({
  type: 'array',
  maxItems: maxGuests,
  description,
  items: closedObject(
    {
      email,
      name: { type: 'string', minLength: 1, maxLength: maxGuestNameLength },
      optional: { type: 'boolean' },
    },
    ['email'],
  ),
});

export const notifyRule =
  'An event with guests (the user organises it) needs notifyAttendees: true lets the calendar tell them, false keeps it from them (refused on Microsoft 365, which always tells them).';

export const notifyAttendeesSchema = {
  type: 'boolean',
  description: 'Required when the event has or gets guests.',
} as const;

export const guestsAnswerSchema = {
  description: 'Guests the write concerns, and whether the calendar told them (false: nobody was).',
  ...closedObject({ notified: { type: 'boolean' }, emails: { type: 'array', items: { type: 'string' } } }, [
    'notified',
    'emails',
  ]),
};

/** An answer's schema with the optional guests member. */
export const withGuestsAnswer = <S extends { properties: Record<string, unknown> }>(
  schema: S,
): JsonSchema => ({
  ...schema,
  properties: { ...schema.properties, guests: guestsAnswerSchema },
});

export interface GuestArguments {
  addAttendees?: GuestInput[];
  removeAttendees?: string[];
  notifyAttendees?: boolean;
}

export const guestArgumentSchemas = {
  addAttendees: guestListSchema('Guests to invite.'),
  removeAttendees: {
    type: 'array',
    maxItems: maxGuests,
    items: email,
    description: 'Addresses of guests to uninvite.',
  },
  notifyAttendees: notifyAttendeesSchema,
};

/** The guest changes an update asks for, with the rooms it books; undefined when it names none. */
export function guestChangesOf(
  args: GuestArguments,
  rooms: readonly GuestInput[] = [],
): GuestChanges | undefined {
  const add = parseGuests('addAttendees', [...(args.addAttendees ?? []), ...rooms]);
  const remove = parseAddresses('removeAttendees', args.removeAttendees ?? []);
  return add.length + remove.length === 0 ? undefined : { add, remove };
}
