/**
 * The copy of an ICS subscription. A feed has no change log, so each sync asks for the feed
 * conditionally with the validators of the last one (304: nothing changed), else reads it whole,
 * expands it over the horizon exactly as listEvents does, and compares it item by item with the
 * copy. An item is a UID with occurrences in the horizon (the others need no copy); its version
 * is a hash of those occurrences, so any change to what a read would show changes it.
 */
import { createHash } from 'node:crypto';
import type { ProviderOccurrence, SkippedItem } from '../../domain/providerFacts.ts';
import type { TimeWindow } from '../../domain/window.ts';
import { canonicalJson } from '../../lib/canonicalJson.ts';
import type { ExpansionPool } from '../expansionPool.ts';
import { nearWindow } from '../nearWindow.ts';
import type { CalendarSync, SyncBatch, SyncedItem } from '../port.ts';
import { type FeedReader, type FeedValidators, normalizeFeedUrl } from './client.ts';
import { feedEvents } from './feedEvents.ts';

/** Upserts, removals and skipped entries in one batch. */
const batchSize = 500;

/**
 * The position saved with a sync: the feed's validators and the horizon the copy was made for.
 * A 304 only says the feed is unchanged; a moved horizon needs the feed itself again.
 */
interface IcsState {
  validators: FeedValidators;
  horizon: { start: string; end: string };
}

const optionalText = (value: unknown) => value === undefined || typeof value === 'string';

/** The saved position, or undefined when there is none or it is not one of ours (then: a full sync). */
function readState(state: string | undefined): IcsState | undefined {
  if (state === undefined) return undefined;
  let parsed: Partial<IcsState> | null;
  try {
    parsed = JSON.parse(state);
  } catch {
    return undefined;
  }
  const { validators, horizon } = parsed ?? {};
  if (typeof validators !== 'object' || validators === null) return undefined;
  if (!optionalText(validators.etag) || !optionalText(validators.lastModified)) return undefined;
  if (typeof horizon?.start !== 'string' || typeof horizon.end !== 'string') return undefined;
  return { validators, horizon };
}

/** The feed's items as the copy keeps them: occurrences near the horizon, grouped by UID. */
function itemsOf(occurrences: ProviderOccurrence[], horizon: TimeWindow): SyncedItem[] {
  const byUid = new Map<string, ProviderOccurrence[]>();
  for (const occurrence of occurrences) {
    if (!nearWindow(occurrence, horizon)) continue;
    const group = byUid.get(occurrence.providerEventId);
    if (group === undefined) byUid.set(occurrence.providerEventId, [occurrence]);
    else group.push(occurrence);
  }
  return [...byUid].map(([key, group]) => ({
    key,
    version: createHash('sha256').update(canonicalJson(group)).digest('base64url'),
    occurrences: group,
  }));
}

/** The changes cut into batches of at most `batchSize` entries; only the last carries the state. */
function* batches(
  full: boolean,
  upserts: SyncedItem[],
  removals: string[],
  skipped: SkippedItem[],
  nextState: string,
): Generator<SyncBatch> {
  // The three lists read as one sequence: upserts, then removals, then skipped entries.
  const total = upserts.length + removals.length + skipped.length;
  const part = <T>(list: T[], at: number, from: number, to: number) =>
    list.slice(Math.max(0, from - at), Math.max(0, to - at));
  let from = 0;
  do {
    const to = Math.min(from + batchSize, total);
    const batch: SyncBatch = {
      full,
      upserts: part(upserts, 0, from, to),
      removals: part(removals, upserts.length, from, to),
      skipped: part(skipped, upserts.length + removals.length, from, to),
    };
    from = to;
    yield from === total ? { ...batch, nextState } : batch;
  } while (from < total);
}

export function createIcsSync(feeds: FeedReader, pool: ExpansionPool): CalendarSync<'ics'> {
  return {
    async *syncCalendar(account, _calendar, request) {
      const previous = readState(request.state);
      const full = previous === undefined;
      const horizon = { start: request.horizon.start.toString(), end: request.horizon.end.toString() };
      const sameHorizon = previous?.horizon.start === horizon.start && previous.horizon.end === horizon.end;
      const url = normalizeFeedUrl(account.credentials.url);
      const feed = await feeds.readChanged(url, account.accountKey, sameHorizon ? previous.validators : {});
      if (feed === undefined) {
        yield { full, upserts: [], removals: [], skipped: [], nextState: request.state };
        return;
      }
      const events = await feedEvents(pool, account.accountKey, feed.body, request.horizon);
      const items = itemsOf(events.occurrences, request.horizon);
      // A full sync replaces the copy: every item is upserted and the caller drops the rest.
      const known = full ? new Map<string, string>() : await request.knownVersions();
      const present = new Set(items.map((item) => item.key));
      const upserts = items.filter((item) => known.get(item.key) !== item.version);
      // Events the budget left unread are not known to be gone; nor is the read trusted until
      // the feed changes: without validators, the next sync reads it again.
      const removals = events.complete ? [...known.keys()].filter((key) => !present.has(key)) : [];
      const validators = events.complete ? feed.validators : {};
      yield* batches(full, upserts, removals, events.skipped, JSON.stringify({ validators, horizon }));
    },
  };
}
