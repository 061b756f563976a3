/**
 * ORGANIZER / ATTENDEE → the edit and RSVP facts about the connected user, and the people
 * themselves. Addresses compare without their `mailto:` and case-insensitively.
 */

import { isEmailAddress } from '../../lib/email.ts';
import type { ResponseStatus } from '../event.ts';
import type { Attendee, EditFacts, Participant, ProviderOccurrence } from '../providerFacts.ts';
import type { Component } from './parse.ts';

export interface Participation extends Pick<EditFacts, 'organizer' | 'attendees' | 'userIsAttendee'> {
  responseStatus?: ResponseStatus;
}

const responses: Record<string, ResponseStatus> = {
  'NEEDS-ACTION': 'needs-action',
  ACCEPTED: 'accepted',
  DECLINED: 'declined',
  TENTATIVE: 'tentative',
};

function normaliseAddress(address: string): string {
  return address
    .trim()
    .replace(/^mailto:/i, '')
    .toLowerCase();
}

export function participation(component: Component, selfAddresses: readonly string[] = []): Participation {
  const self = new Set(selfAddresses.map(normaliseAddress));
  const isSelf = (value: unknown) => typeof value === 'string' && self.has(normaliseAddress(value));
  const organizer = component.getFirstProperty('organizer');
  const attendees = component.getAllProperties('attendee');
  const selfAttendee = attendees.find((attendee) => isSelf(attendee.getFirstValue()));
  let organizerFact: EditFacts['organizer'] = 'none';
  if (organizer !== null) {
    // Without the user's addresses nobody can tell who organises.
    if (self.size === 0) organizerFact = 'unknown';
    else organizerFact = isSelf(organizer.getFirstValue()) ? 'self' : 'other';
  }
  // RFC 5545: PARTSTAT defaults to NEEDS-ACTION.
  const partstat = selfAttendee?.getFirstParameter('partstat')?.toUpperCase() ?? 'NEEDS-ACTION';
  const responseStatus = selfAttendee === undefined ? undefined : responses[partstat];
  return {
    organizer: organizerFact,
    attendees: attendees.some((attendee) => !isSelf(attendee.getFirstValue())),
    userIsAttendee: selfAttendee !== undefined && organizerFact !== 'self',
    ...(responseStatus && { responseStatus }),
  };
}

type Property = NonNullable<ReturnType<Component['getFirstProperty']>>;
export type People = Pick<ProviderOccurrence, 'organizer' | 'attendees'>;

/** A `mailto:` address with its CN, or undefined for any other kind of calendar address. */
function participant(property: Property, self: Set<string>): Participant | undefined {
  const value = property.getFirstValue();
  if (typeof value !== 'string' || !/^mailto:/i.test(value.trim())) return undefined;
  const email = value.trim().slice('mailto:'.length);
  if (!isEmailAddress(email)) return undefined;
  const name = property.getFirstParameter('cn');
  return {
    email,
    ...(typeof name === 'string' && name.trim() !== '' ? { name: name.trim() } : {}),
    self: self.has(normaliseAddress(email)),
  };
}

// Each part of a series is read for every occurrence it shows: its people are made once and shared.
const noAddresses: readonly string[] = [];
const peopleByPart = new WeakMap<Component, { selfAddresses: readonly string[]; people: People }>();

/** ORGANIZER and ATTENDEEs with e-mail addresses: names (CN), roles (ROLE=OPT-PARTICIPANT is optional) and answers. */
export function participants(component: Component, selfAddresses: readonly string[] = noAddresses): People {
  const known = peopleByPart.get(component);
  if (known !== undefined && known.selfAddresses === selfAddresses) return known.people;
  const self = new Set(selfAddresses.map(normaliseAddress));
  const organizerProperty = component.getFirstProperty('organizer');
  const organizer = organizerProperty === null ? undefined : participant(organizerProperty, self);
  const attendees = component.getAllProperties('attendee').flatMap((property): Attendee[] => {
    const person = participant(property, self);
    if (person === undefined) return [];
    const role = property.getFirstParameter('role')?.toUpperCase();
    const partstat = property.getFirstParameter('partstat')?.toUpperCase() ?? 'NEEDS-ACTION';
    return [
      {
        ...person,
        optional: role === 'OPT-PARTICIPANT' || role === 'NON-PARTICIPANT',
        response: responses[partstat] ?? 'needs-action',
      },
    ];
  });
  const found: People = {
    ...(organizer === undefined ? {} : { organizer }),
    ...(attendees.length === 0 ? {} : { attendees }),
  };
  peopleByPart.set(component, { selfAddresses, people: found });
  return found;
}
