/**
 * One RRULE iterated by ical.js over wall-clock times, without UNTIL (the caller applies it on
 * the series' clock), with a hard limit of iteration steps per rule and each step spent from the
 * work's budget.
 */
import ICAL from 'ical.js';
import { AppError } from '../../errors.ts';
import { type Budget, spend, unlimitedBudget } from '../budget.ts';

type Recur = InstanceType<typeof ICAL.Recur>;

/** Wall-clock starts from `first` on (dates at midnight), in order; throws past the budget. */
export function* ruleStarts(
  recur: Recur,
  first: Temporal.PlainDateTime,
  allDay: boolean,
  maxSteps: number,
  budget: Budget = unlimitedBudget(),
): Generator<Temporal.PlainDateTime> {
  const rule = recur.clone();
  rule.until = null;
  // The wall clock is iterated as UTC, so no zone rules (or the host's zone) interfere.
  const start = ICAL.Time.fromData(
    {
      year: first.year,
      month: first.month,
      day: first.day,
      hour: first.hour,
      minute: first.minute,
      second: first.second,
      isDate: allDay,
    },
    ICAL.Timezone.utcTimezone,
  );
  const iterator = rule.iterator(start);
  let steps = 0;
  const step = () => {
    steps += 1;
    spend(budget, 'ruleSteps');
    if (steps > maxSteps) {
      throw new AppError(
        'invalid_request',
        `recurrence rule needs more than ${maxSteps} steps to reach the window`,
      );
    }
  };
  // ical.js loops internally until its contracting BY* parts match, which for an impossible rule
  // (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30) is forever: every candidate it tries counts as a step.
  const checkContractingRules = iterator.check_contracting_rules.bind(iterator);
  iterator.check_contracting_rules = () => {
    step();
    return checkContractingRules();
  };
  for (let next = iterator.next(); next !== null; next = iterator.next()) {
    step();
    yield new Temporal.PlainDateTime(next.year, next.month, next.day, next.hour, next.minute, next.second);
  }
}
