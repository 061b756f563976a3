/** What the read and write services ask of the calendars' synced copies (the sync service answers). */
import type { DetailLevel } from '../domain/detailLevels.ts';
import type { TimeWindow } from '../domain/window.ts';
import type { AccountAccess } from '../providers/port.ts';
import type { CalendarRecord, ConnectedAccount } from '../store/connectedAccounts.ts';

/** A calendar's synced copy, usable for one read's window. */
export interface CopyForRead {
  calendarId: string;
  /** The copy's number: what its rows are found by. */
  copyKey: number;
  /** The level the copy holds: a read at a higher one is live. */
  level: DetailLevel;
  /** When its last sync completed (epoch ms). */
  syncedAt: number;
  /** Older than the freshness allows and not synced for this read: the answer says so. */
  stale: boolean;
  /** Why its last sync failed (an exclusion reason), or null when none has since the last that worked. */
  failureReason: string | null;
  /** Whether it holds private events' details (some grant reaching it may see them): else they are busy. */
  privateDetails: boolean;
  /** Items the adapter could not read: the calendar is `incomplete`. */
  skipped: number;
  /** The longest occurrence it holds, in ms (how far back an overlapping one may start). */
  longestMs: number;
  /** The span it holds (epoch ms). */
  horizonStart: number;
  horizonEnd: number;
  /** Moves whenever what it holds does; with when it was made, names what a search may keep of it (store/wordCache.ts). */
  version: number;
  createdAt: number;
}

/** What came of one sync: done, failed (the copy kept as it was), held by another sync, no copy to sync. */
export type SyncOutcome = 'synced' | 'failed' | 'busy' | 'gone';

/** What reads, writes and pages ask of the synced copies (the sync service gives it; absent → every read is live). */
export interface CalendarCopies {
  /**
   * The copies that can answer a read of `window` (synced, the window inside their horizon),
   * stale ones synced first within a short wait. Calendars missing from the map are read live.
   */
  forRead(calendarIds: readonly string[], window: TimeWindow): Promise<Map<string, CopyForRead>>;
  /**
   * After a write the provider confirmed: the copy shows it before the caller is answered. The
   * write's connection, when given, is the sync's (not looked up and unsealed again).
   */
  afterWrite(calendarId: string, connection?: OpenConnection): Promise<void>;
  /** Syncs one calendar now ("Sync now" on the account page), joining a sync of it already running here. */
  syncNow(calendarId: string): Promise<SyncOutcome>;
}

/** A calendar's connection as a request opened it: the stored calendar, its account, the access. */
export interface OpenConnection {
  calendar: CalendarRecord;
  account: ConnectedAccount;
  access: AccountAccess;
}
