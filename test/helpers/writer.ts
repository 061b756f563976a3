/** A person whose workspace allows writes, with an in-memory account and a read-and-write token for /mcp. */
import type { AppContext } from '../../src/context.ts';
import { defaultPolicy, type Scope } from '../../src/policy/workspacePolicy.ts';
import type { CalendarProvider } from '../../src/providers/port.ts';
import { savePolicy } from '../../src/store/workspaces.ts';
import { grantToken } from './grantToken.ts';
import { seedMemoryAccount } from './memoryCalendars.ts';
import { seedUser, seedWorkspace } from './seed.ts';

const scopes: Scope[] = ['calendar:read', 'calendar:write'];

export async function seedWriter(ctx: AppContext, provider: CalendarProvider<'google'>) {
  const userId = await seedUser(ctx.db, 'ana@example.org');
  const workspaceId = await seedWorkspace(ctx.db, 'Acme', [[userId, 'owner']]);
  await savePolicy(ctx.db, workspaceId, { ...defaultPolicy, allowedScopes: scopes }, 0);
  const calendars = await seedMemoryAccount(ctx, { userId, workspaceId }, provider);
  const { token } = await grantToken(ctx, {
    userId,
    workspaceId,
    calendars: calendars.map((calendarId) => ({ calendarId, detailLevel: 'full' })),
    scopes,
  });
  return { userId, workspaceId, calendars, token };
}
