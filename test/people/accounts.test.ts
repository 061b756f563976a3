import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { epochMs } from '../../src/lib/clock.ts';
import { tokenHash } from '../../src/lib/secrets.ts';
import { authenticate, changePassword, createUser, signInThrottle } from '../../src/people/accounts.ts';
import { sweep } from '../../src/people/housekeeping.ts';
import { issueFirstRunToken } from '../../src/people/onboarding.ts';
import { resolveSession, startSession } from '../../src/people/sessions.ts';
import { addMember } from '../../src/people/workspaces.ts';
import { insertOAuthState } from '../../src/store/connectedAccounts.ts';
import { migrateToLatest, openDatabase } from '../../src/store/database.ts';
import { testAdministration } from '../helpers/administration.ts';
import { TestClock } from '../helpers/clock.ts';
import { seedUser, seedWorkspace, testPassword } from '../helpers/seed.ts';

const handle = openDatabase({ sqlitePath: ':memory:' });
const db = handle.db;
const clock = new TestClock();

/** The client the sign-ins come from. */
const here = '203.0.113.7';

const rejectsWith = (promise: Promise<unknown>, code: string) =>
  assert.rejects(promise, (error: unknown) => error instanceof AppError && error.code === code);

describe('accounts', () => {
  before(() => migrateToLatest(handle));
  after(() => handle.close());

  it('creates a user with a normalised address and refuses a duplicate in another case', async () => {
    const user = await createUser(db, clock, {
      email: '  Zoë@Example.org ',
      password: 'a long enough secret',
    });
    assert.equal(user.email, 'Zoë@Example.org');
    assert.equal(user.name, 'Zoë');
    assert.match(user.id, /^usr_[\w-]{22}$/);
    await rejectsWith(
      createUser(db, clock, { email: 'zoë@example.ORG', password: 'a long enough secret' }),
      'already_exists',
    );
    await rejectsWith(
      createUser(db, clock, { email: 'not-an-address', password: 'a long enough secret' }),
      'invalid_request',
    );
    await rejectsWith(
      createUser(db, clock, { email: 'x@example.org', password: 'short' }),
      'invalid_request',
    );
  });

  it('signs in by address in any case, and answers the same for unknown addresses and wrong passwords', async () => {
    const id = await seedUser(db, 'sam@example.org');
    assert.equal(await authenticate(db, clock, 'SAM@example.org', testPassword, here), id);
    await rejectsWith(
      authenticate(db, clock, 'sam@example.org', 'wrong password!', here),
      'invalid_credentials',
    );
    await rejectsWith(
      authenticate(db, clock, 'nobody@example.org', 'wrong password!', here),
      'invalid_credentials',
    );
    await rejectsWith(authenticate(db, clock, '', 'x', here), 'invalid_request');
  });

  it('locks an address after five failures for the rest of the window, then lets it in again', async () => {
    const id = await seedUser(db, 'lock@example.org');
    for (let i = 0; i < signInThrottle.maxFailures; i++) {
      await rejectsWith(
        authenticate(db, clock, 'lock@example.org', `wrong ${i}`, here),
        'invalid_credentials',
      );
      clock.advance({ seconds: 10 });
    }
    // Locked even with the right password: guessing cannot continue.
    await assert.rejects(
      authenticate(db, clock, 'lock@example.org', testPassword, here),
      (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, 'rate_limited');
        assert.equal(error.status, 429);
        assert.equal(error.retryAfter, 15 * 60 - 50);
        return true;
      },
    );
    // Another address is not affected.
    await seedUser(db, 'other@example.org');
    await authenticate(db, clock, 'other@example.org', testPassword, here);
    clock.advance({ minutes: 15 });
    assert.equal(await authenticate(db, clock, 'lock@example.org', testPassword, here), id);
  });

  it('changes a password only with the current one, and ends the other sessions', async () => {
    const id = await seedUser(db, 'pat@example.org');
    const kept = await startSession(db, clock, id, 24);
    const other = await startSession(db, clock, id, 24);
    const input = {
      current: 'not my password',
      next: 'a brand new secret',
      keepSessionHash: tokenHash(kept),
    };
    await rejectsWith(changePassword(db, clock, id, input), 'invalid_credentials');
    await rejectsWith(
      changePassword(db, clock, id, { ...input, current: testPassword, next: 'short' }),
      'invalid_request',
    );
    assert.equal(await resolveSession(db, clock, other), id, 'nothing changed after refusals');
    await changePassword(db, clock, id, { ...input, current: testPassword });
    assert.equal(await resolveSession(db, clock, kept), id);
    assert.equal(await resolveSession(db, clock, other), undefined);
    assert.equal(await authenticate(db, clock, 'pat@example.org', 'a brand new secret', here), id);
  });

  it('expires sessions after their lifetime', async () => {
    const id = await seedUser(db, 'exp@example.org');
    const token = await startSession(db, clock, id, 2);
    clock.advance({ hours: 1, minutes: 59 });
    assert.equal(await resolveSession(db, clock, token), id);
    clock.advance({ minutes: 1 });
    assert.equal(await resolveSession(db, clock, token), undefined);
    assert.equal(await resolveSession(db, clock, 'forged'), undefined);
  });
});

describe('housekeeping', () => {
  it('removes expired sessions, old sign-in failures and spent links, and nothing live', async () => {
    const h = openDatabase({ sqlitePath: ':memory:' });
    await migrateToLatest(h);
    const c = new TestClock();
    const id = await seedUser(h.db, 'sweep@example.org');
    const live = await startSession(h.db, c, id, 48);
    await startSession(h.db, c, id, 1);
    await authenticate(h.db, c, 'sweep@example.org', 'wrong password 1', here).catch(() => {});
    const link = await issueFirstRunToken(h.db, c);
    assert.equal(link, undefined, 'users exist, so no first-run link');
    const ws = await seedWorkspace(h.db, 'W', [[id, 'owner']]);
    await addMember(testAdministration(h.db, c), ws, { email: 'x@example.org', role: 'member' }, 'system');
    const flow = {
      userId: id,
      workspaceId: ws,
      provider: 'google' as const,
      accountId: null,
      sealedVerifier: 'v1.x',
    };
    await insertOAuthState(h.db, 'state-1', flow, epochMs(c) + 10 * 60 * 1000);
    c.advance({ hours: 2 });
    await sweep(h.db, c);
    const count = async (table: 'sessions' | 'sign_in_failures' | 'one_time_tokens' | 'oauth_states') =>
      Number(
        (
          await h.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.equal(await count('sessions'), 1);
    assert.equal(await resolveSession(h.db, c, live), id);
    assert.equal(await count('sign_in_failures'), 0);
    assert.equal(await count('oauth_states'), 0, 'an abandoned connect flow');
    assert.equal(await count('one_time_tokens'), 1, 'the 7-day invitation is still usable');
    c.advance({ hours: 8 * 24 });
    await sweep(h.db, c);
    assert.equal(await count('one_time_tokens'), 0);
    await h.close();
  });
});
