/** What a person types to connect an account, checked and turned into provider credentials. */

import type { ProviderKind } from '../../domain/providerFacts.ts';
import { invalidField } from '../../errors.ts';
import { isEmailAddress } from '../../lib/email.ts';
import { requiredText } from '../../lib/text.ts';
import type { CalendarAddress, Credentials } from '../../providers/port.ts';

export const providerNames: Record<ProviderKind, string> = {
  caldav: 'CalDAV',
  ics: 'ICS subscription',
  google: 'Google Calendar',
  microsoft: 'Microsoft 365',
};

type Form = Record<string, unknown>;

function httpUrl(input: unknown, field: string, schemes: string[]): string {
  const value = typeof input === 'string' ? input.trim() : '';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidField(field, 'Enter a full address, like https://calendar.example.com/.');
  }
  if (!schemes.includes(url.protocol) || url.username !== '' || url.password !== '') {
    throw invalidField(field, `The address must start with ${schemes.map((s) => `${s}//`).join(' or ')}.`);
  }
  return url.href;
}

/** The optional address a person gives for themselves in calendars: absent, or one bare e-mail address. */
function givenAddress(input: unknown): CalendarAddress | undefined {
  const email = typeof input === 'string' ? input.trim() : '';
  if (email === '') return undefined;
  if (!isEmailAddress(email)) {
    throw invalidField(
      'calendarAddress',
      'Enter your address in calendars as name@example.com, or leave it empty.',
    );
  }
  return { email, from: 'form' };
}

export function caldavCredentials(form: Form): Credentials {
  const serverUrl = httpUrl(form.serverUrl, 'serverUrl', ['https:', 'http:']);
  const username = requiredText(form.username, 'username', 'a user name', 256);
  if (typeof form.password !== 'string' || form.password === '')
    throw invalidField('password', 'Enter the app password.');
  const calendarAddress = givenAddress(form.calendarAddress);
  return {
    kind: 'caldav',
    serverUrl,
    username,
    password: form.password,
    ...(calendarAddress === undefined ? {} : { calendarAddress }),
  };
}

/**
 * A CalDAV account's address when none was given (connecting checks the server's first): the
 * login when it is an e-mail address, else the person's sign-in e-mail. Without one, nobody
 * could be invited and no invitation answered.
 */
export function withCalendarAddress(credentials: Credentials, signInEmail: string): Credentials {
  if (credentials.kind !== 'caldav' || credentials.calendarAddress !== undefined) return credentials;
  const { username } = credentials;
  const calendarAddress: CalendarAddress = isEmailAddress(username)
    ? { email: username, from: 'login' }
    : { email: signInEmail, from: 'signIn' };
  return { ...credentials, calendarAddress };
}

export function icsCredentials(form: Form): Credentials {
  return { kind: 'ics', url: httpUrl(form.url, 'url', ['https:', 'http:', 'webcal:', 'webcals:']) };
}

export const connectionLabel = (credentials: Credentials, email?: string): string => {
  switch (credentials.kind) {
    case 'caldav':
      return `${credentials.username} on ${new URL(credentials.serverUrl).host}`;
    case 'ics':
      return new URL(credentials.url).host + new URL(credentials.url).pathname;
    default:
      return email ?? providerNames[credentials.kind];
  }
};
