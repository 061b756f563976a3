/** The messages between the expansion pool and its workers. */
import type { BudgetLimits } from '../domain/budget.ts';
import type { ExpandOptions } from '../domain/ical/expand.ts';
import type { ReportRequest } from './caldav/report.ts';
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
