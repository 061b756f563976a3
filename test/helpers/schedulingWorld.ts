/**
 * The Monday the scheduling tests meet on: 2 March 2026 in Berlin (UTC+1), the app's clock at
 * noon on the Sunday before. Acme's people are seeded directly, the app listens with the
 * providers the test gives, and the caller's MCP client holds a token for the calendars the test
 * names once the copies have synced. Each test keeps its own calendars, events and outsiders.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import type { Kysely } from 'kysely';
import type { ProviderOccurrence } from '../../src/domain/providerFacts.ts';
import type { Providers } from '../../src/providers/registry.ts';
import type { Database } from '../../src/store/schema.ts';
import { startTestApp, type TestApp } from './app.ts';
import { TestClock } from './clock.ts';
import { type GrantSpec, grantToken } from './grantToken.ts';
import { type MemoryCalendar, memoryProvider, occurrence, seedMemoryAccount } from './memoryCalendars.ts';
import { connectedClient, type RecordedClient, recordedClient } from './recordedClient.ts';
import { seedUser, seedWorkspace } from './seed.ts';

export const berlin = 'Europe/Berlin';
/** All of Monday 2 March 2026 in Berlin. */
export const monday = { start: '2026-03-02T00:00:00+01:00', end: '2026-03-03T00:00:00+01:00' };

/** From `start` to `end` (HH:MM) on the Monday, Berlin time, as the tools write it. */
export const hour = (start: string, end: string) => ({
  start: `2026-03-02T${start}:00+01:00`,
  end: `2026-03-02T${end}:00+01:00`,
});

/** Hour-long slots on the Monday starting at each of `starts` (HH:MM), each saying `who` (free, unknown …). */
export const hourSlots = (starts: string[], who: Record<string, unknown>) =>
  starts.map((start) => ({
    ...hour(start, Temporal.PlainTime.from(start).add({ hours: 1 }).toString({ smallestUnit: 'minute' })),
    ...who,
  }));

/** An event at `time` (HH:MM) on the Monday in Berlin, an hour long unless `more` says otherwise. */
export const mondayAt = (time: string, title: string, more: Partial<ProviderOccurrence> = {}) =>
  occurrence({ start: `2026-03-02T${time}:00`, timeZone: berlin, title, ...more });

/** A calendar in memory, kept in Berlin time, holding `occurrences`. */
export const berlinCalendar = (
  name: string,
  occurrences: ProviderOccurrence[] = [],
  more: Partial<MemoryCalendar> = {},
): MemoryCalendar => ({ name, timeZone: berlin, occurrences, ...more });

/** Noon UTC on Sunday 1 March 2026: the app's clock, to share with the adapters built before it. */
export const sundayClock = () => new TestClock('2026-03-01T12:00:00Z');

/** The app listening on `clock` (the Sunday's by default) with these calendar providers. */
export function startSchedulingApp(
  providers: Providers,
  options: { clock?: TestClock; env?: Record<string, string> } = {},
): Promise<TestApp> {
  return startTestApp({ listen: true, clock: options.clock ?? sundayClock(), env: options.env, providers });
}

/** Acme with the first address as its owner and the others as members; user ids in that order. */
export async function seedAcme<const Emails extends readonly string[]>(
  db: Kysely<Database>,
  emails: Emails,
): Promise<{ workspaceId: string; userIds: { [K in keyof Emails]: string } }> {
  const userIds: string[] = [];
  for (const email of emails) userIds.push(await seedUser(db, email));
  const workspaceId = await seedWorkspace(
    db,
    'Acme',
    userIds.map((id, i) => [id, i === 0 ? 'owner' : 'member']),
  );
  return { workspaceId, userIds: userIds as { [K in keyof Emails]: string } };
}

/**
 * The app with one person, Ana alone in Acme, whose Google account's calendars are `calendars`
 * (in memory, read live): the calendars' ids in the map's order.
 */
export async function startAnaAlone(calendars: Map<string, MemoryCalendar>) {
  const provider = memoryProvider('google', calendars);
  const t = await startSchedulingApp({ google: provider });
  const {
    workspaceId,
    userIds: [userId],
  } = await seedAcme(t.ctx.db, ['ana@example.org']);
  const calendarIds = await seedMemoryAccount(t.ctx, { userId, workspaceId }, provider);
  return { t, userId, workspaceId, calendarIds };
}

/** A grant to /mcp: who, in which workspace, which calendars at which level, which scopes. */
type McpGrant = Omit<GrantSpec, 'resource'>;
const mcpToken = async (t: TestApp, grant: McpGrant) =>
  (await grantToken(t.ctx, { ...grant, resource: 'mcp' })).token;

/** The SDK's MCP client on a token for `grant`, the copies left as they are. */
export async function mcpClient(t: TestApp, grant: McpGrant, name: string): Promise<Client> {
  return connectedClient(`${t.ctx.config.baseUrl}/mcp`, await mcpToken(t, grant), name);
}

/** The caller's recorded MCP client on a token for `grant`, after a round of syncing the copies. */
export async function syncedClient(t: TestApp, grant: McpGrant, name: string): Promise<RecordedClient> {
  const token = await mcpToken(t, grant);
  await t.sync.runDue();
  await t.sync.idle();
  return recordedClient(`${t.ctx.config.baseUrl}/mcp`, token, name);
}

/** An attendee of get_availability whose busy time `source` told. */
export const knownVia = (email: string, source: string) => ({ email, availability: 'known', source });

/** An attendee of get_availability whose busy time is unknown, and why. */
export const unknownBecause = (email: string, reason: string) => ({ email, availability: 'unknown', reason });

/** None of `words`, in any case, is in `bytes`: what came over the wire. */
export function assertNoneLeft(bytes: string, words: readonly string[]): void {
  for (const word of words)
    assert.ok(!bytes.toLowerCase().includes(word.toLowerCase()), `"${word}" left the service`);
}
