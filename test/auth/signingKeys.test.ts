/** Token signing keys: created once, sealed at rest, per environment, rotated with an overlap. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadSigningKeys, rotateSigningKeys } from '../../src/auth/signingKeys.ts';
import { createSecretBox } from '../../src/lib/encryption.ts';
import type { DatabaseHandle } from '../../src/store/database.ts';
import { TestClock } from '../helpers/clock.ts';
import { enginesUnderTest } from '../helpers/databases.ts';

for (const engine of await enginesUnderTest()) {
  describe(`signing keys (${engine.name})`, { skip: engine.skip }, () => {
    let handle: DatabaseHandle;
    const box = createSecretBox(randomBytes(32));
    const clock = new TestClock();

    before(async () => {
      handle = await engine.open();
    });
    after(() => handle.close());

    it('creates one ES256 key on first load, sealed at rest, and loads the same one again', async () => {
      const [key, ...rest] = await loadSigningKeys(handle.db, box, 'test', clock);
      assert.deepEqual(rest, []);
      assert.match(key!.kid, /^test-/);
      assert.equal(key!.crv, 'P-256');
      assert.equal(key!.alg, 'ES256');
      assert.deepEqual(
        (await loadSigningKeys(handle.db, box, 'test', clock)).map((k) => k.kid),
        [key!.kid],
      );
      const stored = await handle.db.selectFrom('oauth_signing_keys').select('private_jwk').execute();
      assert.ok(stored.every((row) => !row.private_jwk.includes(key!.d)));
    });

    it('keeps environments apart', async () => {
      const [production] = await loadSigningKeys(handle.db, box, 'production', clock);
      assert.match(production!.kid, /^production-/);
      assert.ok(
        (await loadSigningKeys(handle.db, box, 'test', clock)).every((k) => k.kid.startsWith('test-')),
      );
    });

    it('rotates: the new key signs, the previous verifies, the one before is retired', async () => {
      const [original] = await loadSigningKeys(handle.db, box, 'test', clock);
      clock.advance({ seconds: 1 });
      const second = await rotateSigningKeys(handle.db, box, 'test', clock);
      assert.deepEqual(
        (await loadSigningKeys(handle.db, box, 'test', clock)).map((k) => k.kid),
        [second, original!.kid],
      );
      clock.advance({ seconds: 1 });
      const third = await rotateSigningKeys(handle.db, box, 'test', clock);
      assert.deepEqual(
        (await loadSigningKeys(handle.db, box, 'test', clock)).map((k) => k.kid),
        [third, second],
      );
      assert.equal((await loadSigningKeys(handle.db, box, 'production', clock)).length, 1);
    });
  });
}
