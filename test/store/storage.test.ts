/** The storage layer on both engines: migrations, constraints, repositories and transactions. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultPolicy } from '../../src/policy/workspacePolicy.ts';
import { auditOf, recordAudit } from '../../src/store/audit.ts';
import { type DatabaseHandle, migrateToLatest, ping } from '../../src/store/database.ts';
import { consumeToken, findUsableToken, insertOneTimeToken } from '../../src/store/oneTimeTokens.ts';
import { deleteExpiredSessions, findLiveSession, insertSession } from '../../src/store/sessions.ts';
import { countUsers, findUserByEmailKey, insertUser } from '../../src/store/users.ts';
import {
  countOwners,
  findPolicy,
  insertMembership,
  insertWorkspace,
  listMembers,
  savePolicy,
  workspacesOf,
} from '../../src/store/workspaces.ts';
import { enginesUnderTest } from '../helpers/databases.ts';

const userRow = (id: string, email: string) => ({
  id,
  email,
  email_key: email.toLowerCase(),
  name: id,
  password_hash: 'scrypt$x',
  created_at: 1,
  updated_at: 1,
});

for (const engine of await enginesUnderTest()) {
  describe(`storage on ${engine.name}`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    before(async () => {
      handle = await engine.open();
    });
    after(async () => {
      await handle?.close();
    });

    it('has applied every migration, and applying again changes nothing', async () => {
      await ping(handle);
      assert.deepEqual(await migrateToLatest(handle), []);
      const tables = await handle.db.introspection.getTables();
      const names = tables.map((t) => t.name);
      for (const table of [
        'users',
        'sessions',
        'workspaces',
        'memberships',
        'workspace_policies',
        'audit_log',
      ]) {
        assert.ok(names.includes(table), `table ${table} missing`);
      }
    });

    it('keeps e-mail addresses unique regardless of case', async () => {
      await insertUser(handle.db, userRow('usr_a', 'Ana@Example.com'));
      await assert.rejects(
        insertUser(handle.db, { ...userRow('usr_b', 'ana@example.COM'), email_key: 'ana@example.com' }),
      );
      const found = await findUserByEmailKey(handle.db, 'ana@example.com');
      assert.equal(found?.email, 'Ana@Example.com');
      assert.equal(await countUsers(handle.db), 1);
    });

    it('rolls a failed transaction back entirely', async () => {
      await assert.rejects(
        handle.db.transaction().execute(async (trx) => {
          await insertUser(trx, userRow('usr_c', 'c@example.com'));
          await insertWorkspace(trx, { id: 'ws_c', name: 'C', createdAt: 1 }, defaultPolicy);
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await findUserByEmailKey(handle.db, 'c@example.com'), undefined);
      const row = await handle.db
        .selectFrom('workspaces')
        .select('id')
        .where('id', '=', 'ws_c')
        .executeTakeFirst();
      assert.equal(row, undefined);
    });

    it('runs concurrent transactions without interleaving them', async () => {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          handle.db.transaction().execute(async (trx) => {
            await insertUser(trx, userRow(`usr_t${i}`, `t${i}@example.com`));
            await new Promise((r) => setTimeout(r, 2));
            await insertWorkspace(trx, { id: `ws_t${i}`, name: `T${i}`, createdAt: 1 }, defaultPolicy);
          }),
        ),
      );
      const n = await handle.db
        .selectFrom('workspaces')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('id', 'like', 'ws_t%')
        .executeTakeFirstOrThrow();
      assert.equal(Number(n.n), 8);
    });

    it('stores workspaces, memberships with a role check, and cascades deletes', async () => {
      await insertUser(handle.db, userRow('usr_o', 'owner@example.com'));
      await insertUser(handle.db, userRow('usr_m', 'member@example.com'));
      await insertWorkspace(handle.db, { id: 'ws_1', name: 'Team', createdAt: 5 }, defaultPolicy);
      await insertMembership(handle.db, { workspaceId: 'ws_1', userId: 'usr_o', role: 'owner', now: 5 });
      await insertMembership(handle.db, { workspaceId: 'ws_1', userId: 'usr_m', role: 'member', now: 6 });
      await assert.rejects(
        handle.db
          .insertInto('memberships')
          .values({ workspace_id: 'ws_1', user_id: 'usr_a', role: 'superuser', created_at: 1 })
          .execute(),
      );
      assert.equal(await countOwners(handle.db, 'ws_1'), 1);
      assert.deepEqual(
        (await listMembers(handle.db, 'ws_1')).map((m) => [m.email, m.role]),
        [
          ['member@example.com', 'member'],
          ['owner@example.com', 'owner'],
        ],
      );
      assert.deepEqual(
        (await workspacesOf(handle.db, 'usr_m')).map((w) => [w.id, w.role]),
        [['ws_1', 'member']],
      );
      await handle.db.deleteFrom('users').where('id', '=', 'usr_m').execute();
      assert.equal((await listMembers(handle.db, 'ws_1')).length, 1);
    });

    it('round-trips a workspace policy, flags and lists included', async () => {
      assert.deepEqual(await findPolicy(handle.db, 'ws_1'), defaultPolicy);
      const policy = {
        allowedScopes: ['calendar:read' as const, 'calendar:write' as const],
        maxDetailLevel: 'titles' as const,
        defaultDetailLevel: 'busy' as const,
        privateDetailsAllowed: true,
        colleagueAvailability: false,
        allowedClients: ['client-a', 'https://app.example.com/client.json'],
        blockedClients: ['client-b'],
      };
      await savePolicy(handle.db, 'ws_1', policy, 9);
      assert.deepEqual(await findPolicy(handle.db, 'ws_1'), policy);
    });

    it('finds live sessions only and deletes expired ones', async () => {
      await insertSession(handle.db, { tokenHash: 'live', userId: 'usr_o', now: 100, expiresAt: 200 });
      await insertSession(handle.db, { tokenHash: 'old', userId: 'usr_o', now: 100, expiresAt: 150 });
      assert.deepEqual(await findLiveSession(handle.db, 'live', 160), { userId: 'usr_o', lastSeenAt: 100 });
      assert.equal(await findLiveSession(handle.db, 'old', 160), undefined);
      assert.equal(await deleteExpiredSessions(handle.db, 160), 1);
    });

    it('lets a one-time token be consumed exactly once', async () => {
      const token = {
        tokenHash: 'h1',
        purpose: 'invitation' as const,
        workspaceId: 'ws_1',
        email: 'new@example.com',
        role: 'member' as const,
        createdBy: 'usr_o',
        expiresAt: 1_000,
      };
      await insertOneTimeToken(handle.db, token, 10);
      assert.equal((await findUsableToken(handle.db, 'h1', 'invitation', 20))?.email, 'new@example.com');
      assert.equal(await findUsableToken(handle.db, 'h1', 'first_owner', 20), undefined);
      assert.equal(await findUsableToken(handle.db, 'h1', 'invitation', 1_000), undefined, 'expired');
      const results = await Promise.all([
        consumeToken(handle.db, 'h1', 30),
        consumeToken(handle.db, 'h1', 30),
      ]);
      assert.deepEqual(results.sort(), [false, true]);
      assert.equal(await findUsableToken(handle.db, 'h1', 'invitation', 40), undefined);
    });

    it('keeps an audit log newest first with the people named', async () => {
      await recordAudit(handle.db, {
        workspaceId: 'ws_1',
        actorUserId: 'usr_o',
        action: 'member.added',
        targetUserId: 'usr_a',
        detail: { role: 'member' },
        at: 50,
      });
      await recordAudit(handle.db, {
        workspaceId: 'ws_1',
        actorUserId: null,
        action: 'policy.updated',
        targetUserId: null,
        detail: { maxDetailLevel: 'busy' },
        at: 60,
      });
      const entries = await auditOf(handle.db, 'ws_1');
      assert.deepEqual(
        entries.map((e) => [e.action, e.actorEmail, e.targetEmail]),
        [
          ['policy.updated', null, null],
          ['member.added', 'owner@example.com', 'Ana@Example.com'],
        ],
      );
      assert.equal(typeof entries[0]!.id, 'number');
      assert.equal(typeof entries[0]!.at, 'number');
    });

    it('stores times as exact integers beyond 32 bits', async () => {
      const at = Temporal.Instant.from('2099-12-31T23:59:59.999Z').epochMilliseconds;
      await insertSession(handle.db, { tokenHash: 'far', userId: 'usr_o', now: at, expiresAt: at + 1 });
      const row = await handle.db
        .selectFrom('sessions')
        .select('expires_at')
        .where('token_hash', '=', 'far')
        .executeTakeFirstOrThrow();
      assert.equal(row.expires_at, at + 1);
    });
  });
}
