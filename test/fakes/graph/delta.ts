/**
 * Delta queries on a calendar view (`…/calendarView/delta`), as Graph v1.0 documents them in
 * "Get incremental changes to events in a calendar view": a round pages with `@odata.nextLink`
 * (`$skiptoken`) and its last page carries `@odata.deltaLink` (`$deltatoken`); following that
 * link returns what changed in the view since — instances as the calendar view shows them
 * (occurrences, exceptions, single events; never masters), removed ones as `@removed`. Tokens
 * are opaque and encode the window, so links carry nothing else.
 *
 * The fake remembers the view as the round that issued the deltaLink saw it (each item's Graph
 * JSON) and compares it with the view now; a round's pages are fixed when it starts, so changes
 * made while a client pages show up in the next round, as at Graph.
 */
import { randomBytes } from 'node:crypto';
import { timeWindow, viewItems } from './events.ts';
import { graphError, json, type Reply } from './http.ts';
import { type FakeGraphCalendarSeed, renderEvent } from './store.ts';

export interface DeltaRequest {
  url: URL;
  /** The delta endpoint's own URL (links are built on it). */
  endpoint: string;
  calendar: FakeGraphCalendarSeed;
  owner: { name?: string; address: string };
  zone: { zone: string; name: string };
  prefer: string | undefined;
  /** Most items a page may hold whatever the client prefers. */
  maxPageSize: number;
}

interface Tracked {
  calendarId: string;
  from: Temporal.Instant;
  to: Temporal.Instant;
  /** Set once the token was invalidated: following it answers 410. */
  expired: boolean;
}

/** What a deltaLink points at: the view as its round saw it (id → Graph JSON in UTC). */
interface DeltaState extends Tracked {
  seen: Map<string, string>;
}

/** The pages of a round that has started, fixed when it started. */
interface Round extends Tracked {
  entries: Record<string, unknown>[];
  offset: number;
  seen: Map<string, string>;
}

const utc = { zone: 'UTC', name: 'UTC' };
const opaque = () => randomBytes(24).toString('base64url');

export class DeltaTracker {
  readonly #states = new Map<string, DeltaState>();
  readonly #rounds = new Map<string, Round>();

  answer(request: DeltaRequest): Reply {
    const { url } = request;
    const deltaToken = url.searchParams.get('$deltatoken');
    const skipToken = url.searchParams.get('$skiptoken');
    if (skipToken !== null) {
      const round = this.#rounds.get(skipToken);
      if (round === undefined || round.expired) return syncStateNotFound(request, round);
      return this.#page(request, round);
    }
    if (deltaToken !== null) {
      const state = this.#states.get(deltaToken);
      if (state === undefined || state.expired || state.calendarId !== request.calendar.id)
        return syncStateNotFound(request, state);
      return this.#start(request, state, state);
    }
    const window = timeWindow(url);
    if ('status' in window) return window;
    return this.#start(request, { calendarId: request.calendar.id, ...window, expired: false }, undefined);
  }

  /** Invalidates every delta and skip token (of one calendar, if given), as when Graph's cache drops them. */
  invalidate(calendarId?: string): void {
    for (const tracked of [...this.#states.values(), ...this.#rounds.values()])
      if (calendarId === undefined || tracked.calendarId === calendarId) tracked.expired = true;
  }

  /** A new round: everything in the view (first round), or what differs from `since`. */
  #start(request: DeltaRequest, tracked: Tracked, since: DeltaState | undefined): Reply {
    const items = viewItems(request.calendar, tracked.from, tracked.to);
    const seen = new Map(
      items.map((item) => [item.id, JSON.stringify(renderEvent(item, request.owner, utc))]),
    );
    const entries: Record<string, unknown>[] = items
      .filter((item) => since?.seen.get(item.id) !== seen.get(item.id))
      .map((item) => renderEvent(item, request.owner, request.zone));
    for (const id of since?.seen.keys() ?? [])
      if (!seen.has(id))
        entries.push({ '@odata.type': '#microsoft.graph.event', id, '@removed': { reason: 'deleted' } });
    const { calendarId, from, to } = tracked;
    return this.#page(request, { calendarId, from, to, expired: false, entries, offset: 0, seen });
  }

  #page(request: DeltaRequest, round: Round): Reply {
    const asked = Number(/odata\.maxpagesize=(\d+)/.exec(request.prefer ?? '')?.[1]);
    const size = Math.min(asked > 0 ? asked : request.maxPageSize, request.maxPageSize);
    const value = round.entries.slice(round.offset, round.offset + size);
    const body: Record<string, unknown> = {
      '@odata.context': `${request.endpoint.replace(/\/me\/.*$/, '')}/$metadata#Collection(event)`,
    };
    // Graph writes `$skiptoken`/`$deltatoken` unencoded; the tokens are base64url.
    const link = (name: string, token: string) => `${request.endpoint}?${name}=${token}`;
    if (round.offset + size < round.entries.length) {
      const token = opaque();
      this.#rounds.set(token, { ...round, offset: round.offset + size });
      body['@odata.nextLink'] = link('$skiptoken', token);
    } else {
      const token = opaque();
      const { calendarId, from, to, seen } = round;
      this.#states.set(token, { calendarId, from, to, seen, expired: false });
      body['@odata.deltaLink'] = link('$deltatoken', token);
    }
    body.value = value;
    const applied = [`outlook.timezone="${request.zone.name}"`];
    if (asked > 0) applied.push(`odata.maxpagesize=${size}`);
    return json(body, { 'preference-applied': applied.join(', ') });
  }
}

/**
 * An expired or unknown state token. "Use delta query to track changes in Microsoft Graph data"
 * (learn.microsoft.com/graph/delta-query-overview, "Synchronization reset" and "Token duration")
 * documents 410 Gone for Outlook entities, events included, whose token left the cache, with a
 * `Location` header to start a full synchronization again; the error code for a dropped sync
 * state is `syncStateNotFound` (`resyncRequired` is the directory objects' code).
 */
function syncStateNotFound(request: DeltaRequest, tracked: Tracked | undefined): Reply {
  const headers: Record<string, string> = {};
  if (tracked !== undefined) {
    const fresh = new URL(request.endpoint);
    fresh.searchParams.set('startDateTime', tracked.from.toString());
    fresh.searchParams.set('endDateTime', tracked.to.toString());
    headers.location = fresh.toString();
  }
  return graphError(
    410,
    'syncStateNotFound',
    'The sync state generation is not found. The delta token is expired and data must be synchronized again.',
    headers,
  );
}
