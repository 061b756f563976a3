/**
 * Finding the calendar home from what a person types (RFC 6764 §6, RFC 4791 §6.2.1): the address
 * itself when it has a path, then `/.well-known/caldav`, then the server root; the first that names
 * a current-user-principal wins, and that principal's calendar-home-set is the answer.
 */
import { AppError, invalidField } from '../../errors.ts';
import { isEmailAddress } from '../../lib/email.ts';
import { type DavSession, fail, hrefUrl, propfind } from './client.ts';
import { children, hrefIn, ns, type PropName, propKey, type XmlElement } from './wire.ts';

const currentUserPrincipal: PropName = [ns.dav, 'current-user-principal'];
const calendarHomeSet: PropName = [ns.caldav, 'calendar-home-set'];
const calendarUserAddressSet: PropName = [ns.caldav, 'calendar-user-address-set'];
const scheduleOutbox: PropName = [ns.caldav, 'schedule-outbox-URL'];
const principalCollectionSet: PropName = [ns.dav, 'principal-collection-set'];

export function parseServerUrl(input: string): URL {
  const url = URL.parse(input.trim());
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw invalidField('serverUrl', 'Enter the CalDAV server address as an http(s):// URL.');
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidField(
      'serverUrl',
      'Enter the username and password in their own fields, not in the address.',
    );
  }
  url.hash = '';
  return url;
}

/** The principal URL named at `url`, or undefined when that place does not speak CalDAV. */
async function principalAt(session: DavSession, url: URL): Promise<URL | undefined> {
  let answer: Awaited<ReturnType<typeof propfind>>;
  try {
    answer = await propfind(session, url, '0', [currentUserPrincipal], 'the principal');
  } catch (error) {
    // Only "no CalDAV here" moves on to the next candidate; a wrong password or an unreachable server ends discovery.
    if (notCaldavHere(error)) return undefined;
    throw error;
  }
  const href = hrefIn(answer.responses[0]?.props.get(propKey(currentUserPrincipal)));
  return href === undefined ? undefined : hrefUrl(session, href, answer.url, 'the principal');
}

const notCaldavHere = (error: unknown): boolean =>
  error instanceof AppError &&
  error.details?.reason !== 'private_address' &&
  (error.details?.field === 'serverUrl' ||
    error.details?.reason === 'unexpected_answer' ||
    error.code === 'not_found');

/**
 * The e-mail addresses among a calendar-user-address-set's hrefs (`mailto:` URIs); others, such
 * as the principal's own URL that Radicale gives, name no one a guest could be.
 */
export function addressesOf(set: XmlElement | undefined): string[] {
  return children(set, ns.dav, 'href')
    .map((href) => href.text.trim())
    .filter((href) => /^mailto:/i.test(href))
    .map((href) => {
      const address = href.slice('mailto:'.length);
      try {
        return decodeURIComponent(address);
      } catch {
        return address;
      }
    })
    .filter(isEmailAddress);
}

/** What discovery finds of the account: its calendar home and its e-mail addresses in calendars. */
export interface DiscoveredAccount {
  calendarHomeUrl: string;
  /** The `mailto:` addresses of the principal's calendar-user-address-set (RFC 6638 §2.4.1), if any. */
  addresses: string[];
}

/** The calendar home URL for the account, found from the address the person typed, and the user's addresses. */
export async function discoverCalendarHome(
  session: DavSession,
  serverUrl: string,
): Promise<DiscoveredAccount> {
  const start = parseServerUrl(serverUrl);
  const candidates = [new URL('/.well-known/caldav', start), new URL('/', start)];
  if (start.pathname !== '/') candidates.unshift(start);
  for (const candidate of candidates) {
    const principal = await principalAt(session, candidate);
    if (principal === undefined) continue;
    const answer = await propfind(
      session,
      principal,
      '0',
      [calendarHomeSet, calendarUserAddressSet],
      'the principal',
    );
    const props = answer.responses[0]?.props;
    const home = hrefIn(props?.get(propKey(calendarHomeSet)));
    if (home === undefined) {
      throw fail(
        session,
        'serverUrl',
        `The CalDAV server at ${start.host} names no calendar home for this account.`,
      );
    }
    return {
      calendarHomeUrl: hrefUrl(session, home, answer.url, 'the calendar home').href,
      addresses: addressesOf(props?.get(propKey(calendarUserAddressSet))),
    };
  }
  throw noServerAt(session, start);
}

/** The one answer for every address where no CalDAV server is found, whatever is (or is not) there. */
export const noServerAt = (session: DavSession, start: URL): AppError =>
  fail(session, 'serverUrl', `No CalDAV server answered at ${start.host}; check the address.`);

/** What the principal says of scheduling: the user's addresses, and its outbox if it has one (RFC 6638 §2.1). */
export interface PrincipalScheduling {
  addresses: string[];
  outboxUrl?: URL;
}

/** The calendar-user-address-set and schedule-outbox-URL of the principal that `url` (any resource of the account) names. */
export async function principalScheduling(session: DavSession, url: URL): Promise<PrincipalScheduling> {
  const principal = await principalAt(session, url);
  if (principal === undefined) return { addresses: [] };
  const answer = await propfind(
    session,
    principal,
    '0',
    [calendarUserAddressSet, scheduleOutbox],
    'the principal',
  );
  const props = answer.responses[0]?.props;
  const outbox = hrefIn(props?.get(propKey(scheduleOutbox)));
  return {
    addresses: addressesOf(props?.get(propKey(calendarUserAddressSet))),
    ...(outbox === undefined
      ? {}
      : { outboxUrl: hrefUrl(session, outbox, answer.url, 'the schedule outbox') }),
  };
}

/** The collections of principals that the principal of `url` names (RFC 3744 §5.8), where principals are searched. */
export async function principalCollections(session: DavSession, url: URL): Promise<URL[]> {
  const principal = await principalAt(session, url);
  if (principal === undefined) return [];
  const answer = await propfind(session, principal, '0', [principalCollectionSet], 'the principal');
  return children(answer.responses[0]?.props.get(propKey(principalCollectionSet)), ns.dav, 'href').map(
    (href) => hrefUrl(session, href.text.trim(), answer.url, 'the principals'),
  );
}
