/**
 * Writing the guests of a VEVENT (RFC 5545 §3.8.4.1, §3.8.4.3): ATTENDEEs added with their
 * name, role and a request to answer, removed by address; the user named as ORGANIZER once the
 * event has guests. On servers that schedule (RFC 6638 §7.1), SCHEDULE-AGENT=CLIENT on every
 * ATTENDEE keeps the server from delivering this version; without the parameter it delivers. Pure.
 */
import ICAL from 'ical.js';
import type { GuestChanges } from '../eventChanges.ts';
import type { Component } from './parse.ts';

export interface IcalScheduling {
  /** The user's address, written as ORGANIZER where the event has guests and names no organizer. */
  organizer?: string;
  /** CLIENT: the server does not deliver this write; SERVER: it does; absent: left as it is. */
  agent?: 'CLIENT' | 'SERVER';
}

const mailto = (email: string) => `mailto:${email}`;
const addressOf = (value: unknown) =>
  typeof value === 'string'
    ? value
        .trim()
        .replace(/^mailto:/i, '')
        .toLowerCase()
    : '';

export function applyGuests(
  event: Component,
  changes: GuestChanges | undefined,
  scheduling: IcalScheduling,
): void {
  if (changes !== undefined) {
    const removed = new Set(changes.remove.map((email) => email.toLowerCase()));
    for (const attendee of event.getAllProperties('attendee')) {
      if (removed.has(addressOf(attendee.getFirstValue()))) event.removeProperty(attendee);
    }
    for (const guest of changes.add) {
      const attendee = new ICAL.Property('attendee');
      attendee.setValue(mailto(guest.email));
      // Quotes and line breaks are written as RFC 6868 says (calendarText.ts), never raw.
      if (guest.name !== undefined) attendee.setParameter('cn', guest.name);
      attendee.setParameter('role', guest.optional ? 'OPT-PARTICIPANT' : 'REQ-PARTICIPANT');
      // RFC 5545 §3.2.3: a room is a calendar user of its own type (RFC 6638 servers book it).
      if (guest.room) attendee.setParameter('cutype', 'ROOM');
      attendee.setParameter('partstat', 'NEEDS-ACTION');
      attendee.setParameter('rsvp', 'TRUE');
      event.addProperty(attendee);
    }
  }
  const attendees = event.getAllProperties('attendee');
  if (attendees.length > 0 && !event.hasProperty('organizer') && scheduling.organizer !== undefined) {
    event.addPropertyWithValue('organizer', mailto(scheduling.organizer));
  }
  if (scheduling.agent === undefined) return;
  for (const attendee of attendees) {
    if (scheduling.agent === 'CLIENT') attendee.setParameter('schedule-agent', 'CLIENT');
    else attendee.removeParameter('schedule-agent');
  }
}
