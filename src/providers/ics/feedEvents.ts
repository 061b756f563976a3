/**
 * A feed's occurrences in a window, expanded in the expansion pool: the one expansion behind both
 * listing events and syncing the copy, so that reading the copy equals reading the feed.
 */
import type { EventsResult } from '../../domain/providerFacts.ts';
import type { TimeWindow } from '../../domain/window.ts';
import type { ExpansionPool } from '../expansionPool.ts';
import { feedFault } from './client.ts';

export interface FeedEvents extends EventsResult {
  /** False when the budget ran out: events the expansion did not reach are missing, not gone. */
  complete: boolean;
}

/** A reading of the feed's content; when the parser gives up, the feed is at fault and is named. */
export async function parsing<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw feedFault(
      'not_calendar_data',
      `The calendar feed is not valid iCalendar: ${(error as Error).message}`,
    );
  }
}

export async function feedEvents(
  pool: ExpansionPool,
  accountKey: string,
  ics: string,
  window: TimeWindow,
): Promise<FeedEvents> {
  const answer = await pool.expand(accountKey, [{ ics }], { window, managedCopy: true });
  const [result] = answer.results;
  if (result === undefined) {
    return { occurrences: [], skipped: [{ reason: answer.over ?? 'not read' }], complete: false };
  }
  return parsing(async () => {
    if ('error' in result) throw new Error(result.error);
    return { ...result, complete: answer.exhausted !== true };
  });
}
