/**
 * Store ≡ live: the same queries over the same calendars answered by reading every provider and
 * by reading the synced copies must be identical, byte for byte, on every read surface (REST
 * events, search, list, availability), at every detail level, with private events, all-day and
 * floating times, series, long and zero-length events, DST weeks and several zones. The copy's
 * answers must come without a single provider read; the adapters' own suites show that their
 * sync reports the same occurrences as their live listing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { CalendarProvider } from '../../src/providers/port.ts';
import { openDatabase } from '../../src/store/database.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { grantToken } from '../helpers/grantToken.ts';
import { callToolRaw } from '../helpers/mcpSession.ts';
import {
  type MemoryCalendar,
  memoryProvider,
  occurrence,
  ownFacts,
  seedMemoryAccount,
} from '../helpers/memoryCalendars.ts';
import { getEvents, type QueryPairs } from '../helpers/restClient.ts';
import { seedUser, seedWorkspace } from '../helpers/seed.ts';

const zoned =
  (zone: string) =>
  (start: string, id: string, fields: Partial<ProviderOccurrence> = {}) =>
    occurrence({ providerEventId: id, start, timeZone: zone, ...fields });
const berlin = zoned('Europe/Berlin');
const york = zoned('America/New_York');

/** A weekly series across Europe's DST change (29 March 2026), with one moved occurrence. */
const series = [0, 1, 2, 3].map((week) => {
  const day = Temporal.PlainDate.from('2026-03-16').add({ weeks: week });
  const original = `${day}T09:00:00`;
  return berlin(week === 2 ? `${day}T11:00:00` : original, 'standup', {
    recurrenceId: Temporal.PlainDateTime.from(original)
      .toZonedDateTime('Europe/Berlin')
      .toInstant()
      .toString(),
    title: week === 2 ? 'Standup (moved budget)' : 'Standup',
    facts: { ...ownFacts, recurring: true },
  });
});

const googleCalendars = new Map<string, MemoryCalendar>([
  [
    'work',
    {
      name: 'Work',
      timeZone: 'Europe/Berlin',
      occurrences: [
        ...series,
        berlin('2026-03-18T14:00:00', 'review', {
          title: 'Budget review with Müller',
          description: 'Numbers for the budget',
          categories: ['Finance'],
          locations: [{ name: 'Room 4' }],
          alerts: [{ offset: '-PT10M', action: 'display' }],
        }),
        berlin('2026-03-19T12:00:00', 'doctor', {
          title: 'Doctor',
          description: 'budget talk',
          privacy: 'private',
        }),
        occurrence({
          providerEventId: 'holiday',
          start: '2026-03-20T00:00:00',
          duration: 'P3D',
          showWithoutTime: true,
          title: 'Holiday',
          freeBusyStatus: 'free',
        }),
        berlin('2026-02-20T09:00:00', 'sabbatical', { title: 'Long budget project', duration: 'P60D' }),
        berlin('2026-03-25T10:00:00', 'deadline', { title: 'Budget deadline', duration: 'PT0S' }),
        berlin('2026-03-29T02:30:00', 'gap', { title: 'In the gap', duration: 'PT30M' }),
      ],
    },
  ],
  [
    'team',
    {
      name: 'Team',
      timeZone: 'America/New_York',
      access: 'writer',
      occurrences: [
        york('2026-03-18T03:00:00', 'planning', {
          title: 'Planning budget',
          description: 'hidden at titles',
        }),
        york('2026-03-31T23:30:00', 'late', { title: 'Late call' }),
      ],
    },
  ],
  [
    'busy',
    {
      name: 'Busy only',
      timeZone: 'Etc/UTC',
      occurrences: [
        zoned('Etc/UTC')('2026-03-18T10:00:00', 'b1', { title: 'Board budget', status: 'tentative' }),
      ],
    },
  ],
]);

/** CalDAV without a zone: floating and all-day times, placed with the zone the request gives. */
const davCalendars = new Map<string, MemoryCalendar>([
  [
    'floating',
    {
      name: 'Floating',
      occurrences: [
        occurrence({ providerEventId: 'f1', start: '2026-03-18T09:00:00', title: 'Floating budget coffee' }),
        occurrence({ providerEventId: 'f2', start: '2026-03-31T23:00:00', title: 'Edge of the window' }),
        occurrence({
          providerEventId: 'f3',
          start: '2026-03-19T00:00:00',
          duration: 'P1D',
          showWithoutTime: true,
          title: 'Day off',
        }),
      ],
    },
  ],
]);

/** Counts the live listings a provider answers. */
function counted<K extends 'google' | 'caldav'>(provider: CalendarProvider<K>) {
  const calls = { listEvents: 0 };
  const wrapped: CalendarProvider<K> = {
    ...provider,
    listEvents: (...args) => {
      calls.listEvents += 1;
      return provider.listEvents(...args);
    },
  };
  return { provider: wrapped, calls };
}

const windows: QueryPairs[] = [
  [
    ['start', '2026-03-16T00:00:00Z'],
    ['end', '2026-04-01T00:00:00Z'],
  ],
  [
    ['start', '2026-03-29T00:00:00+01:00'],
    ['end', '2026-03-30T00:00:00+02:00'],
  ],
  [
    ['start', '2026-03-01T00:00:00Z'],
    ['end', '2026-03-31T23:59:00Z'],
  ],
];
const zones = ['Europe/Berlin', 'Pacific/Auckland', 'America/Los_Angeles'];

describe('store ≡ live', () => {
  let t: TestApp;
  let calendarIds: string[];
  let tokens: { v1: string; mcp: string; v1Private: string };
  const google = counted(memoryProvider('google', googleCalendars));
  const dav = counted(memoryProvider('caldav', davCalendars));

  const dir = mkdtempSync(join(tmpdir(), 'store-live-'));

  before(async () => {
    // The database as the service opens it: a file whose heavy reads run on reader threads.
    t = await startTestApp({
      listen: true,
      providers: { google: google.provider, caldav: dav.provider },
      database: openDatabase({ sqlitePath: join(dir, 'db.sqlite'), readThreads: 2 }),
    });
    const userId = await seedUser(t.ctx.db, 'same@example.test');
    const workspaceId = await seedWorkspace(t.ctx.db, 'Same', [[userId, 'owner']]);
    const googleIds = await seedMemoryAccount(t.ctx, { userId, workspaceId }, google.provider);
    const davIds = await seedMemoryAccount(t.ctx, { userId, workspaceId }, dav.provider);
    calendarIds = [...googleIds, ...davIds];
    const levels = ['full', 'titles', 'busy', 'full'] as const;
    const calendars = calendarIds.map((calendarId, i) => ({ calendarId, detailLevel: levels[i]! }));
    tokens = {
      v1: (await grantToken(t.ctx, { userId, workspaceId, calendars, resource: 'v1' })).token,
      v1Private: (
        await grantToken(t.ctx, { userId, workspaceId, calendars, resource: 'v1', privateDetails: true })
      ).token,
      mcp: (await grantToken(t.ctx, { userId, workspaceId, calendars, resource: 'mcp' })).token,
    };
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every query of the contract, answered as the surfaces answer it. */
  async function answers(): Promise<unknown[]> {
    const out: unknown[] = [];
    const mcp = `${t.ctx.config.baseUrl}/mcp`;
    for (const window of windows) {
      for (const timeZone of zones) {
        const query: QueryPairs = [
          ['calendar_id', calendarIds.join(',')],
          ...window,
          ['time_zone', timeZone],
        ];
        for (const token of [tokens.v1, tokens.v1Private]) {
          const first = await getEvents(t.app, token, [...query, ['limit', '5']]);
          const cursor = (first.body as { meta?: { nextCursor?: string } }).meta?.nextCursor;
          out.push(first.status, first.body);
          if (cursor !== undefined)
            out.push((await getEvents(t.app, token, [...query, ['limit', '5'], ['cursor', cursor]])).body);
          out.push((await getEvents(t.app, token, query)).body);
        }
        const args = {
          calendarIds,
          start: window[0]![1],
          end: window[1]![1],
          timeZone,
        };
        for (const query of ['budget', 'standup', 'Müller budget', 'busy', 'free', 'hidden']) {
          out.push(await callToolRaw(mcp, tokens.mcp, 'search_events', { ...args, query, limit: 3 }));
        }
        out.push(await callToolRaw(mcp, tokens.mcp, 'list_events', args));
        out.push(await callToolRaw(mcp, tokens.mcp, 'get_availability', args));
      }
    }
    return out;
  }

  it('answers every query from the copies exactly as from the providers, without reading them', async () => {
    const live = await answers();
    assert.ok(google.calls.listEvents > 0 && dav.calls.listEvents > 0, 'the live answers read the providers');
    assert.equal(await t.sync.runDue(), calendarIds.length, 'every granted calendar is copied');
    google.calls.listEvents = 0;
    dav.calls.listEvents = 0;
    const copied = await answers();
    assert.deepEqual({ google: google.calls.listEvents, dav: dav.calls.listEvents }, { google: 0, dav: 0 });
    assert.equal(copied.length, live.length);
    for (let i = 0; i < live.length; i++) assert.deepEqual(copied[i], live[i], `answer ${i}`);
  });
});
