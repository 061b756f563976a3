/**
 * Calendar objects expanded one after another within one budget: the expansion pool's work for
 * an ICS feed and for a CalDAV REPORT answer alike. Runs on the pool's worker threads.
 */
import { type Budget, BudgetExceeded, overBudget } from '../domain/budget.ts';
import { type ExpandOptions, expandIcs } from '../domain/ical/expand.ts';
import type { EventsResult } from '../domain/providerFacts.ts';
import type { TimeWindow } from '../domain/window.ts';

/** One object's occurrences, or why the object itself cannot be read. */
export type ObjectResult = EventsResult | { error: string };

export interface ExpandAnswer {
  results: ObjectResult[];
  /** Set when the budget ran out: the objects after `results` were not read. */
  over?: string;
  /** Set when the budget ran out anywhere, the last object included: some result may be partial. */
  exhausted?: true;
}

export function expandWithin(
  objects: { ics: string; options?: Pick<ExpandOptions, 'version'> }[],
  options: Omit<ExpandOptions, 'budget' | 'window'>,
  window: TimeWindow,
  budget: Budget,
): ExpandAnswer {
  const results: ObjectResult[] = [];
  for (const object of objects) {
    const over = overBudget(budget);
    if (over !== undefined) return { results, over: over.message, exhausted: true };
    results.push(attempt(() => expandIcs(object.ics, { ...options, ...object.options, window, budget })));
  }
  // An object's expansion stops where the budget ran out and reports it only among its skipped.
  return overBudget(budget) === undefined ? { results } : { results, exhausted: true };
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
