/** The expansion pool: work off the request thread, a hard deadline, turns between owners, a bounded queue. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calendarLimits } from '../../src/domain/budget.ts';
import { createExpansionPool } from '../../src/providers/expansionPool.ts';
import { hostileZoneCalendar, impossibleRules } from '../domain/hostileCalendars.ts';

const window = {
  start: Temporal.Instant.from('2026-03-01T00:00:00Z'),
  end: Temporal.Instant.from('2026-04-01T00:00:00Z'),
};
// No budget of its own: only the hard deadline can stop these jobs.
const unbounded = { ...calendarLimits, ruleSteps: Number.POSITIVE_INFINITY, timeMs: 600_000 };

describe('expansion pool', () => {
  it('expands in a worker and reports objects it cannot read', async () => {
    const pool = createExpansionPool({ workers: 1 });
    try {
      const answer = await pool.expand(
        'ana',
        [{ ics: hostileZoneCalendar('2026') }, { ics: 'not a calendar' }],
        {
          window,
        },
      );
      const [zoned, broken] = answer.results;
      assert.ok(zoned !== undefined && 'occurrences' in zoned);
      assert.deepEqual(
        zoned.occurrences.map((occurrence) => occurrence.providerEventId),
        ['plain'],
      );
      assert.deepEqual(broken, { error: 'The text is not an iCalendar document.' });
    } finally {
      await pool.close();
    }
  });

  it('moves a REPORT answer that owns its buffer to the worker, and copies one that shares it', async () => {
    const pool = createExpansionPool({ workers: 1 });
    const xml = (uid: string) =>
      `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:response><d:href>/cal/${uid}.ics</d:href><d:propstat><d:prop><d:getetag>"1"</d:getetag><c:calendar-data>${hostileZoneCalendar('2026').replaceAll('plain', uid)}</c:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>`;
    const request = {
      calendarUrl: 'https://dav.example.com/cal/',
      base: 'https://dav.example.com/cal/',
      window,
      selfAddresses: [],
    };
    const ids = (answer: Awaited<ReturnType<typeof pool.report>>) =>
      'error' in answer ? answer : answer.objects.flatMap((o) => o.occurrences.map((x) => x.providerEventId));
    try {
      const own = new TextEncoder().encode(xml('moved'));
      assert.deepEqual(ids(await pool.report('ana', own, request)), ['moved.ics#moved']);
      assert.equal(own.byteLength, 0, 'the bytes moved, not copied');
      // A view into a buffer that holds more (another answer, Node's pool) is never taken from its owner.
      const text = new TextEncoder().encode(xml('copied'));
      const shared = new Uint8Array(text.length + 16);
      shared.set(text, 8);
      const view = shared.subarray(8, 8 + text.length);
      assert.deepEqual(ids(await pool.report('ana', view, request)), ['copied.ics#copied']);
      assert.equal(shared.byteLength, text.length + 16);
      assert.deepEqual(view, text);
    } finally {
      await pool.close();
    }
  });

  it('terminates a job past its hard deadline, and a new worker takes the next job', async () => {
    // The deadline also bounds the next job, which runs cold in a fresh worker: ample for it on a busy machine.
    const pool = createExpansionPool({ workers: 1, limits: unbounded, hardTimeoutMs: 1_500 });
    try {
      await assert.rejects(pool.expand('ana', [{ ics: impossibleRules(50) }], { window }), {
        code: 'provider_unavailable',
        message: /takes too long to read/,
      });
      const answer = await pool.expand('ana', [{ ics: hostileZoneCalendar('1600') }], { window });
      assert.equal(answer.results.length, 1);
    } finally {
      await pool.close();
    }
  });

  it('takes turns between owners: a backlog of slow calendars does not hold back another account', async () => {
    const pool = createExpansionPool({ workers: 1, limits: unbounded, hardTimeoutMs: 1_000 });
    const done: string[] = [];
    const settle = (label: string, job: Promise<unknown>) =>
      job.then(
        () => done.push(label),
        () => done.push(label),
      );
    try {
      await Promise.all([
        settle('mallory 1', pool.expand('mallory', [{ ics: impossibleRules(50) }], { window })),
        settle('mallory 2', pool.expand('mallory', [{ ics: impossibleRules(50) }], { window })),
        settle('mallory 3', pool.expand('mallory', [{ ics: impossibleRules(50) }], { window })),
        settle('ana', pool.expand('ana', [{ ics: impossibleRules(1) }], { window })),
      ]);
      assert.deepEqual(done, ['mallory 1', 'ana', 'mallory 2', 'mallory 3']);
    } finally {
      await pool.close();
    }
  });

  it('refuses jobs at once when its queue is full', async () => {
    const pool = createExpansionPool({ workers: 1, limits: unbounded, hardTimeoutMs: 2_000, maxQueued: 1 });
    try {
      const running = pool.expand('ana', [{ ics: impossibleRules(50) }], { window });
      const queued = pool.expand('ana', [{ ics: impossibleRules(50) }], { window });
      await assert.rejects(pool.expand('ana', [{ ics: impossibleRules(1) }], { window }), {
        code: 'provider_unavailable',
        message: /Too many calendars/,
      });
      await Promise.allSettled([running, queued]);
    } finally {
      await pool.close();
    }
  });
});
