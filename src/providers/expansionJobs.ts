/** The messages between the expansion pool and its workers. */
import type { BudgetLimits } from '../domain/budget.ts';
import type { ExpandOptions } from '../domain/ical/expand.ts';
import type { EventsResult } from '../domain/providerFacts.ts';
import type { DavResponse } from './caldav/wire.ts';

type Options = Omit<ExpandOptions, 'budget' | 'window'>;

export type PoolJob = { limits: BudgetLimits } & (
  | {
      kind: 'expand';
      objects: { ics: string; options?: Pick<ExpandOptions, 'version'> }[];
      options: Options;
      /** Instants as ISO strings: Temporal values do not cross threads. */
      window: { start: string; end: string };
    }
  | { kind: 'find'; ics: string; uid: string; recurrenceId: string | undefined; options: Options }
  | { kind: 'describe'; ics: string }
  /** A WebDAV 207 answer; `syncToken`: a sync-collection answer, its token read too. */
  | { kind: 'multistatus'; xml: string; syncToken: boolean }
);

/** One object's occurrences, or why the object itself cannot be read. */
export type ObjectResult = EventsResult | { error: string };

export interface ExpandAnswer {
  results: ObjectResult[];
  /** Set when the budget ran out: the objects after `results` were not read. */
  over?: string;
  /** Set when the budget ran out anywhere, the last object included: some result may be partial. */
  exhausted?: true;
}

/** A 207 answer's responses (and sync-token), or why it is not WebDAV XML. */
export type MultistatusAnswer = { responses: DavResponse[]; token?: string } | { error: string };

export interface JobRequest {
  id: number;
  job: PoolJob;
}

export type JobAnswer =
  | { id: number; value: unknown }
  /** `invalid`: the calendar's content is at fault (not iCalendar, over budget), not the service. */
  | { id: number; error: { message: string; invalid: boolean } };
