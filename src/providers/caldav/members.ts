/**
 * The members of a calendar collection as the server lists them: a sync-collection round
 * (RFC 6578) or a PROPFIND of every member's ETag, and the collection's own version (getctag)
 * for servers without sync-collection. A member must lie inside the collection: an href
 * anywhere else is never requested with the account's password, only reported as skipped.
 */
import { calendarLimits } from '../../domain/budget.ts';
import type { SkippedItem } from '../../domain/providerFacts.ts';
import { AppError } from '../../errors.ts';
import type { ExpansionPool } from '../expansionPool.ts';
import { type DavSession, davRequest, fail, propfind, readSyncCollectionInPool } from './client.ts';
import { memberKey, memberUrl } from './hrefs.ts';
import { etagOf } from './objects.ts';
import {
  type DavResponse,
  errorConditions,
  ns,
  propKey,
  syncCollectionBody,
  type XmlElement,
} from './wire.ts';

/** An object of the collection: its key (memberKey) and ETag. */
export interface Member {
  key: string;
  url: URL;
  version?: string;
}

export interface MemberChanges {
  changed: Member[];
  /** Keys of members gone. */
  removed: string[];
  skipped: SkippedItem[];
}

/** Members one listing may name: as many as one calendar's read may hold items. */
export const maxMembers = calendarLimits.items;

export const tooManyMembers = () =>
  new AppError(
    'payload_too_large',
    `The calendar lists more than the ${maxMembers} objects this service reads.`,
    {
      details: { reason: 'too_large', maxItems: maxMembers },
    },
  );

const outside = (href: string): SkippedItem => ({
  providerEventId: href,
  reason: 'the server named it outside the calendar',
});

/** Members with 2xx ETags are changed, 404s are gone; the collection itself is left out. */
function sortMembers(
  collection: URL,
  base: URL,
  responses: DavResponse[],
): MemberChanges & { truncated: boolean } {
  if (responses.length > maxMembers) throw tooManyMembers();
  const changes: MemberChanges & { truncated: boolean } = {
    changed: [],
    removed: [],
    skipped: [],
    truncated: false,
  };
  for (const response of responses) {
    const url = memberUrl(collection, base, response.href);
    if (url === 'self') {
      // RFC 6578 §3.6: 507 on the collection itself means more changes follow.
      if (response.status === 507) changes.truncated = true;
      continue;
    }
    if (url === undefined) changes.skipped.push(outside(response.href));
    else if (response.status === 404) changes.removed.push(memberKey(url));
    else if (response.status === undefined || (response.status >= 200 && response.status < 300)) {
      const version = etagOf(response);
      changes.changed.push({ key: memberKey(url), url, ...(version !== undefined && { version }) });
    }
  }
  return changes;
}

export type SyncRound =
  | ({ kind: 'changes'; token: string; truncated: boolean } & MemberChanges)
  /** RFC 6578 §3.2: the token is unknown or expired (DAV:valid-sync-token). */
  | { kind: 'token_rejected' }
  /** The server does not offer sync-collection on this collection. */
  | { kind: 'unsupported' };

const validSyncToken = propKey([ns.dav, 'valid-sync-token']);

/** One sync-collection REPORT: the members changed since `token` (all of them when empty). */
export async function syncRound(
  session: DavSession,
  collection: URL,
  token: string,
  pool: ExpansionPool,
): Promise<SyncRound> {
  const what = 'the calendar';
  const answer = await davRequest(session, {
    method: 'REPORT',
    url: collection,
    depth: '0',
    body: syncCollectionBody(token),
    what,
  });
  if (
    (answer.status === 403 || answer.status === 409) &&
    errorConditions(answer.body).includes(validSyncToken)
  ) {
    return { kind: 'token_rejected' };
  }
  if ([400, 403, 501].includes(answer.status)) return { kind: 'unsupported' };
  const { responses, token: next } = await readSyncCollectionInPool(pool, session, answer, what);
  if (next === undefined)
    throw fail(session, 'serverUrl', 'The CalDAV server sent no sync-token.', answer.status);
  return { kind: 'changes', token: next, ...sortMembers(collection, answer.url, responses) };
}

const p = {
  getetag: [ns.dav, 'getetag'],
  getctag: [ns.calendarserver, 'getctag'],
  reports: [ns.dav, 'supported-report-set'],
} as const;

/** Whether an element holds `{DAV:}sync-collection` (supported-report-set → supported-report → report). */
const namesSyncCollection = (element: XmlElement): boolean =>
  element.children.some(
    (inner) => (inner.ns === ns.dav && inner.name === 'sync-collection') || namesSyncCollection(inner),
  );

/** The collection's CalendarServer ctag, and whether it lists sync-collection among its reports. */
export async function collectionState(
  session: DavSession,
  collection: URL,
): Promise<{ ctag?: string; syncCollection: boolean }> {
  const answer = await propfind(session, collection, '0', [p.getctag, p.reports], 'the calendar');
  const own = answer.responses.find(
    (response) => memberUrl(collection, answer.url, response.href) === 'self',
  );
  const ctag = own?.props.get(propKey(p.getctag))?.text.trim() || undefined;
  const reports = own?.props.get(propKey(p.reports));
  return {
    ...(ctag !== undefined && { ctag }),
    syncCollection: reports !== undefined && namesSyncCollection(reports),
  };
}

/** Every member with its ETag (PROPFIND Depth 1). */
export async function listMembers(session: DavSession, collection: URL): Promise<MemberChanges> {
  const answer = await propfind(session, collection, '1', [p.getetag], 'the calendar');
  const { changed, skipped } = sortMembers(collection, answer.url, answer.responses);
  return { changed, removed: [], skipped };
}
