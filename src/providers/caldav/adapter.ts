/**
 * The CalDAV adapter (any RFC 4791 server; tested against Radicale): Basic authentication,
 * the calendar home discovered once and kept in the credentials, calendars from the home,
 * events from calendar-query REPORTs expanded here, writes as conditional PUT/DELETE, sync by
 * sync-collection (or ctag and ETags), others' free/busy through the schedule outbox where the
 * server has one (RFC 6638 §5).
 */

import type { ProviderCalendar } from '../../domain/providerFacts.ts';
import { AppError, type ErrorReason, invalidField, reasonOf } from '../../errors.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import { isEmailAddress } from '../../lib/email.ts';
import { createExpansionPool, type ExpansionPool } from '../expansionPool.ts';
import { type AccountAccess, busyOnly, type CalendarProvider, type CredentialsOf } from '../port.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import { listCalendarsAt } from './calendars.ts';
import type { DavSession } from './client.ts';
import {
  discoverCalendarHome,
  noServerAt,
  type PrincipalScheduling,
  parseServerUrl,
  principalScheduling,
} from './discovery.ts';
import { getEventIn, listEventsIn } from './events.ts';
import { caldavFreeBusy } from './freeBusy.ts';
import { caldavRooms } from './rooms.ts';
import { autoSchedules, caldavScheduling } from './scheduling.ts';
import { createCaldavSync } from './sync.ts';
import { createCaldavWriter } from './writer.ts';

type CaldavCredentials = CredentialsOf<'caldav'>;
type Account = AccountAccess<CaldavCredentials>;

export interface CaldavDeps {
  http: ProviderHttp;
  /** Reach servers on private, loopback and link-local addresses (self-hosted); default true. */
  allowPrivateNetworks?: boolean;
  /** Stamps written objects; the system clock by default. */
  clock?: Clock;
  /** Where calendars are parsed and expanded; a pool of its own by default. */
  pool?: ExpansionPool;
}

export interface CaldavConnection {
  /** To store (encrypted): the input plus the discovered calendarHomeUrl, and the server's address for the user if it names one. */
  credentials: CaldavCredentials;
  calendars: ProviderCalendar[];
}

/** Failures below HTTP: a closed port, a port that speaks something else or nothing, a broken answer. */
const unreachable = new Set<ErrorReason>(['network', 'timeout', 'cut_off']);

/**
 * Checks what a person typed when connecting a CalDAV account: discovers the calendar home and
 * lists its calendars. Wrong password → invalid_request naming the field; anything but a CalDAV
 * server → the same invalid_request for every kind of address, so that the form cannot tell a
 * closed port from an open one. The user's address is the server's when it names one (as
 * clients find it), else the one given.
 */
export async function connectCaldav(
  deps: Pick<CaldavDeps, 'http' | 'allowPrivateNetworks'>,
  input: Pick<CaldavCredentials, 'serverUrl' | 'username' | 'password' | 'calendarAddress'>,
): Promise<CaldavConnection> {
  if (input.username.trim() === '') throw invalidField('username', 'Enter the CalDAV username.');
  if (input.password === '') throw invalidField('password', 'Enter the CalDAV password.');
  const start = parseServerUrl(input.serverUrl);
  const serverUrl = start.href;
  const session: DavSession = {
    http: deps.http,
    accountKey: `caldav-connect ${input.username} ${serverUrl}`,
    username: input.username,
    password: input.password,
    mode: 'connect',
    allowPrivateNetworks: deps.allowPrivateNetworks ?? true,
  };
  try {
    const { calendarHomeUrl, addresses } = await discoverCalendarHome(session, serverUrl);
    const [named] = addresses;
    const calendarAddress =
      named === undefined ? input.calendarAddress : { email: named, from: 'server' as const };
    return {
      credentials: {
        kind: 'caldav',
        serverUrl,
        username: input.username,
        password: input.password,
        calendarHomeUrl,
        ...(calendarAddress === undefined ? {} : { calendarAddress }),
      },
      calendars: await listCalendarsAt(session, calendarHomeUrl),
    };
  } catch (error) {
    const reason = reasonOf(error);
    if (reason !== undefined && unreachable.has(reason)) throw noServerAt(session, start);
    throw error;
  }
}

export function createCaldavProvider(deps: CaldavDeps): CalendarProvider<'caldav'> {
  // Per account, fetched once per process: the calendar-user-address-set decides organizer 'self'.
  const principals = new Map<string, Promise<PrincipalScheduling>>();
  // Per calendar: whether the server delivers invitations itself (RFC 6638).
  const calendarsScheduling = new Map<string, Promise<boolean>>();
  const maxRemembered = 10_000;
  const pool = deps.pool ?? createExpansionPool();

  const sessionOf = (account: Account): DavSession => ({
    http: deps.http,
    accountKey: account.accountKey,
    username: account.credentials.username,
    password: account.credentials.password,
    mode: 'account',
    allowPrivateNetworks: deps.allowPrivateNetworks ?? true,
  });

  async function rediscoverHome(account: Account, session: DavSession): Promise<string> {
    const { calendarHomeUrl } = await discoverCalendarHome(session, account.credentials.serverUrl);
    await account.saveCredentials({ ...account.credentials, calendarHomeUrl });
    return calendarHomeUrl;
  }

  /** The answer for `key`, asked once (a failure is asked again next time). */
  function remembered<T>(known: Map<string, Promise<T>>, key: string, ask: () => Promise<T>): Promise<T> {
    let answer = known.get(key);
    if (answer === undefined) {
      answer = ask();
      if (known.size >= maxRemembered) known.delete(known.keys().next().value!);
      known.set(key, answer);
      answer.catch(() => known.delete(key));
    }
    return answer;
  }

  const principalOf = (account: Account, session: DavSession, calendarUrl: URL) =>
    remembered(principals, `${account.accountKey} ${account.credentials.username}`, () =>
      principalScheduling(session, calendarUrl),
    );

  async function selfAddresses(account: Account, session: DavSession, calendarUrl: URL): Promise<string[]> {
    const { username, calendarAddress } = account.credentials;
    const { addresses } = await principalOf(account, session, calendarUrl);
    // The principal's own addresses first: the first is the ORGANIZER of what the user invites to.
    // Then the address kept at connect (the server names none, as Radicale), then an e-mail login.
    const known = [...addresses, calendarAddress?.email, isEmailAddress(username) ? username : undefined];
    return [...new Set(known.filter((address) => address !== undefined))];
  }

  async function scheduling(account: Account, session: DavSession, calendarUrl: URL) {
    const schedules =
      (await principalOf(account, session, calendarUrl)).outboxUrl !== undefined ||
      (await remembered(calendarsScheduling, `${account.accountKey} ${calendarUrl.href}`, () =>
        autoSchedules(session, calendarUrl),
      ));
    return caldavScheduling(schedules, await selfAddresses(account, session, calendarUrl));
  }

  return {
    kind: 'caldav',

    connect: (credentials) => connectCaldav(deps, credentials),

    async listCalendars(account) {
      const session = sessionOf(account);
      const stored = account.credentials.calendarHomeUrl;
      if (stored === undefined) return listCalendarsAt(session, await rediscoverHome(account, session));
      try {
        return await listCalendarsAt(session, stored);
      } catch (error) {
        // The home moved (server migration, renamed principal): find it again once.
        if (!(error instanceof AppError && error.code === 'not_found')) throw error;
        return listCalendarsAt(session, await rediscoverHome(account, session));
      }
    },

    async listEvents(account, calendar, window) {
      const session = sessionOf(account);
      const url = new URL(calendar.providerCalendarId);
      return listEventsIn(session, url, window, await selfAddresses(account, session, url), pool);
    },

    async getEvent(account, calendar, providerEventId, recurrenceId) {
      const session = sessionOf(account);
      const url = new URL(calendar.providerCalendarId);
      const self = await selfAddresses(account, session, url);
      return getEventIn(session, url, providerEventId, recurrenceId, self, pool);
    },

    writer: createCaldavWriter({
      clock: deps.clock ?? systemClock,
      pool,
      sessionOf,
      selfAddresses,
      scheduling,
    }),

    sync: createCaldavSync({ pool, sessionOf, selfAddresses }),

    async listRooms(account) {
      const session = sessionOf(account);
      return caldavRooms(
        session,
        new URL(account.credentials.calendarHomeUrl ?? (await rediscoverHome(account, session))),
      );
    },

    async freeBusy(account, emails, window) {
      const session = sessionOf(account);
      const home = new URL(account.credentials.calendarHomeUrl ?? (await rediscoverHome(account, session)));
      const { outboxUrl } = await principalOf(account, session, home);
      const [organizer] = await selfAddresses(account, session, home);
      // Without an outbox (Radicale), or an address to ask as, the server cannot tell.
      if (outboxUrl === undefined || organizer === undefined) return new Map();
      const now = (deps.clock ?? systemClock).now();
      return busyOnly(await caldavFreeBusy(session, { outboxUrl, organizer, emails, window, now }));
    },
  };
}
