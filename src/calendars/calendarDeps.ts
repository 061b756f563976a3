/** What the calendar services, reads and writes alike, are given by the composition root. */
import type { WorkSlots } from '../lib/workSlots.ts';
import type { WordCache } from '../store/wordCache.ts';
import type { ConnectionDeps } from './connections/connections.ts';
import type { CalendarCopies } from './copies.ts';
import type { EventIdCodec } from './eventIds.ts';
import type { BusyLookups } from './reads/busyLookups.ts';

export interface CalendarDeps extends ConnectionDeps {
  ids: EventIdCodec;
  /**
   * How long one read may wait for all its calendars; a calendar still reading then is left out
   * (`timeout`), so one slow or hostile calendar never holds the whole answer.
   */
  readDeadlineMs: number;
  /** The copies' part of every read takes one of these (READS_AT_ONCE): the thread's turns stay short under many clients. */
  readSlots: WorkSlots;
  copies?: CalendarCopies;
  /** Others' busy time the providers told each grant lately, not asked again (absent: always asked). */
  busyLookups?: BusyLookups;
  /** What searches read of the copies' word index, kept per version of each copy (absent: always read). */
  wordCache?: WordCache;
  /** Told about failures that were not the provider's answer (they are still reported to the caller). */
  onUnexpectedError?: (error: unknown) => void;
  /** Told about a calendar left out for its provider's known failure (a feed too large, a timeout…): one line, no stack. */
  onCalendarExcluded?: (exclusion: { calendarId: string; reason: string; code: string }) => void;
}
