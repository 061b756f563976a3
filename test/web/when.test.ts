/** Times on the pages: in the person's zone, near ones in words, days counted across DST changes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dayName, timeTag, whenWords } from '../../src/web/when.ts';

const at = (iso: string) => Temporal.Instant.from(iso);

describe('whenWords', () => {
  const now = at('2026-06-10T12:00:00Z'); // a Wednesday

  it('says near instants in minutes, before and after', () => {
    assert.equal(whenWords(at('2026-06-10T11:59:40Z'), now, 'UTC'), 'just now');
    assert.equal(whenWords(at('2026-06-10T11:55:00Z'), now, 'UTC'), '5 min ago');
    assert.equal(whenWords(at('2026-06-10T11:01:00Z'), now, 'UTC'), '59 min ago');
    assert.equal(whenWords(at('2026-06-10T12:20:00Z'), now, 'UTC'), 'in 20 min');
  });

  it('names the day in the zone, with the local clock', () => {
    assert.equal(whenWords(at('2026-06-10T08:00:00Z'), now, 'Europe/Berlin'), 'today 10:00');
    assert.equal(whenWords(at('2026-06-09T21:30:00Z'), now, 'Europe/Berlin'), 'yesterday 23:30');
    // One instant, two days: today in Berlin, still yesterday evening in New York.
    assert.equal(whenWords(at('2026-06-10T02:30:00Z'), now, 'Europe/Berlin'), 'today 04:30');
    assert.equal(whenWords(at('2026-06-10T02:30:00Z'), now, 'America/New_York'), 'yesterday 22:30');
    assert.equal(whenWords(at('2026-06-11T09:00:00Z'), now, 'UTC'), 'tomorrow 09:00');
    assert.equal(whenWords(at('2026-06-07T14:00:00Z'), now, 'UTC'), 'Sun 14:00');
    assert.equal(whenWords(at('2026-06-16T14:00:00Z'), now, 'UTC'), 'Tue 14:00');
  });

  it('gives a date beyond a week, with the year when it is another', () => {
    assert.equal(whenWords(at('2026-03-03T14:00:00Z'), now, 'UTC'), '3 Mar 14:00');
    assert.equal(whenWords(at('2025-12-31T23:30:00Z'), now, 'UTC'), '31 Dec 2025');
    // New Year's Eve in UTC is already 2026 in Auckland.
    assert.equal(whenWords(at('2025-12-31T23:30:00Z'), now, 'Pacific/Auckland'), '1 Jan 12:30');
  });

  it('counts calendar days across a DST change, not 24-hour spans', () => {
    // Berlin springs forward on 29 March 2026: 12:00 the day before is 23 hours earlier.
    const sunday = at('2026-03-29T10:00:00Z'); // 12:00 CEST
    assert.equal(whenWords(at('2026-03-28T11:00:00Z'), sunday, 'Europe/Berlin'), 'yesterday 12:00');
    // New York falls back on 1 November 2026: 23:30 the evening before is 25 hours earlier.
    const fallBack = at('2026-11-02T04:30:00Z'); // 23:30 EST, 1 November
    assert.equal(whenWords(at('2026-11-01T03:30:00Z'), fallBack, 'America/New_York'), 'yesterday 23:30');
    // Auckland: 02:00 NZDT on 5 April 2026 becomes 02:00 NZST again; 60 min apart, both "02:30".
    const second = at('2026-04-04T14:30:00Z'); // 02:30 NZST
    assert.equal(whenWords(at('2026-04-04T13:30:00Z'), second, 'Pacific/Auckland'), 'today 02:30');
    assert.equal(whenWords(at('2026-04-04T14:25:00Z'), second, 'Pacific/Auckland'), '5 min ago');
  });
});

describe('timeTag', () => {
  it('keeps the exact instant, with the offset of its zone, in the tooltip only', () => {
    const tag = timeTag(Date.parse('2026-04-04T13:30:00Z'), {
      now: at('2026-04-04T14:30:00Z'),
      zone: 'Pacific/Auckland',
    });
    assert.equal(
      tag.value,
      '<time datetime="2026-04-04T13:30:00Z" title="2026-04-05T02:30+13:00">today 02:30</time>',
    );
  });
});

describe('dayName', () => {
  it('heads a day with its weekday, day and month', () => {
    assert.equal(dayName(Temporal.PlainDate.from('2026-03-03')), 'Tue 3 Mar');
  });
});
