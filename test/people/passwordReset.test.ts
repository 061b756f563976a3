/** Password-reset links on both engines: single use, expiry, throttle, what using one ends. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { authenticate, signInThrottle } from '../../src/people/accounts.ts';
import { sweep } from '../../src/people/housekeeping.ts';
import {
  completePasswordReset,
  findPasswordReset,
  issuePasswordReset,
  passwordResetTtlMs,
  requestPasswordReset,
  resetThrottle,
} from '../../src/people/passwordReset.ts';
import { resolveSession, startSession } from '../../src/people/sessions.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { TestClock } from '../helpers/clock.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedUser, testPassword } from '../helpers/seed.ts';

const rejectsWith = (promise: Promise<unknown>, code: string) =>
  assert.rejects(promise, (error: unknown) => error instanceof AppError && error.code === code);

const newPassword = 'a brand new passphrase';

for (const engine of await enginesUnderTest()) {
  describe(`password reset on ${engine.name}`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    const clock = new TestClock();
    const ids: Record<string, string> = {};

    before(async () => {
      handle = await engine.open();
      for (const name of ['ana', 'ben', 'cy', 'dee'])
        ids[name] = await seedUser(handle.db, `${name}@example.org`);
    });
    after(() => handle?.close());

    const tokens = () =>
      handle.db.selectFrom('one_time_tokens').selectAll().where('purpose', '=', 'password_reset').execute();

    it('makes nothing for an address without an account, and refuses what is no address', async () => {
      assert.equal(await requestPasswordReset(handle.db, clock, 'nobody@example.org'), undefined);
      assert.equal((await tokens()).length, 0);
      await rejectsWith(requestPasswordReset(handle.db, clock, 'not an address'), 'invalid_request');
    });

    it('sets the password once, ending the sessions, the other links and the sign-in lock', async () => {
      const session = await startSession(handle.db, clock, ids.ana!, 24);
      for (let i = 0; i < signInThrottle.maxFailures; i++)
        await authenticate(handle.db, clock, 'ana@example.org', `wrong ${i}`, '192.0.2.1').catch(() => {});
      await rejectsWith(
        authenticate(handle.db, clock, 'ana@example.org', testPassword, '192.0.2.1'),
        'rate_limited',
      );

      const first = await requestPasswordReset(handle.db, clock, 'Ana@Example.org');
      assert.ok(first);
      assert.equal(first.email, 'ana@example.org');
      assert.equal(first.expiresAt, clock.now().epochMilliseconds + passwordResetTtlMs);
      const second = await issuePasswordReset(handle.db, clock, ids.ana!);
      await rejectsWith(findPasswordReset(handle.db, clock, first.token), 'not_found');
      assert.deepEqual(await findPasswordReset(handle.db, clock, second.token), { email: 'ana@example.org' });
      const third = await requestPasswordReset(handle.db, clock, 'ana@example.org');
      assert.ok(third);

      // Two submissions of one link at once: one sets the password, the other is refused.
      const outcomes = await Promise.allSettled([
        completePasswordReset(handle.db, clock, third.token, newPassword),
        completePasswordReset(handle.db, clock, third.token, newPassword),
      ]);
      assert.deepEqual(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);

      assert.equal(await resolveSession(handle.db, clock, session), undefined, 'the session ended');
      await rejectsWith(findPasswordReset(handle.db, clock, second.token), 'not_found');
      await rejectsWith(completePasswordReset(handle.db, clock, third.token, newPassword), 'not_found');
      assert.equal(
        await authenticate(handle.db, clock, 'ana@example.org', newPassword, '192.0.2.1'),
        ids.ana,
      );
    });

    it('keeps the password rules and leaves the link usable after a refused password', async () => {
      const reset = await issuePasswordReset(handle.db, clock, ids.ben!);
      await rejectsWith(completePasswordReset(handle.db, clock, reset.token, 'short'), 'invalid_request');
      await completePasswordReset(handle.db, clock, reset.token, newPassword);
      assert.equal(
        await authenticate(handle.db, clock, 'ben@example.org', newPassword, '192.0.2.2'),
        ids.ben,
      );
    });

    it('refuses an expired link and leaves the password as it was', async () => {
      const reset = await issuePasswordReset(handle.db, clock, ids.cy!);
      clock.advance({ milliseconds: passwordResetTtlMs });
      await rejectsWith(findPasswordReset(handle.db, clock, reset.token), 'not_found');
      await rejectsWith(completePasswordReset(handle.db, clock, reset.token, newPassword), 'not_found');
      assert.equal(await authenticate(handle.db, clock, 'cy@example.org', testPassword, '192.0.2.3'), ids.cy);
    });

    it('makes at most as many links per account as the throttle allows in its window, a sweep in between or not', async () => {
      for (let i = 0; i < resetThrottle.maxLinks; i++)
        assert.ok(await requestPasswordReset(handle.db, clock, 'dee@example.org'));
      await sweep(handle.db, clock);
      assert.equal(await requestPasswordReset(handle.db, clock, 'dee@example.org'), undefined);
      clock.advance({ milliseconds: resetThrottle.windowMs });
      assert.ok(await requestPasswordReset(handle.db, clock, 'dee@example.org'));
      await rejectsWith(issuePasswordReset(handle.db, clock, 'usr_missing'), 'not_found');
    });
  });
}
