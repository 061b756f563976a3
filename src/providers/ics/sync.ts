/**
 * The copy of an ICS subscription. A feed has no change log, so each sync asks for the feed
 * conditionally with the validators of the last one (304: nothing changed), else reads it whole,
 * expands it over the horizon exactly as listEvents does, and compares it item by item with the
 * copy. An item is a UID with occurrences in the horizon (the others need no copy); its version
 * is a hash of those occurrences, so any change to what a read would show changes it.
 */
import type { ExpansionPool } from '../expansionPool.ts';
import { diffBatches, itemsOf } from '../listingSync.ts';
import type { CalendarSync } from '../port.ts';
import { type FeedReader, type FeedValidators, normalizeFeedUrl } from './client.ts';
import { feedEvents } from './feedEvents.ts';

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
      // A full sync replaces the copy: every item is upserted and the caller drops the rest.
      const known = full ? new Map<string, string>() : await request.knownVersions();
      // Events the budget left unread are not known to be gone; nor is the read trusted until
      // the feed changes: without validators, the next sync reads it again.
      const validators = events.complete ? feed.validators : {};
      yield* diffBatches(itemsOf(events.occurrences, request.horizon), events.skipped, known, {
        full,
        complete: events.complete,
        nextState: JSON.stringify({ validators, horizon }),
      });
    },
  };
}
