/**
 * Page cursors: positions after the last event returned, bound by a MAC to the grant and the
 * exact request; anything foreign or altered is invalid_request before anything is read.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createPager } from '../../src/calendars/reads/cursor.ts';
import { compareEvents, type PlacedEvent } from '../../src/domain/occurrences.ts';
import type { ReadRequest } from '../../src/domain/readRequest.ts';
import { AppError } from '../../src/errors.ts';

const key = randomBytes(32);
const grant = 'grt_one';

const request: ReadRequest = {
  calendarIds: ['cal_a', 'cal_b'],
  window: {
    start: Temporal.Instant.from('2026-03-02T00:00:00Z'),
    end: Temporal.Instant.from('2026-03-09T00:00:00Z'),
  },
};

function placed(start: string, calendarId: string, occurrenceId: string): PlacedEvent {
  const instant = Temporal.Instant.from(start);
  const end = instant.add({ hours: 1 });
  return {
    startMs: instant.epochMilliseconds,
    startNs: instant.epochNanoseconds,
    endNs: end.epochNanoseconds,
    event: {
      eventId: `evt_${occurrenceId}`,
      calendarId,
      occurrenceId,
      title: occurrenceId,
      start: start.slice(0, 19),
      timeZone: 'Etc/UTC',
      duration: 'PT1H',
      showWithoutTime: false,
      status: 'confirmed',
      freeBusyStatus: 'busy',
      canRespond: false,
      canEdit: false,
    },
  };
}

/** Seven events; three share one start instant, two of them in the same calendar. */
const events: PlacedEvent[] = [
  placed('2026-03-02T09:00:00Z', 'cal_a', 'occ_1'),
  placed('2026-03-02T10:00:00Z', 'cal_a', 'occ_2'),
  placed('2026-03-02T10:00:00Z', 'cal_a', 'occ_3'),
  placed('2026-03-02T10:00:00Z', 'cal_b', 'occ_0'),
  placed('2026-03-03T08:00:00Z', 'cal_b', 'occ_4'),
  placed('2026-03-04T08:00:00.000000001Z', 'cal_a', 'occ_5'),
  placed('2026-03-05T08:00:00Z', 'cal_b', 'occ_6'),
].sort(compareEvents);

const titles = (items: readonly PlacedEvent[]) => items.map((p) => p.event.occurrenceId);

/** A pager, with its pages made as the read service makes them: what `wanted` asks for, then `page`. */
const pager = (cursor?: string, options: { grantId?: string; req?: ReadRequest; secret?: Buffer } = {}) => {
  const made = createPager(options.secret ?? key, options.grantId ?? grant, options.req ?? request, {
    value: cursor,
    field: 'cursor',
  });
  return {
    page(list: readonly PlacedEvent[], limit: number) {
      const { after, first } = made.wanted(limit);
      const read = list.filter((e) => after === undefined || compareEvents(e, after) > 0).slice(0, first);
      return made.page(read, limit);
    },
  };
};

/** All pages of `list` at `limit`, following nextCursor. */
function allPages(list: readonly PlacedEvent[], limit: number): string[][] {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = pager(cursor).page(list, limit);
    pages.push(titles(page.items));
    cursor = page.nextCursor;
    assert.ok(pages.length <= list.length + 1, 'paging does not end');
  } while (cursor !== undefined);
  return pages;
}

function refusal(fn: () => unknown, what = 'expected a refusal'): { code: string; details: unknown } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError, `${what}: got ${String(error)}`);
    return { code: error.code, details: error.details };
  }
  assert.fail(what);
}

const invalidCursor = { code: 'invalid_request', details: { field: 'cursor' } };

describe('createPager', () => {
  it('orders by start instant, then calendar id, then occurrence id', () => {
    assert.deepEqual(titles(events), ['occ_1', 'occ_2', 'occ_3', 'occ_0', 'occ_4', 'occ_5', 'occ_6']);
  });

  it('returns everything on one page without a cursor when it fits', () => {
    const page = pager().page(events, 7);
    assert.deepEqual(titles(page.items), titles(events));
    assert.equal(page.nextCursor, undefined);
    assert.deepEqual(pager().page([], 5), { items: [] });
  });

  for (const limit of [1, 2, 3, 6]) {
    it(`pages of ${limit} cover every event once, in order`, () => {
      const pages = allPages(events, limit);
      assert.deepEqual(pages.flat(), titles(events));
      assert.ok(pages.every((p) => p.length === limit || p === pages.at(-1)));
      assert.equal(pages.length, Math.ceil(events.length / limit));
    });
  }

  it('splits between events that share a start instant (and a calendar) without losing one', () => {
    assert.deepEqual(allPages(events, 2), [
      ['occ_1', 'occ_2'],
      ['occ_3', 'occ_0'],
      ['occ_4', 'occ_5'],
      ['occ_6'],
    ]);
  });

  it('continues after the position, so events added or removed before it never shift the next page', () => {
    const first = pager().page(events, 3);
    assert.deepEqual(titles(first.items), ['occ_1', 'occ_2', 'occ_3']);
    // occ_2 and occ_3 are gone and one event appears before the position; the next page starts after occ_3's place.
    const changed = [
      placed('2026-03-02T08:00:00Z', 'cal_a', 'occ_new'),
      ...events.filter((e) => e.event.occurrenceId !== 'occ_2' && e.event.occurrenceId !== 'occ_3'),
    ].sort(compareEvents);
    const second = pager(first.nextCursor).page(changed, 3);
    assert.deepEqual(titles(second.items), ['occ_0', 'occ_4', 'occ_5']);
  });

  it('answers an empty last page when everything after the position is gone', () => {
    const first = pager().page(events, 6);
    assert.deepEqual(pager(first.nextCursor).page(events.slice(0, 6), 6), { items: [] });
  });

  it('binds the cursor to the calendar set, not to the order the ids were given in', () => {
    const { nextCursor } = pager().page(events, 2);
    const reordered = { ...request, calendarIds: ['cal_b', 'cal_a'] };
    assert.deepEqual(titles(pager(nextCursor, { req: reordered }).page(events, 2).items), ['occ_3', 'occ_0']);
  });

  it('refuses a cursor of another grant', () => {
    const { nextCursor } = pager().page(events, 2);
    assert.deepEqual(
      refusal(() => pager(nextCursor, { grantId: 'grt_other' })),
      invalidCursor,
    );
  });

  it('refuses a cursor signed with another key', () => {
    const { nextCursor } = pager().page(events, 2);
    assert.deepEqual(
      refusal(() => pager(nextCursor, { secret: randomBytes(32) })),
      invalidCursor,
    );
  });

  const otherRequests: Array<[string, ReadRequest]> = [
    ['another calendar set', { ...request, calendarIds: ['cal_a'] }],
    ['one more calendar', { ...request, calendarIds: ['cal_a', 'cal_b', 'cal_c'] }],
    [
      'another start',
      { ...request, window: { ...request.window, start: request.window.start.add({ seconds: 1 }) } },
    ],
    [
      'another end',
      { ...request, window: { ...request.window, end: request.window.end.add({ hours: -1 }) } },
    ],
    ['a time zone added', { ...request, timeZone: 'Europe/Berlin' }],
  ];
  for (const [what, other] of otherRequests) {
    it(`refuses a cursor reused with ${what}`, () => {
      const { nextCursor } = pager().page(events, 2);
      assert.deepEqual(
        refusal(() => pager(nextCursor, { req: other })),
        invalidCursor,
      );
    });
  }

  it('refuses a cursor reused with another time zone', () => {
    const zoned = { ...request, timeZone: 'Europe/Berlin' };
    const { nextCursor } = pager(undefined, { req: zoned }).page(events, 2);
    assert.deepEqual(
      refusal(() => pager(nextCursor, { req: { ...request, timeZone: 'Europe/Paris' } })),
      invalidCursor,
    );
    assert.deepEqual(titles(pager(nextCursor, { req: zoned }).page(events, 2).items), ['occ_3', 'occ_0']);
  });

  it('accepts the same window written with another offset (it is the same request)', () => {
    const { nextCursor } = pager().page(events, 2);
    const same = {
      ...request,
      window: {
        start: Temporal.Instant.from('2026-03-02T01:00:00+01:00'),
        end: Temporal.Instant.from('2026-03-08T19:00:00-05:00'),
      },
    };
    assert.deepEqual(titles(pager(nextCursor, { req: same }).page(events, 2).items), ['occ_3', 'occ_0']);
  });

  it('refuses tampered, truncated, foreign and oversized cursors', () => {
    const cursor = pager().page(events, 2).nextCursor!;
    const [body, signature] = cursor.split('.') as [string, string];
    assert.match(body, /^[A-Za-z0-9_-]+$/);
    assert.match(signature, /^[A-Za-z0-9_-]{22}$/);
    // A body that points somewhere else, signed with nothing it could know.
    const forged = Buffer.from(JSON.stringify(['0', 'cal_a', 'occ_1'])).toString('base64url');
    const flip = (text: string, i: number) =>
      text.slice(0, i) + (text[i] === 'A' ? 'B' : 'A') + text.slice(i + 1);
    const bad = [
      '',
      'x',
      '.',
      body,
      `${body}.`,
      `.${signature}`,
      `${flip(body, 0)}.${signature}`,
      `${flip(body, body.length - 1)}.${signature}`,
      `${body}.${flip(signature, 0)}`,
      `${body}.${signature.slice(0, -1)}`,
      `${body}.${signature}x`,
      `${forged}.${signature}`,
      `${body}x.${signature}`,
      `${cursor} `,
      'a'.repeat(2000),
      `${body}.${signature}${'A'.repeat(1100)}`,
    ];
    for (const value of bad) {
      const what = `cursor ${JSON.stringify(value.slice(0, 80))}`;
      assert.deepEqual(
        refusal(() => pager(value), what),
        invalidCursor,
        what,
      );
    }
    // The untouched cursor still works.
    assert.deepEqual(titles(pager(cursor).page(events, 2).items), ['occ_3', 'occ_0']);
  });

  it('refuses a valid cursor with segments appended (a cursor is exactly body.signature)', () => {
    const cursor = pager().page(events, 2).nextCursor!;
    for (const value of [`${cursor}.extra`, `${cursor}.`, `${cursor}..`]) {
      const what = `cursor ${JSON.stringify(value)}`;
      assert.deepEqual(
        refusal(() => pager(value), what),
        invalidCursor,
        what,
      );
    }
  });

  it('names the field of the surface in the error', () => {
    assert.deepEqual(
      refusal(() => createPager(key, grant, request, { value: 'nope', field: 'pageToken' })),
      { code: 'invalid_request', details: { field: 'pageToken' } },
    );
  });
});
