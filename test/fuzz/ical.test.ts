/**
 * Property-based fuzzing of iCalendar input: the project's fixtures, mutated line by line and
 * given hostile rules, times and zones, are expanded directly and served as an ICS subscription
 * read through `GET /v1/events` on both engines. Expansion returns well-formed occurrences or
 * throws an AppError with a catalogue code; the service never answers 5xx. Time-bounded; the
 * case count is printed.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { addConnection } from '../../src/calendars/connections/connections.ts';
import { expandIcs } from '../../src/domain/ical/expand.ts';
import { errorCatalogue, isAppError } from '../../src/errors.ts';
import { fixture, fixtureNames } from '../domain/icalFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { assertOccurrenceShape } from '../helpers/occurrenceShape.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const codes = new Set(Object.keys(errorCatalogue));
const casesRun: string[] = [];
const window = {
  start: Temporal.Instant.from('2026-03-01T00:00:00Z'),
  end: Temporal.Instant.from('2026-04-01T00:00:00Z'),
};

const dateTime = fc.oneof(
  fc.constantFrom(
    '20260315T093000',
    '20260315T093000Z',
    '20260329T023000',
    '19700101T000000',
    '20260230T000000',
  ),
  fc.constantFrom('20260315', '99991231T235959Z', '00000000T000000', 'T', '2026-03-15T09:30:00', ''),
  fc.string({ maxLength: 20 }),
);
const ruleParts = fc.record(
  {
    FREQ: fc.constantFrom(
      'SECONDLY',
      'MINUTELY',
      'HOURLY',
      'DAILY',
      'WEEKLY',
      'MONTHLY',
      'YEARLY',
      'FORTNIGHTLY',
    ),
    INTERVAL: fc.oneof(fc.integer({ min: -1, max: 1000 }), fc.string({ maxLength: 4 })),
    COUNT: fc.integer({ min: -1, max: 1_000_000 }),
    UNTIL: dateTime,
    BYDAY: fc.constantFrom('MO', '-1FR', '2TU,4TH', '53SU', 'XX', '+5MO,-5MO'),
    BYMONTHDAY: fc.integer({ min: -40, max: 40 }),
    BYMONTH: fc.integer({ min: 0, max: 14 }),
    BYSETPOS: fc.integer({ min: -400, max: 400 }),
    BYHOUR: fc.integer({ min: -1, max: 25 }),
    WKST: fc.constantFrom('MO', 'SU', 'ZZ'),
  },
  { requiredKeys: ['FREQ'] },
);
const rrule = ruleParts.map(
  (parts) =>
    `RRULE:${Object.entries(parts)
      .map(([k, v]) => `${k}=${v}`)
      .join(';')}`,
);
const zone = fc.constantFrom(
  'Europe/Berlin',
  'W. Europe Standard Time',
  '/freeassociation.sourceforge.net/Tzfile/Europe/Paris',
  'Mars/Olympus',
  '"Quoted Zone"',
  '',
);
/** Content lines a hostile calendar might carry. */
const hostileLine = fc.oneof(
  rrule,
  fc.tuple(zone, dateTime).map(([z, d]) => `DTSTART;TZID=${z}:${d}`),
  dateTime.map((d) => `DTSTART:${d}`),
  dateTime.map((d) => `DTEND;VALUE=DATE:${d}`),
  fc.array(dateTime, { maxLength: 5 }).map((ds) => `EXDATE:${ds.join(',')}`),
  fc
    .tuple(dateTime, fc.constantFrom('PT1H', 'P1D', '-PT1H', 'P99999W', 'PT', 'X'))
    .map(([d, p]) => `RDATE;VALUE=PERIOD:${d}/${p}`),
  fc.constantFrom('DURATION:P1D', 'DURATION:-P1D', 'DURATION:P100000D', 'DURATION:nonsense'),
  fc.constantFrom(
    'RECURRENCE-ID;RANGE=THISANDFUTURE:20260315T093000Z',
    'RECURRENCE-ID:garbage',
    'UID:',
    'UID:x',
  ),
  fc.constantFrom(
    'BEGIN:VEVENT',
    'END:VEVENT',
    'BEGIN:VTIMEZONE',
    'END:VCALENDAR',
    'BEGIN:VALARM',
    'TRIGGER:-PT15M',
  ),
  fc.constantFrom(
    'CLASS:SECRET',
    'TRANSP:OPAQUE',
    'STATUS:CANCELLED',
    'ATTENDEE:mailto:',
    'ORGANIZER;CN="x":mailto:a@b',
  ),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ maxLength: 60 }).map((s) => `SUMMARY:${s}`),
);
type Edit = { at: number; op: 'insert' | 'replace' | 'delete'; line: string };
const edits = fc.array(
  fc.record({
    at: fc.nat(),
    op: fc.constantFrom('insert', 'replace', 'delete'),
    line: hostileLine,
  }) as fc.Arbitrary<Edit>,
  { minLength: 1, maxLength: 8 },
);

function mutate(text: string, changes: Edit[]): string {
  const lines = text.split(/\r?\n/);
  for (const { at, op, line } of changes) {
    const i = at % Math.max(1, lines.length);
    if (op === 'insert') lines.splice(i, 0, line);
    else if (op === 'replace') lines[i] = line;
    else lines.splice(i, 1);
  }
  return lines.join('\r\n');
}

const hostileCalendar = fc
  .tuple(fc.constantFrom(...fixtureNames()), edits)
  .map(([name, changes]) => mutate(fixture(name), changes));

/** Runs `check` on generated inputs until `ms` elapse; records how many ran. */
async function run<T>(name: string, ms: number, inputs: fc.Arbitrary<T>, check: (input: T) => Promise<void>) {
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(inputs, async (input) => {
      cases += 1;
      await check(input);
    }),
    { numRuns: 1_000_000, interruptAfterTimeLimit: ms, markInterruptAsFailure: false },
  );
  casesRun.push(`${name}: ${cases}`);
  assert.ok(cases > 0);
}

// Asked before any test runs: the expansion property keeps the event loop busy for seconds.
const engines = await enginesUnderTest();

describe('fuzzing iCalendar expansion', () => {
  it('expands mutated fixtures into well-formed occurrences, or refuses with a catalogue code', async () => {
    await run('expansion', 8_000, hostileCalendar, async (ics) => {
      try {
        const result = expandIcs(ics, { window });
        for (const occurrence of result.occurrences) assertOccurrenceShape(occurrence);
        for (const item of result.skipped) assert.equal(typeof item.reason, 'string');
      } catch (error) {
        if (!isAppError(error) || !codes.has(error.code)) throw error;
      }
    });
  });
});

for (const engine of engines) {
  describe(`fuzzing an ICS subscription through GET /v1/events (${engine.name})`, {
    skip: engine.skip,
  }, () => {
    let t: TestApp;
    let feed: Server;
    let body = '';
    let token: string;
    let calendarId: string;

    before(async () => {
      feed = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/calendar' });
        response.end(body);
      });
      await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
      t = await startTestApp({
        database: await engine.open(),
        adapters: {},
        env: { ICS_ALLOW_PRIVATE_NETWORKS: 'true' },
      });
      const userId = await seedUser(t.ctx.db, 'feed@example.test');
      const workspaceId = await seedWorkspace(t.ctx.db, 'Feeds', [[userId, 'owner']]);
      body = fixture(fixtureNames()[0]!);
      const { port } = feed.address() as AddressInfo;
      const { calendars } = await addConnection(
        t.ctx,
        { userId, workspaceId },
        { kind: 'ics', url: `http://127.0.0.1:${port}/feed.ics` },
        'Fuzzed feed',
      );
      calendarId = calendars[0]!.id;
      token = (
        await grantToken(t.ctx, {
          userId,
          workspaceId,
          calendars: [{ calendarId, detailLevel: 'full' }],
          resource: 'v1',
        })
      ).token;
    });
    after(async () => {
      await t?.close();
      feed?.close();
    });

    it('answers every mutated feed with events or a stated exclusion, never 5xx', async () => {
      await run(`${engine.name} feed`, 4_000, hostileCalendar, async (ics) => {
        body = ics;
        const query = new URLSearchParams([
          ['calendar_id', calendarId],
          ['start', window.start.toString()],
          ['end', window.end.toString()],
          ['time_zone', 'Europe/Berlin'],
        ]);
        const response = await t.app.inject({
          url: `/v1/events?${query}`,
          headers: { authorization: `Bearer ${token}` },
        });
        assert.ok(response.statusCode < 500, `HTTP ${response.statusCode}: ${response.body.slice(0, 300)}`);
        if (response.statusCode >= 400) assert.ok(codes.has(response.json().code), response.body);
      });
    });
  });
}

after(() => {
  process.stdout.write(`fuzz cases: ${casesRun.join(', ')}\n`);
});
