/**
 * Incremental sync of one calendar with Graph's delta query on its calendar view ("Get
 * incremental changes to events in a calendar view"): a full round GETs `calendarView/delta`
 * over the horizon (a day wider each side, as listEvents), follows `@odata.nextLink` page by
 * page and ends with an `@odata.deltaLink`, the state saved; the next sync GETs that link and
 * receives only what changed since. Entries are what the view shows (single events,
 * occurrences, exceptions; never masters), keyed by their own id; `@removed` ones left it.
 */
import { calendarLimits } from '../../domain/budget.ts';
import type { ProviderCalendar, SkippedItem } from '../../domain/providerFacts.ts';
import type { TimeWindow } from '../../domain/window.ts';
import { AppError, isAppError } from '../../errors.ts';
import type { CalendarSync, SyncBatch, SyncedItem } from '../port.ts';
import type { GraphClient } from './client.ts';
import { providerName } from './config.ts';
import { calendarPath, viewWindow } from './eventLookup.ts';
import { mapNear } from './mapping.ts';
import type { MicrosoftAccount } from './session.ts';
import type { GraphDeltaEntry } from './wire.ts';

/** Entries asked for per page, and the most one batch holds whatever a page brings. */
const batchSize = 200;
/** Entries one sync reads at most: as many items as one calendar's read may hold. */
const maxEntries = calendarLimits.items;
/** Pages one sync follows at most, so pages with next to nothing cannot go on forever. */
const maxPages = 2_000;

interface Round {
  client: GraphClient;
  account: MicrosoftAccount;
  calendar: ProviderCalendar;
  horizon: TimeWindow;
  /** Where the round starts: the view's delta (a full sync) or a saved deltaLink. */
  url: string;
  full: boolean;
}

export function createMicrosoftSync(client: GraphClient): CalendarSync<'microsoft'> {
  return {
    async *syncCalendar(account, calendar, request) {
      const round = { client, account, calendar, horizon: request.horizon };
      // A saved link that no longer points at the configured Graph is never fetched: start over.
      if (request.state !== undefined && isDeltaLink(client, request.state)) {
        try {
          yield* batches({ ...round, url: request.state, full: false });
          return;
        } catch (error) {
          if (!stateRejected(error)) throw error;
        }
      }
      // Graph's 410 names where to start over; the address is ours to choose all the same.
      const view = client.url(`${calendarPath(calendar)}/calendarView/delta`, viewWindow(request.horizon));
      yield* batches({ ...round, url: view, full: true });
    },
  };
}

/** A round's batches, a page at a time; the deltaLink goes with the last one. */
async function* batches(round: Round): AsyncGenerator<SyncBatch> {
  let url = round.url;
  let entries = 0;
  for (let pages = 1; ; pages++) {
    const page = await readPage(round, url);
    entries += page.value.length;
    if (entries > maxEntries || pages > maxPages) throw tooMany();
    const next = page['@odata.nextLink'];
    const deltaLink = page['@odata.deltaLink'];
    if (next === undefined && (deltaLink === undefined || !isDeltaLink(round.client, deltaLink)))
      throw new AppError('provider_unavailable', `${providerName} ended a change listing without its link.`, {
        details: { reason: 'unreadable' },
      });
    const last = next === undefined;
    for (let offset = 0; offset < page.value.length || (last && offset === 0); offset += batchSize) {
      const batch = toBatch(page.value.slice(offset, offset + batchSize), round);
      yield last && offset + batchSize >= page.value.length ? { ...batch, nextState: deltaLink } : batch;
    }
    if (last) return;
    url = next;
  }
}

async function readPage(round: Round, url: string) {
  try {
    return await round.client.page<GraphDeltaEntry>(round.account, url, batchSize);
  } catch (error) {
    // Only a saved state may be given up (to start over); a full round that loses its place fails.
    if (!round.full || !stateRejected(error)) throw error;
    throw new AppError('provider_unavailable', `${providerName} lost its place in the listing.`, {
      cause: error,
      details: { ...(error as AppError).details, reason: 'sync_state_lost' },
    });
  }
}

function toBatch(entries: GraphDeltaEntry[], round: Round): SyncBatch {
  const upserts: SyncedItem[] = [];
  const removals: string[] = [];
  const skipped: SkippedItem[] = [];
  for (const entry of entries) {
    if (typeof entry?.id !== 'string' || entry.id === '') {
      skipped.push({ reason: 'event without an id' });
      continue;
    }
    if (entry['@removed'] !== undefined) {
      removals.push(entry.id);
      continue;
    }
    // The same mapping as listEvents, so the copy reads as Graph does; an unreadable event
    // is kept without occurrences (a version it had is not shown any more).
    const mapped = mapNear(entry, round.calendar, round.horizon);
    skipped.push(...mapped.skipped);
    // Graph sends a changeKey with every event; without one the item is kept, its version unknown.
    const version = typeof entry.changeKey === 'string' ? entry.changeKey : '';
    upserts.push({ key: entry.id, version, occurrences: mapped.occurrences });
  }
  return { full: round.full, upserts, removals, skipped };
}

/** A deltaLink of a calendar view below the configured API root. */
function isDeltaLink(client: GraphClient, link: string): boolean {
  return client.isApiLink(link) && /\/calendarView\/delta$/i.test(new URL(link).pathname);
}

/**
 * Graph gave up the state: 410 Gone (`syncStateNotFound`, the token left its cache) or a
 * resync demanded (`resyncRequired`); the delta query must start over.
 */
function stateRejected(error: unknown): boolean {
  if (!isAppError(error)) return false;
  const { status, graphCode } = error.details ?? {};
  return status === 410 || graphCode === 'syncStateNotFound' || graphCode === 'resyncRequired';
}

const tooMany = () =>
  new AppError('provider_unavailable', `${providerName} listed more changes than one sync reads.`, {
    details: { reason: 'too_large', maxEntries, maxPages },
  });
