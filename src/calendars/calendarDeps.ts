/** What the calendar services, reads and writes alike, are given by the composition root. */
import type { DetailLevel } from '../domain/detailLevels.ts';
import type { TimeWindow } from '../domain/window.ts';
import type { AccountDeps } from './accounts/connectedAccounts.ts';
import type { EventIdCodec } from './eventIds.ts';
import type { CopyViews } from './reads/copyViews.ts';

/** A calendar's synced copy, usable for one read's window. */
export interface CopyForRead {
  calendarId: string;
  /** The level the copy holds: a read at a higher one is live. */
  level: DetailLevel;
  /** When its last sync completed (epoch ms). */
  syncedAt: number;
  /** Older than the freshness allows and not synced for this read: the answer says so. */
  stale: boolean;
  /** Items the adapter could not read: the calendar is `incomplete`. */
  skipped: number;
  /** The longest occurrence it holds, in ms (how far back an overlapping one may start). */
  longestMs: number;
  /** The span it holds (epoch ms). */
  horizonStart: number;
  horizonEnd: number;
  /** Changes with every applied batch: what an in-memory view of it is checked against. */
  version: number;
}

/** What reads and writes ask of the synced copies (the sync service gives it; absent → every read is live). */
export interface CalendarCopies {
  /**
   * The copies that can answer a read of `window` (synced, the window inside their horizon),
   * stale ones synced first within a short wait. Calendars missing from the map are read live.
   */
  forRead(calendarIds: readonly string[], window: TimeWindow): Promise<Map<string, CopyForRead>>;
  /** After a write the provider confirmed: the copy shows it before the caller is answered. */
  afterWrite(calendarId: string): Promise<void>;
}

export interface CalendarDeps extends AccountDeps {
  ids: EventIdCodec;
  /**
   * How long one read may wait for all its calendars; a calendar still reading then is left out
   * (`timeout`), so one slow or hostile calendar never holds the whole answer.
   */
  readDeadlineMs: number;
  copies?: CalendarCopies;
  /** The copies placed and masked in memory, per kind of reader (given with `copies`). */
  copyViews?: CopyViews;
  /** Told about failures that were not the provider's answer (they are still reported to the caller). */
  onUnexpectedError?: (error: unknown) => void;
  /** Told about a calendar left out for its provider's known failure (a feed too large, a timeout…): one line, no stack. */
  onCalendarExcluded?: (exclusion: { calendarId: string; reason: string; code: string }) => void;
}
