/**
 * The worker thread of the expansion pool: parses and expands iCalendar text away from the
 * request thread, every job within a fresh budget of the limits it is given.
 */
import { parentPort } from 'node:worker_threads';
import { type Budget, BudgetExceeded, createBudget } from '../domain/budget.ts';
import { declaredZone } from '../domain/ical/expand.ts';
import { findOccurrence } from '../domain/ical/findOccurrence.ts';
import { parseCalendar } from '../domain/ical/parse.ts';
import type { TimeWindow } from '../domain/window.ts';
import { isAppError } from '../errors.ts';
import { readReport } from './caldav/report.ts';
import { parseSyncCollection } from './caldav/wire.ts';
import { expandWithin } from './expandWithin.ts';
import type { JobAnswer, JobRequest, PoolJob, SyncCollectionAnswer } from './expansionJobs.ts';

function run(job: PoolJob, budget: Budget): unknown {
  switch (job.kind) {
    case 'expand':
      return expandWithin(job.objects, job.options, windowOf(job.window), budget);
    case 'find':
      return findOccurrence(job.ics, job.uid, job.recurrenceId, { ...job.options, budget }) ?? null;
    case 'describe': {
      const properties = parseCalendar(job.ics, budget, { components: false }).properties;
      return { name: properties.get('x-wr-calname'), timeZone: declaredZone(properties) };
    }
    case 'syncCollection':
      return readSyncCollection(utf8.decode(job.xml));
    case 'report':
      return readReport(
        utf8.decode(job.xml),
        { ...job.request, window: windowOf(job.request.window) },
        budget,
      );
  }
}

const utf8 = new TextDecoder();

/** Instants cross threads as ISO strings. */
const windowOf = (window: { start: string; end: string }): TimeWindow => ({
  start: Temporal.Instant.from(window.start),
  end: Temporal.Instant.from(window.end),
});

/** The server's answer is at fault when it is not WebDAV XML: said as a value, not a failed job. */
function readSyncCollection(xml: string): SyncCollectionAnswer {
  try {
    return parseSyncCollection(xml);
  } catch (error) {
    return { error: (error as Error).message };
  }
}

parentPort?.on('message', ({ id, job }: JobRequest) => {
  let answer: JobAnswer;
  try {
    const budget = createBudget(job.limits, () => performance.now());
    answer = { id, value: run(job, budget) };
  } catch (error) {
    answer = {
      id,
      error: {
        message: (error as Error).message,
        invalid: isAppError(error) || error instanceof BudgetExceeded,
      },
    };
  }
  parentPort?.postMessage(answer);
});

// Imports are loaded: the pool starts a job's deadline from here.
parentPort?.postMessage('ready');
