/**
 * The rooms a person's own accounts in a workspace can list (Graph places, Google resource
 * calendars, CalDAV principals of type ROOM), each marked with its provider. An account that
 * cannot list rooms (ICS), is not active, or fails, adds none; how many failed is said so the
 * page can tell.
 */
import type { Room } from '../../domain/rooms.ts';
import { isAppError } from '../../errors.ts';
import { providerFor } from '../../providers/registry.ts';
import { accountsOf } from '../../store/connectedAccounts.ts';
import { type ConnectionDeps, type Owner, withConnection } from './connections.ts';

export interface ListedRooms {
  rooms: Array<Room & { source: string }>;
  /** Accounts that could list rooms but did not answer with them. */
  failed: number;
}

export async function connectionRooms(deps: ConnectionDeps, owner: Owner): Promise<ListedRooms> {
  const listed: ListedRooms = { rooms: [], failed: 0 };
  for (const account of await accountsOf(deps.db, owner.userId, owner.workspaceId)) {
    const provider = providerFor(deps.providers, account.provider);
    if (provider.listRooms === undefined || account.status !== 'active') continue;
    try {
      const rooms = await withConnection(deps, account, (access) => provider.listRooms!(access));
      listed.rooms.push(...rooms.map((room) => ({ ...room, source: account.provider })));
    } catch (error) {
      if (!isAppError(error)) throw error;
      listed.failed += 1;
    }
  }
  return listed;
}
