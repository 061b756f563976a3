/**
 * Incremental sync of one Google calendar (guides/sync). With singleEvents every instance is
 * an item of its own, keyed by its event id; showDeleted brings deletions as `cancelled`
 * items, which are removals. One batch per page, so the caller holds one page at a time; the
 * last page's nextSyncToken is the state saved with it. A 410 (Google forgot the sync token or
 * the page position) starts over as a full sync, once.
 */
import { calendarLimits } from '../../domain/budget.ts';
import type { ProviderCalendar } from '../../domain/providerFacts.ts';
import type { TimeWindow } from '../../domain/window.ts';
import { AppError } from '../../errors.ts';
import { tokenHash } from '../../lib/secrets.ts';
import { nearWindow } from '../nearWindow.ts';
import type { CalendarSync, SyncBatch } from '../port.ts';
import { type GoogleClient, syncPageSize } from './client.ts';
import { providerName } from './config.ts';
import { isGone } from './errors.ts';
import { mapEvent, mappingContext } from './mapping.ts';
import type { GoogleAccount } from './session.ts';
import type { GoogleEventList } from './wire.ts';

/** A listing that pages on past one calendar's item budget is not a calendar but a loop. */
const maxPages = Math.ceil(calendarLimits.items / syncPageSize);

export function createGoogleSync(
  clientFor: (account: GoogleAccount) => GoogleClient,
): CalendarSync<'google'> {
  return {
    async *syncCalendar(account, calendar, request) {
      const client = clientFor(account);
      let syncToken = request.state;
      for (let restarted = false; ; restarted = true) {
        try {
          yield* listing(client, calendar, request.horizon, syncToken);
          return;
        } catch (error) {
          if (restarted || !isGone(error)) throw error;
          syncToken = undefined;
        }
      }
    },
  };
}

/** Every page since `syncToken` (from the beginning without it), one batch each. */
async function* listing(
  client: GoogleClient,
  calendar: ProviderCalendar,
  horizon: TimeWindow,
  syncToken: string | undefined,
): AsyncGenerator<SyncBatch> {
  let pageToken: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await client.syncPage(calendar.providerCalendarId, { syncToken, pageToken });
    const batch = batchOf(page, calendar, horizon, syncToken === undefined);
    pageToken = page.nextPageToken;
    if (pageToken === undefined) {
      const nextState = page.nextSyncToken;
      yield typeof nextState === 'string' ? { ...batch, nextState } : batch;
      return;
    }
    if (pages >= maxPages) {
      throw new AppError(
        'payload_too_large',
        `${providerName} listed more pages than one calendar may have.`,
        {
          details: { reason: 'too_large', maxItems: calendarLimits.items },
        },
      );
    }
    yield batch;
  }
}

function batchOf(
  page: GoogleEventList,
  calendar: ProviderCalendar,
  horizon: TimeWindow,
  full: boolean,
): SyncBatch {
  // The same context and mapping as listEvents, so the copy reads as Google does.
  const context = mappingContext(calendar, {
    timeZone: page.timeZone,
    defaultReminders: page.defaultReminders ?? [],
  });
  const batch: SyncBatch = { full, upserts: [], removals: [], skipped: [] };
  for (const event of page.items ?? []) {
    const key = event?.id;
    if (typeof key !== 'string') {
      batch.skipped.push({ reason: 'event without an id' });
      continue;
    }
    if (event.status === 'cancelled') {
      batch.removals.push(key);
      continue;
    }
    const mapped = mapEvent(event, context);
    if ('skipped' in mapped) batch.skipped.push(mapped.skipped);
    const inHorizon = 'occurrence' in mapped && nearWindow(mapped.occurrence, horizon);
    batch.upserts.push({
      key,
      // Free/busy views may come without an etag; their content is then the version.
      version: event.etag ?? tokenHash(JSON.stringify(event)),
      // An unreadable item is kept without occurrences, so its earlier ones leave the copy.
      occurrences: inHorizon ? [mapped.occurrence] : [],
    });
  }
  return batch;
}
