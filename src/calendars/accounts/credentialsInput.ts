/** What a person types to connect an account, checked and turned into provider credentials. */

import type { ProviderKind } from '../../domain/providerFacts.ts';
import { invalidField } from '../../errors.ts';
import { requiredText } from '../../lib/text.ts';
import type { Credentials } from '../../providers/port.ts';

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

export function caldavCredentials(form: Form): Credentials {
  const serverUrl = httpUrl(form.serverUrl, 'serverUrl', ['https:', 'http:']);
  const username = requiredText(form.username, 'username', 'a user name', 256);
  if (typeof form.password !== 'string' || form.password === '')
    throw invalidField('password', 'Enter the app password.');
  return { kind: 'caldav', serverUrl, username, password: form.password };
}

export function icsCredentials(form: Form): Credentials {
  return { kind: 'ics', url: httpUrl(form.url, 'url', ['https:', 'http:', 'webcal:', 'webcals:']) };
}

export const accountLabel = (credentials: Credentials, email?: string): string => {
  switch (credentials.kind) {
    case 'caldav':
      return `${credentials.username} on ${new URL(credentials.serverUrl).host}`;
    case 'ics':
      return new URL(credentials.url).host + new URL(credentials.url).pathname;
    default:
      return email ?? providerNames[credentials.kind];
  }
};
