/**
 * The worker thread of the expansion pool: parses and expands iCalendar text away from the
 * request thread, every job within a fresh budget of the limits it is given.
 */
import { parentPort } from 'node:worker_threads';
import { type Budget, BudgetExceeded, createBudget, overBudget } from '../domain/budget.ts';
import { declaredZone, expandIcs } from '../domain/ical/expand.ts';
import { findOccurrence } from '../domain/ical/findOccurrence.ts';
import { parseCalendar } from '../domain/ical/parse.ts';
import { isAppError } from '../errors.ts';
import { parseMultistatus, parseSyncCollection } from './caldav/wire.ts';
import type { JobAnswer, JobRequest, MultistatusAnswer, ObjectResult, PoolJob } from './expansionJobs.ts';

function run(job: PoolJob, budget: Budget): unknown {
  switch (job.kind) {
    case 'expand': {
      const window = {
        start: Temporal.Instant.from(job.window.start),
        end: Temporal.Instant.from(job.window.end),
      };
      const results: ObjectResult[] = [];
      for (const object of job.objects) {
        const over = overBudget(budget);
        if (over !== undefined) return { results, over: over.message, exhausted: true };
        results.push(
          attempt(() => expandIcs(object.ics, { ...job.options, ...object.options, window, budget })),
        );
      }
      // An object's expansion stops where the budget ran out and reports it only among its skipped.
      return overBudget(budget) === undefined ? { results } : { results, exhausted: true };
    }
    case 'find':
      return findOccurrence(job.ics, job.uid, job.recurrenceId, { ...job.options, budget }) ?? null;
    case 'describe': {
      const properties = parseCalendar(job.ics, budget, { components: false }).properties;
      return { name: properties.get('x-wr-calname'), timeZone: declaredZone(properties) };
    }
    case 'multistatus':
      return readMultistatus(job.xml, job.syncToken);
  }
}

/** The server's answer is at fault when it is not WebDAV XML: said as a value, not a failed job. */
function readMultistatus(xml: string, syncToken: boolean): MultistatusAnswer {
  try {
    return syncToken ? parseSyncCollection(xml) : { responses: parseMultistatus(xml) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** One object's result, or why it could not be read (its own fault, not the calendar's). */
function attempt(read: () => ObjectResult & object): ObjectResult {
  try {
    return read();
  } catch (error) {
    if (error instanceof BudgetExceeded) throw error;
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
