/**
 * The multi-user benchmark's organisation: one workspace of `count` people, each with a connected
 * Google account of 20 calendars × 1,000 events (bench/seed.ts's calendars, from the in-memory
 * provider), each granted to a client; the first ones' calendars synced into the copies by the
 * service's own rounds (adapter batches → applyBatch), as an instance makes them.
 */
import { sql } from 'kysely';
import type { AppContext } from '../src/context.ts';
import { epochMs } from '../src/lib/clock.ts';
import { tools } from '../src/mcp/tools/index.ts';
import type { CalendarProvider } from '../src/providers/port.ts';
import { reconcileCopies } from '../src/store/copyMembership.ts';
import { engineOf } from '../src/store/database.ts';
import type { SyncService } from '../src/sync/syncService.ts';
import { grantToken } from '../test/helpers/grantToken.ts';
import { seedMemoryAccount } from '../test/helpers/memoryCalendars.ts';
import { seedUser, seedWorkspace } from '../test/helpers/seed.ts';
import { copyCopies } from './bulkCopies.ts';
import { modernCall, type Target } from './measure.ts';
import { benchProvider, calendarCount, eventsPerCalendar, searchWord, window } from './seed.ts';

export interface Member {
  userId: string;
  workspaceId: string;
  calendarIds: string[];
  /** Read-only tokens for the MCP and REST resources, on the grant of every calendar in full. */
  mcpToken: string;
  v1Token: string;
}

export interface Organisation {
  members: Member[];
  events: number;
  /** Members whose calendars the rounds synced (the first ones); the others' copies are theirs copied in bulk. */
  synced: number;
  /** The first sync of the synced members' calendars, and its events. */
  syncMs: number;
  syncedEvents: number;
  /** The bulk copies of the others' calendars. */
  copyMs: number;
}

/**
 * People synced by the rounds (default 10): 1,000,000 events through them would take most of
 * the bench's ten minutes on two cores; the rest are given the synced copies by bench/bulkCopies.ts.
 */
const syncedPeople = Number(process.env.BENCH_SYNCED_USERS ?? 10);

/** `count` members, each with an account of the provider's calendars and two grants of all of them. */
export async function seedOrganisation(
  ctx: AppContext,
  sync: SyncService,
  count: number,
  provider: CalendarProvider<'google'> = benchProvider(),
): Promise<Organisation> {
  const userIds: string[] = [];
  for (let i = 0; i < count; i++) userIds.push(await seedUser(ctx.db, `member${i}@example.test`));
  const workspaceId = await seedWorkspace(
    ctx.db,
    'Organisation',
    userIds.map((userId) => [userId, 'member']),
  );
  const join = async (userId: string): Promise<Member> => {
    const owner = { userId, workspaceId };
    const calendarIds = await seedMemoryAccount(ctx, owner, provider);
    const calendars = calendarIds.map((calendarId) => ({ calendarId, detailLevel: 'full' as const }));
    const token = async (resource: 'mcp' | 'v1') =>
      (await grantToken(ctx, { ...owner, calendars, resource })).token;
    return { ...owner, calendarIds, mcpToken: await token('mcp'), v1Token: await token('v1') };
  };
  const synced = Math.min(count, Math.max(1, syncedPeople));
  const members: Member[] = [];
  for (const userId of userIds.slice(0, synced)) members.push(await join(userId));
  let started = performance.now();
  while ((await sync.runDue()) > 0);
  const syncMs = performance.now() - started;

  for (const userId of userIds.slice(synced)) members.push(await join(userId));
  started = performance.now();
  // The new grants' copies, made now as a round would; then filled before any round syncs them.
  await reconcileCopies(ctx.db, epochMs(ctx.clock));
  for (const [i, member] of members.slice(synced).entries()) {
    const source = members[i % synced]!;
    await copyCopies(
      ctx.db,
      engineOf(ctx.db),
      member.calendarIds.map((to, c) => ({ from: source.calendarIds[c]!, to })),
    );
  }
  const copyMs = performance.now() - started;
  // Read as autovacuum leaves the tables after its next pass (within a minute of a load this
  // size): statistics for the planner, a visibility map for index-only scans, hint bits set (a
  // row's first reader would set them, writing its page). The staging tables, emptied by every
  // sync's end, are truncated by that pass.
  if (engineOf(ctx.db) === 'postgres')
    await sql`vacuum (analyze) copy_occurrences, copy_items, copy_words, copy_starts, copy_staged_occurrences, copy_staged_items`.execute(
      ctx.db,
    );
  const perMember = calendarCount * eventsPerCalendar;
  return {
    members,
    events: count * perMember,
    synced,
    syncMs,
    syncedEvents: synced * perMember,
    copyMs,
  };
}

/** The member's search over all their calendars, over MCP. */
export const searchCall = (member: Member): Target =>
  toolCall(member, 'search_events', { query: searchWord });

/** The first page of all the member's events, over REST. */
export const eventsCall = (member: Member): Target => ({
  path: `/v1/events?${new URLSearchParams({ calendar_id: member.calendarIds.join(','), ...window })}`,
  headers: { authorization: `Bearer ${member.v1Token}` },
});

/**
 * A read-only tool over all the member's calendars and the whole window: of those arguments, the
 * ones the tool lists (`get_current_time` and `list_calendars` take none; a closed input refuses
 * any other). A name the service does not know gets them all, and its error.
 */
export function toolCall(member: Member, name: string, args: Record<string, unknown> = {}): Target {
  const given: Record<string, unknown> = { calendarIds: member.calendarIds, ...window, ...args };
  const listed = tools.find((tool) => tool.name === name)?.inputSchema.properties as object | undefined;
  const taken =
    listed === undefined ? given : Object.fromEntries(Object.entries(given).filter(([key]) => key in listed));
  return modernCall(member.mcpToken, name, taken);
}
