/** Grants in storage, on both engines: what a person sees of theirs, and the admin's metadata-only view. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  insertGrant,
  liveGrantMetadataOfWorkspace,
  liveGrantsOfUser,
  markGrantsRevoked,
} from '../../src/store/accessGrants.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`access grants (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    let userId: string;
    let workspaceId: string;
    let calendars: string[];

    before(async () => {
      handle = await engine.open();
      userId = await seedUser(handle.db, 'ana@example.org');
      workspaceId = await seedWorkspace(handle.db, 'Acme', [[userId, 'owner']]);
      calendars = await seedCalendars(handle.db, { userId, workspaceId }, [
        { name: 'Work' },
        { name: 'Home' },
      ]);
      const grant = (id: string, createdAt: number, cals: string[]) =>
        insertGrant(handle.db, {
          id,
          userId,
          workspaceId,
          clientId: `client-${id}`,
          clientName: `App ${id}`,
          scopes: ['calendar:read'],
          privateDetails: false,
          calendars: cals.map((calendarId) => ({ calendarId, detailLevel: 'titles' as const })),
          createdAt,
        });
      await grant('g1', 1, calendars);
      await grant('g2', 2, [calendars[0]!]);
      await grant('g3', 3, []);
      await markGrantsRevoked(handle.db, { id: 'g3' }, 'test', 4);
    });
    after(() => handle.close());

    it('lists a person’s live grants with calendar names, newest first', async () => {
      const grants = await liveGrantsOfUser(handle.db, userId);
      assert.deepEqual(
        grants.map((g) => [g.id, g.calendarNames]),
        [
          ['g2', ['Work']],
          ['g1', ['Home', 'Work']],
        ],
      );
    });

    it('gives admins counts, never calendar names', async () => {
      const metadata = await liveGrantMetadataOfWorkspace(handle.db, workspaceId);
      assert.deepEqual(metadata, [
        {
          userEmail: 'ana@example.org',
          clientId: 'client-g2',
          clientName: 'App g2',
          scopes: ['calendar:read'],
          calendarCount: 1,
          createdAt: 2,
          lastUsedAt: null,
        },
        {
          userEmail: 'ana@example.org',
          clientId: 'client-g1',
          clientName: 'App g1',
          scopes: ['calendar:read'],
          calendarCount: 2,
          createdAt: 1,
          lastUsedAt: null,
        },
      ]);
    });
  });
}
