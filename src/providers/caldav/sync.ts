/**
 * Incremental sync of one CalDAV calendar. Servers with RFC 6578 sync-collection are asked for
 * the members changed since the saved sync-token (state `sync:<token>`); others are compared by
 * their CalendarServer ctag, then member by member by ETag (state `ctag:<ctag>`). Changed
 * objects are fetched with calendar-multiget in chunks and expanded like listEvents' objects,
 * one batch per chunk; the next chunk is fetched while the caller applies one, never more ahead.
 */
import { syncBoundExceeded, syncLimits } from '../../domain/budget.ts';
import type { ProviderCalendar, SkippedItem } from '../../domain/providerFacts.ts';
import type { TimeWindow } from '../../domain/window.ts';
import { isAppError } from '../../errors.ts';
import type { ExpansionPool } from '../expansionPool.ts';
import type {
  AccountAccess,
  CalendarSync,
  CredentialsOf,
  SyncBatch,
  SyncedItem,
  SyncRequest,
} from '../port.ts';
import { type DavAnswer, type DavSession, davRequest, fail, readReportInPool } from './client.ts';
import {
  collectionState,
  listMembers,
  type Member,
  type MemberChanges,
  maxMembers,
  syncRound,
  tooManyMembers,
} from './members.ts';
import { multigetBody } from './wire.ts';

type Account = AccountAccess<CredentialsOf<'caldav'>>;

export interface CaldavSyncDeps {
  pool: ExpansionPool;
  sessionOf(account: Account): DavSession;
  selfAddresses(account: Account, session: DavSession, calendarUrl: URL): Promise<string[]>;
}

/**
 * Objects per calendar-multiget, and removals per batch: a batch stays some hundred items, and a
 * first sync of a calendar of up to this many objects writes one batch, nothing staged.
 */
export const chunkSize = 500;

/** A chunk whose answer is past the size limit is asked for in halves down to this many objects. */
const smallestSplit = 100;

type Fetched = { upserts: SyncedItem[]; removals: string[]; skipped: SkippedItem[] };

/** What one sync needs to fetch and expand objects. */
interface Run {
  session: DavSession;
  collection: URL;
  horizon: TimeWindow;
  self: string[];
  pool: ExpansionPool;
}

type Position = { kind: 'sync'; token: string } | { kind: 'ctag'; ctag: string };

/** The saved state as this adapter wrote it; anything else (corrupted, another adapter's) → a full sync. */
function positionOf(state: string | undefined): Position | undefined {
  if (state?.startsWith('sync:') && state.length > 'sync:'.length)
    return { kind: 'sync', token: state.slice(5) };
  if (state?.startsWith('ctag:')) return { kind: 'ctag', ctag: state.slice(5) };
  return undefined;
}

/**
 * The members' objects: multiget, then expansion in the pool (one budget per chunk). An object
 * the budget did not reach is only reported skipped, never upserted with occurrences it may
 * have: live reads leave it out too.
 */
async function fetchChunk(run: Run, members: Member[]): Promise<Fetched> {
  const what = 'the calendar';
  let answer: DavAnswer;
  try {
    answer = await davRequest(run.session, {
      method: 'REPORT',
      url: run.collection,
      body: multigetBody(members.map((member) => member.url.pathname)),
      what,
    });
  } catch (error) {
    // Large objects: halves, depth first, so a server whose every answer is too large costs a
    // few requests before the sync fails, not one per object.
    if (!(isAppError(error) && error.code === 'payload_too_large' && members.length > smallestSplit))
      throw error;
    const half = Math.ceil(members.length / 2);
    const first = await fetchChunk(run, members.slice(0, half));
    const second = await fetchChunk(run, members.slice(half));
    return {
      upserts: [...first.upserts, ...second.upserts],
      removals: [...first.removals, ...second.removals],
      skipped: [...first.skipped, ...second.skipped],
    };
  }
  const read = await readReportInPool(run.pool, run.session, answer, what, {
    calendarUrl: run.collection.href,
    window: run.horizon,
    selfAddresses: run.self,
    asked: members.map(({ key, version }) => ({ key, ...(version !== undefined && { version }) })),
  });
  return { upserts: read.objects, removals: read.removals, skipped: read.skipped };
}

/**
 * Batches for one listing of changes: removals and fetched objects a chunk at a time, the
 * listing's skipped items in the first, `nextState` on the last. Nothing to say and no state
 * to give → no batch.
 */
async function* batchesOf(
  run: Run,
  changes: MemberChanges,
  full: boolean,
  nextState: string | undefined,
): AsyncGenerator<SyncBatch> {
  const { changed, removed } = changes;
  const count = Math.max(1, Math.ceil(changed.length / chunkSize), Math.ceil(removed.length / chunkSize));
  const fetchAt = (index: number) => {
    const members = changed.slice(index * chunkSize, (index + 1) * chunkSize);
    const fetching =
      members.length > 0
        ? fetchChunk(run, members)
        : Promise.resolve({ upserts: [], removals: [], skipped: [] });
    // A sync that stops before it takes this chunk leaves its failure unread, never unhandled.
    fetching.catch(() => {});
    return fetching;
  };
  // Two chunks at most in memory: the first two are fetched at once, then each next one while the
  // caller writes the one before it.
  const ahead = [fetchAt(0), ...(count > 1 ? [fetchAt(1)] : [])];
  for (let index = 0; index < count; index++) {
    const fetched = await ahead.shift()!;
    if (index > 0 && index + 1 < count) ahead.push(fetchAt(index + 1));
    const batch: SyncBatch = {
      full,
      upserts: fetched.upserts,
      removals: [...removed.slice(index * chunkSize, (index + 1) * chunkSize), ...fetched.removals],
      skipped: index === 0 ? [...changes.skipped, ...fetched.skipped] : fetched.skipped,
    };
    const last = index === count - 1;
    if (last && nextState !== undefined) batch.nextState = nextState;
    const empty = batch.upserts.length + batch.removals.length + batch.skipped.length === 0;
    if (!empty || batch.nextState !== undefined) yield batch;
  }
}

/**
 * RFC 6578 rounds from `token` until the server reports no more (507 on the collection: the
 * answer was truncated, continue from its token), at most as many as one sync may make (a
 * server that always has more, even with nothing in it, fails the sync). A rejected token starts
 * over as a full sync; 'unsupported' when the server refuses the report before anything was yielded.
 */
async function* bySyncCollection(
  run: Run,
  token: string,
  full: boolean,
): AsyncGenerator<SyncBatch, 'unsupported' | 'done'> {
  let listed = 0;
  let first = true;
  for (let rounds = 1; ; rounds++) {
    if (rounds > syncLimits.rounds) throw syncBoundExceeded('rounds', syncLimits.rounds);
    const round = await syncRound(run.session, run.collection, token, run.pool);
    if (round.kind !== 'changes') {
      if (!first)
        throw fail(run.session, 'serverUrl', 'The CalDAV server refused the sync-token it had just sent.');
      if (round.kind === 'unsupported') return 'unsupported';
      if (token === '')
        throw fail(run.session, 'serverUrl', 'The CalDAV server refused the initial sync-token.');
      token = '';
      full = true;
      continue;
    }
    first = false;
    listed += round.changed.length + round.removed.length;
    if (listed > maxMembers) throw tooManyMembers();
    if (round.truncated && round.token === token) {
      throw fail(run.session, 'serverUrl', 'The CalDAV server truncated its changes without moving on.');
    }
    yield* batchesOf(run, round, full, round.truncated ? undefined : `sync:${round.token}`);
    if (!round.truncated) return 'done';
    token = round.token;
  }
}

/**
 * Without sync-collection: an unchanged ctag is an unchanged calendar; otherwise every member's
 * ETag is compared with the copy's versions (a full sync takes every member).
 */
async function* byVersions(
  run: Run,
  request: SyncRequest,
  full: boolean,
  ctag: string | undefined,
): AsyncGenerator<SyncBatch> {
  const saved = positionOf(request.state);
  const nextState = `ctag:${ctag ?? ''}`;
  if (!full && ctag !== undefined && saved?.kind === 'ctag' && saved.ctag === ctag) {
    yield { full, upserts: [], removals: [], skipped: [], nextState };
    return;
  }
  const listing = await listMembers(run.session, run.collection);
  if (full) {
    yield* batchesOf(run, listing, full, nextState);
    return;
  }
  const known = await request.knownVersions();
  const present = new Set(listing.changed.map((member) => member.key));
  const changes: MemberChanges = {
    changed: listing.changed.filter(
      (member) => member.version === undefined || known.get(member.key) !== member.version,
    ),
    removed: [...known.keys()].filter((key) => !present.has(key)),
    skipped: listing.skipped,
  };
  yield* batchesOf(run, changes, full, nextState);
}

export function createCaldavSync(deps: CaldavSyncDeps): CalendarSync<'caldav'> {
  return {
    async *syncCalendar(account: Account, calendar: ProviderCalendar, request: SyncRequest) {
      const session = deps.sessionOf(account);
      const collection = new URL(calendar.providerCalendarId);
      const self = await deps.selfAddresses(account, session, collection);
      const run: Run = { session, collection, horizon: request.horizon, self, pool: deps.pool };
      const saved = positionOf(request.state);
      // A copy from any earlier complete sync can be compared by versions; without one, all is new.
      const full = saved === undefined;
      if (saved?.kind === 'ctag') {
        yield* byVersions(run, request, full, (await collectionState(session, collection)).ctag);
        return;
      }
      const state = saved === undefined ? await collectionState(session, collection) : undefined;
      if (state === undefined || state.syncCollection) {
        const outcome = yield* bySyncCollection(run, saved?.token ?? '', full);
        if (outcome === 'done') return;
      }
      yield* byVersions(run, request, full, (state ?? (await collectionState(session, collection))).ctag);
    },
  };
}
