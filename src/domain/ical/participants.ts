/**
 * ORGANIZER / ATTENDEE → the edit and RSVP facts about the connected user. Addresses compare
 * without their `mailto:` and case-insensitively.
 */

import type { ResponseStatus } from '../event.ts';
import type { EditFacts } from '../providerFacts.ts';
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
