/**
 * Sign-in throttling by address and client, on both engines: an attacker's wrong passwords do
 * not lock the owner out, the attacker stays throttled, and many clients together lock the address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { epochMs } from '../../src/lib/clock.ts';
import { authenticate, signInThrottle } from '../../src/people/accounts.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { recordFailure } from '../../src/store/signInFailures.ts';
import { TestClock } from '../helpers/clock.ts';
import { enginesUnderTest } from '../helpers/databases.ts';
import { seedUser, testPassword } from '../helpers/seed.ts';

const attacker = '198.51.100.66';
const owner = '203.0.113.7';

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'signed in',
    (error: unknown) => {
      assert.ok(error instanceof AppError, String(error));
      return error.code;
    },
  );

for (const engine of await enginesUnderTest()) {
  describe(`sign-in throttling (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    const clock = new TestClock();
    before(async () => {
      handle = await engine.open();
    });
    after(() => handle.close());

    const attempt = (email: string, password: string, client: string) =>
      refusal(authenticate(handle.db, clock, email, password, client));

    it("lets the owner in past an attacker's failures, and keeps the attacker throttled", async () => {
      await seedUser(handle.db, 'ana@example.org');
      for (let i = 0; i < signInThrottle.maxFailures; i++)
        assert.equal(await attempt('ana@example.org', `guess ${i}`, attacker), 'invalid_credentials');
      assert.equal(await attempt('ana@example.org', 'guess 6', attacker), 'rate_limited');
      assert.equal(await attempt('ana@example.org', testPassword, attacker), 'rate_limited');

      assert.equal(await attempt('ana@example.org', testPassword, owner), 'signed in');
      // The owner's sign-in does not give the attacker new guesses.
      assert.equal(await attempt('ana@example.org', 'guess 7', attacker), 'rate_limited');
      // A wrong password from the owner's client, too, now locks that client.
      assert.equal(await attempt('ana@example.org', 'typo', owner), 'invalid_credentials');
      assert.equal(await attempt('ana@example.org', testPassword, owner), 'rate_limited');

      clock.advance({ minutes: 15 });
      assert.equal(await attempt('ana@example.org', testPassword, attacker), 'signed in');
    });

    it('locks the address to every client once many clients have failed on it', async () => {
      await seedUser(handle.db, 'bo@example.org');
      // All but the last as stored failures: tens of password checks would only cost time.
      for (let i = 1; i < signInThrottle.maxFailuresFromAll; i++)
        await recordFailure(handle.db, 'bo@example.org', `198.51.100.${i}`, epochMs(clock));
      assert.equal(await attempt('bo@example.org', testPassword, owner), 'signed in');
      assert.equal(await attempt('bo@example.org', 'guess', attacker), 'invalid_credentials');
      assert.equal(await attempt('bo@example.org', testPassword, owner), 'rate_limited');
      clock.advance({ minutes: 15 });
      assert.equal(await attempt('bo@example.org', testPassword, owner), 'signed in');
    });

    it('refuses an address with a NUL byte as invalid_request naming the field', async () => {
      await assert.rejects(
        authenticate(handle.db, clock, 'ana\u0000@example.org', testPassword, owner),
        (error: unknown) =>
          error instanceof AppError &&
          error.code === 'invalid_request' &&
          (error.details as { field?: string } | undefined)?.field === 'email',
      );
    });
  });
}
