/**
 * Calendar ids against the grant, on both engines: an unknown id, another person's existing
 * calendar and an id with a NUL byte get the same answer after the same queries (counted, not
 * timed), so neither the answer nor its cost tells whether a calendar exists.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { permittedCalendars } from '../../src/calendars/permittedCalendars.ts';
import { isAppError } from '../../src/errors.ts';
import type { Principal } from '../../src/policy/principal.ts';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedCalendars, seedUser, seedWorkspace } from '../helpers/seed.ts';

for (const engine of await enginesUnderTest()) {
  describe(`permitted calendars (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    let principal: Principal;
    let own: string;
    let foreign: string;
    let removed: string;
    let elsewhere: string;

    before(async () => {
      handle = await engine.open();
      const ana = await seedUser(handle.db, 'ana@example.org');
      const bob = await seedUser(handle.db, 'bob@example.org');
      const workspaceId = await seedWorkspace(handle.db, 'Acme', [
        [ana, 'owner'],
        [bob, 'member'],
      ]);
      [own, removed] = (await seedCalendars(handle.db, { userId: ana, workspaceId }, [
        { name: 'Work' },
        { name: 'Gone' },
      ])) as [string, string];
      [foreign] = (await seedCalendars(handle.db, { userId: bob, workspaceId }, [{ name: 'Bob' }])) as [
        string,
      ];
      // Ana's own calendar, on an account she connected in another workspace.
      const other = await seedWorkspace(handle.db, 'Other', [[ana, 'owner']]);
      [elsewhere] = (await seedCalendars(handle.db, { userId: ana, workspaceId: other }, [
        { name: 'Private' },
      ])) as [string];
      await handle.db.deleteFrom('calendars').where('id', '=', removed).execute();
      principal = {
        userId: ana,
        workspaceId,
        clientId: 'client',
        grantId: 'grt_1',
        scopes: ['calendar:read'],
        calendars: [own, removed].map((calendarId) => ({ calendarId, detailLevel: 'full' as const })),
        privateDetails: false,
        policy: defaultPolicy,
      };
    });
    after(() => handle.close());

    /** The SQL each call ran, and its answer: the calendar ids, or the error code and refused ids. */
    async function traced(ids: string[]) {
      const queries: string[] = [];
      const counting: KyselyPlugin = {
        transformQuery: (args) => {
          queries.push(args.node.kind);
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      try {
        const found = await permittedCalendars(handle.db.withPlugin(counting), principal, ids);
        return { queries, answer: found.map((p) => p.calendar.id) };
      } catch (error) {
        assert.ok(isAppError(error), String(error));
        return { queries, answer: [error.code, error.details] };
      }
    }

    it('finds a granted calendar of the person', async () => {
      assert.deepEqual((await traced([own])).answer, [own]);
    });

    it('answers an unknown id, a foreign calendar and a NUL byte alike, after the same queries', async () => {
      const unknown = await traced([own, 'cal_doesnotexist']);
      const other = await traced([own, foreign]);
      const nul = await traced([own, 'cal_\u0000x']);
      assert.deepEqual(unknown.answer, ['calendar_not_permitted', { calendarIds: ['cal_doesnotexist'] }]);
      assert.deepEqual(other.answer, ['calendar_not_permitted', { calendarIds: [foreign] }]);
      assert.deepEqual(nul.answer, ['calendar_not_permitted', { calendarIds: ['cal_\u0000x'] }]);
      assert.deepEqual(other.queries, unknown.queries);
      assert.deepEqual(nul.queries, unknown.queries);
      for (const alone of [['cal_doesnotexist'], [foreign], ['\u0000']])
        assert.deepEqual((await traced(alone)).queries, (await traced(['cal_other'])).queries);
    });

    it("refuses a calendar on the grant that is another person's, or the person's in another workspace", async () => {
      // A grant names only calendars consent chose; these stand for one that no longer matches.
      const wider = {
        ...principal,
        calendars: [own, foreign, elsewhere].map((calendarId) => ({
          calendarId,
          detailLevel: 'full' as const,
        })),
      };
      const counting = await traced([own]);
      const before = principal;
      principal = wider;
      try {
        for (const id of [foreign, elsewhere]) {
          const refused = await traced([own, id]);
          assert.deepEqual(refused.answer, ['calendar_not_permitted', { calendarIds: [id] }]);
          assert.deepEqual(refused.queries, counting.queries);
        }
        assert.deepEqual((await traced([own])).answer, [own]);
      } finally {
        principal = before;
      }
    });

    it('refuses a granted calendar that is gone after the same queries as a present one', async () => {
      const gone = await traced([removed]);
      assert.deepEqual(gone.answer, ['calendar_not_permitted', { calendarIds: [removed] }]);
      assert.deepEqual(gone.queries, (await traced([own])).queries);
    });
  });
}
