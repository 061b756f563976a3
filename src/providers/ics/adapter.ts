/**
 * Read-only iCalendar subscriptions (https/webcal feeds): one calendar per feed, events expanded
 * from the whole feed on every read (a 304 makes the repeat cheap). Everything in a feed is a
 * copy managed elsewhere, so nothing in it is editable here.
 */
import { calendarTimeZone, expandIcs } from '../../domain/ical/expand.ts';
import { findOccurrence } from '../../domain/ical/findOccurrence.ts';
import { parseCalendar } from '../../domain/ical/parse.ts';
import type { AccountAccess, CalendarProvider, CredentialsOf } from '../port.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import { createFeedReader, feedFault, normalizeFeedUrl } from './client.ts';

export interface IcsDeps {
  http: ProviderHttp;
  /** Largest feed read, in bytes (default 5 MiB). */
  maxBytes?: number;
  /** Allow feeds on private, loopback and link-local addresses (tests, trusted intranets). */
  allowPrivateNetworks?: boolean;
}

/** X- properties reach us raw; X-WR-CALNAME is TEXT by convention (RFC 5545 §3.3.11 escapes). */
const textValue = (raw: string) =>
  raw.replaceAll(/\\([\\;,nN])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c));

/** A reading of the feed's content; when the parser gives up, the feed is at fault and is named. */
function parsing<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw feedFault(
      'not_calendar_data',
      `The calendar feed is not valid iCalendar: ${(error as Error).message}`,
    );
  }
}

export function createIcsProvider(deps: IcsDeps): CalendarProvider<'ics'> {
  const feeds = createFeedReader({
    http: deps.http,
    maxBytes: deps.maxBytes ?? 5 * 1024 * 1024,
    allowPrivateNetworks: deps.allowPrivateNetworks ?? false,
  });
  const read = (account: AccountAccess<CredentialsOf<'ics'>>) =>
    feeds.read(normalizeFeedUrl(account.credentials.url), account.accountKey);

  return {
    kind: 'ics',

    async listCalendars(account) {
      const url = normalizeFeedUrl(account.credentials.url);
      const ics = await feeds.read(url, account.accountKey);
      const name = parsing(() => textValue(parseCalendar(ics).properties.get('x-wr-calname') ?? '').trim());
      const timeZone = parsing(() => calendarTimeZone(ics));
      return [
        {
          providerCalendarId: url.href,
          name: name || url.hostname,
          ...(timeZone && { timeZone }),
          primary: false,
          access: 'reader',
        },
      ];
    },

    async listEvents(account, _calendar, window) {
      const ics = await read(account);
      return parsing(() => expandIcs(ics, { window, managedCopy: true }));
    },

    async getEvent(account, _calendar, providerEventId, recurrenceId) {
      const ics = await read(account);
      return parsing(() => findOccurrence(ics, providerEventId, recurrenceId, { managedCopy: true }));
    },
  };
}
