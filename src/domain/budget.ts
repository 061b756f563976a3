/**
 * What one piece of calendar work may spend: items read, occurrences expanded, rule iteration
 * steps, zone transitions, bytes, and a deadline. A plain object handed down, never global
 * state, so a request, one calendar's read or a background sync each bring their own; the
 * expansion spends from it and stops, reporting what it left out, once any part is gone.
 * Pure: the caller supplies "now".
 */
import { AppError } from '../errors.ts';

export const budgetKinds = ['items', 'occurrences', 'ruleSteps', 'zoneTransitions', 'bytes'] as const;
export type BudgetKind = (typeof budgetKinds)[number];

export interface BudgetLimits extends Record<BudgetKind, number> {
  /** Milliseconds of work from the budget's creation. */
  timeMs: number;
}

export interface Budget {
  limits: BudgetLimits;
  spent: Record<BudgetKind, number>;
  /** The `now()` reading past which the work stops. */
  deadline: number;
  now: () => number;
}

/** One calendar's read: generous for real calendars (tens of thousands of events), finite for hostile ones. */
export const calendarLimits: BudgetLimits = {
  items: 50_000,
  occurrences: 100_000,
  ruleSteps: 1_000_000,
  zoneTransitions: 100_000,
  bytes: 64 * 1024 * 1024,
  timeMs: 5_000,
};

/**
 * What one sync of a calendar may spend across all its batches: provider rounds (pages, requests
 * for more changes), items, the bytes it copies, and wall time. A sync past one of them fails
 * with its reason and is tried again later: a server that always has "more" cannot keep it busy.
 */
export interface SyncLimits {
  rounds: number;
  items: number;
  bytes: number;
  timeMs: number;
}

export const syncLimits: SyncLimits = {
  // 50,000 items in pages of 100 take 500 rounds; twice that leaves room for removals.
  rounds: 1_000,
  items: calendarLimits.items,
  bytes: calendarLimits.bytes,
  timeMs: 10 * 60_000,
};

export type SyncBound = keyof SyncLimits;

/** A sync stopped by a bound: `too_large` (the reads' word for a calendar past what is read), or `timeout`. */
export function syncBoundExceeded(bound: SyncBound, limit: number): AppError {
  return bound === 'timeMs'
    ? new AppError('provider_unavailable', `The calendar's sync took longer than ${limit} ms.`, {
        details: { reason: 'timeout', bound },
      })
    : new AppError('payload_too_large', `The calendar's sync needs more than ${limit} ${bound}.`, {
        details: { reason: 'too_large', bound },
      });
}

/** Why a budget stopped the work; `kind` is the part that ran out. */
export class BudgetExceeded extends Error {
  readonly kind: BudgetKind | 'timeMs';
  constructor(kind: BudgetKind | 'timeMs', limit: number) {
    super(
      kind === 'timeMs'
        ? `the calendar takes longer than the ${limit} ms one read may spend; the rest is left out`
        : `the calendar needs more than the ${limit} ${describe[kind]} one read may spend; the rest is left out`,
    );
    this.name = 'BudgetExceeded';
    this.kind = kind;
  }
}

const describe: Record<BudgetKind, string> = {
  items: 'items',
  occurrences: 'occurrences',
  ruleSteps: 'recurrence steps',
  zoneTransitions: 'time-zone transitions',
  bytes: 'bytes',
};

export function createBudget(limits: BudgetLimits, now: () => number): Budget {
  return {
    limits,
    spent: { items: 0, occurrences: 0, ruleSteps: 0, zoneTransitions: 0, bytes: 0 },
    deadline: now() + limits.timeMs,
    now,
  };
}

/** A budget with no limits, for work whose size the caller already bounds (one object before a write). */
export function unlimitedBudget(): Budget {
  const none = Number.POSITIVE_INFINITY;
  return createBudget(
    { items: none, occurrences: none, ruleSteps: none, zoneTransitions: none, bytes: none, timeMs: none },
    () => 0,
  );
}

/** The reason the budget is spent (some part used up, or past the deadline), if it is. */
export function overBudget(budget: Budget): BudgetExceeded | undefined {
  const kind = budgetKinds.find((k) => budget.spent[k] >= budget.limits[k]);
  if (kind !== undefined) return new BudgetExceeded(kind, budget.limits[kind]);
  return budget.now() > budget.deadline ? new BudgetExceeded('timeMs', budget.limits.timeMs) : undefined;
}

/** Takes `amount` of `kind`; throws BudgetExceeded when that part, or the time, is used up. */
export function spend(budget: Budget, kind: BudgetKind, amount = 1): void {
  budget.spent[kind] += amount;
  if (budget.spent[kind] > budget.limits[kind]) throw new BudgetExceeded(kind, budget.limits[kind]);
  // Reading the clock costs more than counting: look at it every 256 units of any part.
  if ((budget.spent[kind] & 255) < amount && budget.now() > budget.deadline) {
    throw new BudgetExceeded('timeMs', budget.limits.timeMs);
  }
}
