/**
 * Read-only iCalendar subscriptions (https/webcal feeds): one calendar per feed, events expanded
 * from the whole feed on every read (a 304 makes the repeat cheap) and on every sync of the copy
 * (sync.ts). Everything in a feed is a copy managed elsewhere, so nothing in it is editable here.
 * Feeds are parsed and expanded in the expansion pool, off the request thread and within its budget.
 */
import { createExpansionPool, type ExpansionPool } from '../expansionPool.ts';
import type { AccountAccess, CalendarProvider, CredentialsOf } from '../port.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import { createFeedReader, normalizeFeedUrl } from './client.ts';
import { feedEvents, parsing } from './feedEvents.ts';
import { createIcsSync } from './sync.ts';

export interface IcsDeps {
  http: ProviderHttp;
  /** Largest feed read, in bytes (default 5 MiB). */
  maxBytes?: number;
  /** Allow feeds on private, loopback and link-local addresses (tests, trusted intranets). */
  allowPrivateNetworks?: boolean;
  /** Where feeds are parsed and expanded; a pool of its own by default. */
  pool?: ExpansionPool;
}

/** X- properties reach us raw; X-WR-CALNAME is TEXT by convention (RFC 5545 §3.3.11 escapes). */
const textValue = (raw: string) =>
  raw.replaceAll(/\\([\\;,nN])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c));

export function createIcsProvider(deps: IcsDeps): CalendarProvider<'ics'> {
  const feeds = createFeedReader({
    http: deps.http,
    maxBytes: deps.maxBytes ?? 5 * 1024 * 1024,
    allowPrivateNetworks: deps.allowPrivateNetworks ?? false,
  });
  const pool = deps.pool ?? createExpansionPool();
  const read = (account: AccountAccess<CredentialsOf<'ics'>>) =>
    feeds.read(normalizeFeedUrl(account.credentials.url), account.accountKey);

  return {
    kind: 'ics',

    async listCalendars(account) {
      const url = normalizeFeedUrl(account.credentials.url);
      const ics = await feeds.read(url, account.accountKey);
      const described = await parsing(() => pool.describe(account.accountKey, ics));
      const name = textValue(described.name ?? '').trim();
      const timeZone = described.timeZone;
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
      const { occurrences, skipped } = await feedEvents(
        pool,
        account.accountKey,
        await read(account),
        window,
      );
      return { occurrences, skipped };
    },

    async getEvent(account, _calendar, providerEventId, recurrenceId) {
      const ics = await read(account);
      return parsing(() =>
        pool.find(account.accountKey, ics, providerEventId, recurrenceId, { managedCopy: true }),
      );
    },

    sync: createIcsSync(feeds, pool),
  };
}
