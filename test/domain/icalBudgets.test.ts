/**
 * Hostile calendars against the expansion's budget: zones that change every second, rules that
 * never end or never match, and a deadline. Each is cut off and reported, never a stall.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BudgetLimits,
  calendarLimits,
  createBudget,
  overBudget,
  spend,
} from '../../src/domain/budget.ts';
import { expandIcs } from '../../src/domain/ical/expand.ts';
import { findOccurrence } from '../../src/domain/ical/findOccurrence.ts';
import { parseCalendar } from '../../src/domain/ical/parse.ts';
import {
  hostileZoneCalendar,
  impossibleRules,
  manyRdates,
  ordinaryEvents,
  secondlyEvents,
} from './hostileCalendars.ts';
import { window } from './icalFixtures.ts';

const march2026 = window('2026-03-01T00:00:00Z', '2026-04-01T00:00:00Z');
// The time limit is lifted unless a test sets it: on a busy machine it would cut in first.
const budgetOf = (limits: Partial<BudgetLimits> = {}, now = () => performance.now()) =>
  createBudget({ ...calendarLimits, timeMs: 600_000, ...limits }, now);

describe('budget', () => {
  it('counts each part and stops at its limit or at the deadline', () => {
    let clock = 0;
    const budget = budgetOf({ occurrences: 2, timeMs: 10 }, () => clock);
    spend(budget, 'occurrences', 2);
    assert.equal(overBudget(budget)?.kind, 'occurrences');
    assert.throws(() => spend(budget, 'occurrences'), { name: 'BudgetExceeded', kind: 'occurrences' });
    const timed = budgetOf({ timeMs: 10 }, () => clock);
    clock = 11;
    assert.equal(overBudget(timed)?.kind, 'timeMs');
    assert.throws(() => spend(timed, 'bytes', 1000), { kind: 'timeMs' });
  });
});

describe('the calendar-level properties alone', () => {
  it("reads a feed's name and zone without parsing or counting its events", () => {
    const feed = ordinaryEvents(100).replace(
      'X-WR-TIMEZONE:Etc/UTC',
      'X-WR-CALNAME:Big feed\r\nX-WR-TIMEZONE:Europe/Vienna',
    );
    const budget = budgetOf({ items: 10 });
    const parsed = parseCalendar(feed, budget, { components: false });
    assert.equal(parsed.properties.get('x-wr-calname'), 'Big feed');
    assert.equal(parsed.properties.get('x-wr-timezone'), 'Europe/Vienna');
    assert.deepEqual(parsed.components, []);
    assert.equal(budget.spent.items, 0);
    // The whole parse of the same feed is over that budget.
    assert.throws(() => parseCalendar(feed, budgetOf({ items: 10 })), {
      name: 'BudgetExceeded',
      kind: 'items',
    });
  });
});

describe('a VTIMEZONE repeating FREQ=SECONDLY', () => {
  for (const since of ['1600', '2026'] as const) {
    it(`(DTSTART ${since}) skips the events in it with a reason; the others are read`, () => {
      const result = expandIcs(hostileZoneCalendar(since), { window: march2026, budget: budgetOf() });
      assert.deepEqual(
        result.occurrences.map((occurrence) => occurrence.providerEventId),
        ['plain'],
      );
      assert.equal(result.skipped.length, 1);
      assert.equal(result.skipped[0]?.providerEventId, 'in-hostile-zone');
      assert.match(
        result.skipped[0]?.reason ?? '',
        /time zone "Hostile\/Seconds" cannot be used: .*secondly/,
      );
    });
  }

  it('is never evaluated when its TZID names an IANA zone', () => {
    const ics = hostileZoneCalendar('1600', 'Europe/Berlin');
    const result = expandIcs(ics, { window: march2026, budget: budgetOf() });
    const zoned = result.occurrences.find((occurrence) => occurrence.providerEventId === 'in-hostile-zone');
    assert.equal(zoned?.timeZone, 'Europe/Berlin');
    assert.equal(zoned?.start, '2026-03-10T09:00:00');
    assert.deepEqual(result.skipped, []);
  });

  it('is refused on the way to a single occurrence too (the fresh read before a write)', () => {
    const found = findOccurrence(hostileZoneCalendar('2026'), 'plain', undefined, { budget: budgetOf() });
    assert.equal(found?.start, '2026-03-10T10:00:00');
    assert.equal(findOccurrence(hostileZoneCalendar('2026'), 'in-hostile-zone', undefined, {}), undefined);
  });
});

describe('a calendar over its budget', () => {
  it('stops 20 events repeating every second since 1970 at the calendar’s rule steps', () => {
    const budget = budgetOf({ ruleSteps: 300_000 });
    const result = expandIcs(secondlyEvents(20), { window: march2026, budget });
    assert.ok(budget.spent.ruleSteps <= 300_001);
    const last = result.skipped.at(-1);
    assert.equal(last?.providerEventId, undefined);
    assert.match(
      last?.reason ?? '',
      /more than the 300000 recurrence steps one read may spend.*\(19 events not read\)/,
    );
  });

  it('stops 50 impossible rules at the calendar’s rule steps', () => {
    const budget = budgetOf({ ruleSteps: 250_000 });
    const result = expandIcs(impossibleRules(50), { window: march2026, budget });
    assert.deepEqual(result.occurrences, []);
    assert.match(result.skipped.at(-1)?.reason ?? '', /recurrence steps.*\(49 events not read\)/);
  });

  it('counts RDATEs as steps and occurrences against the budget', () => {
    const budget = budgetOf({ ruleSteps: 1000 });
    const result = expandIcs(manyRdates(5000), {
      window: window('2020-01-01T00:00:00Z', '2021-01-01T00:00:00Z'),
      budget,
    });
    assert.deepEqual(result.occurrences, []);
    assert.match(result.skipped[0]?.reason ?? '', /1000 recurrence steps/);
    const placed = budgetOf({ occurrences: 100 });
    const capped = expandIcs(manyRdates(500), {
      window: window('2020-01-01T00:00:00Z', '2021-01-01T00:00:00Z'),
      budget: placed,
    });
    assert.match(capped.skipped[0]?.reason ?? '', /100 occurrences/);
  });

  it('stops at the deadline, and before parsing when the text is larger than its bytes', () => {
    let clock = 0;
    const budget = budgetOf({ timeMs: 5 }, () => (clock += 1));
    const result = expandIcs(secondlyEvents(3), { window: march2026, budget });
    assert.match(result.skipped.at(-1)?.reason ?? '', /longer than the 5 ms/);
    const small = expandIcs(secondlyEvents(3), { window: march2026, budget: budgetOf({ bytes: 100 }) });
    assert.deepEqual(small, { occurrences: [], skipped: [{ reason: small.skipped[0]?.reason }] });
    assert.match(small.skipped[0]?.reason ?? '', /100 bytes/);
  });
});
