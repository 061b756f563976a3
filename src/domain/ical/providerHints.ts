/**
 * Provider-specific marks in iCalendar data that change what an edit may do: conferences that
 * an edit could break, and copies managed elsewhere (Google's contacts birthdays).
 */
import type { Component } from './parse.ts';

const conferenceProperties = ['conference', 'x-google-conference', 'x-microsoft-skypeteamsmeetingurl'];

export function hasConference(component: Component): boolean {
  return conferenceProperties.some((name) => component.hasProperty(name));
}

/** Google's birthday feed: UIDs like `2014_BIRTHDAY_79d3…@google.com`, a cake icon. */
export function isGoogleBirthday(component: Component): boolean {
  const uid = component.getFirstPropertyValue('uid');
  const icon = component.getFirstPropertyValue('x-google-calendar-content-icon');
  const birthdayUid = typeof uid === 'string' && /birthday/i.test(uid) && /@google\.com$/i.test(uid);
  return birthdayUid || (typeof icon === 'string' && /\/cake\.[a-z]+$/i.test(icon));
}
