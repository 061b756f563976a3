/** The messages between the expansion pool and its workers. */
import type { BudgetLimits } from '../domain/budget.ts';
import type { ExpandOptions } from '../domain/ical/expand.ts';
import type { ProviderOccurrence, SkippedItem } from '../domain/providerFacts.ts';
import type { TimeWindow } from '../domain/window.ts';
import type { DavResponse } from './caldav/wire.ts';

type Options = Omit<ExpandOptions, 'budget' | 'window'>;

export type PoolJob = { limits: BudgetLimits } & (
  | {
      kind: 'expand';
      objects: { ics: string; options?: Pick<ExpandOptions, 'version'> }[];
      options: Options;
      window: IsoWindow;
    }
  | { kind: 'find'; ics: string; uid: string; recurrenceId: string | undefined; options: Options }
  | { kind: 'describe'; ics: string }
  /**
   * WebDAV answers travel as the bytes received (UTF-8) and are decoded on the worker: a
   * sync-collection answer (RFC 6578), its members and new token; a REPORT answer carrying
   * calendar objects, read and expanded in one job.
   */
  | { kind: 'syncCollection'; xml: Uint8Array }
  | { kind: 'report'; xml: Uint8Array; request: Omit<ReportRequest, 'window'> & { window: IsoWindow } }
);

/** Instants as ISO strings: Temporal values do not cross threads. */
export type IsoWindow = { start: string; end: string };

/** A sync-collection answer's responses and sync-token, or why it is not WebDAV XML. */
export type SyncCollectionAnswer = { responses: DavResponse[]; token?: string } | { error: string };

export interface JobRequest {
  id: number;
  job: PoolJob;
}

export type JobAnswer =
  | { id: number; value: unknown }
  /** `invalid`: the calendar's content is at fault (not iCalendar, over budget), not the service. */
  | { id: number; error: { message: string; invalid: boolean } };

/** A REPORT answer read in the pool (providers/caldav/report.ts): what it is asked, what it answers. */
export interface ReportRequest {
  /** The calendar asked (URLs cross threads as strings). */
  calendarUrl: string;
  /** The address that answered: hrefs resolve against it. */
  base: string;
  window: TimeWindow;
  selfAddresses: string[];
  /**
   * A multiget's members, by key (memberKey) with their listed ETags: only these are read, and a
   * 404 among them is a removal. Absent for a calendar-query: every object of the calendar.
   */
  asked?: { key: string; version?: string }[];
}

/** One object read: its key, occurrences near the window (none when unreadable: see skipped). */
export interface ReportObject {
  key: string;
  /** The ETag that came with the data, else the listed one, else the data's hash. */
  version: string;
  occurrences: ProviderOccurrence[];
}

/** What the answer holds; `error` when it is not WebDAV XML (the server's fault, said as a value). */
export type ReportAnswer =
  | { objects: ReportObject[]; removals: string[]; skipped: SkippedItem[] }
  | { error: string };
