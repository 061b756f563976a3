import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../src/errors.ts';
import { checkPasswordRules, hashPassword, verifyPassword } from '../../src/people/passwords.ts';

describe('passwords', () => {
  it('hashes with scrypt and a per-user salt, and verifies', async () => {
    const [a, b] = await Promise.all([
      hashPassword('correct horse battery'),
      hashPassword('correct horse battery'),
    ]);
    assert.match(a, /^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.notEqual(a, b, 'same password, different salts');
    assert.equal(await verifyPassword('correct horse battery', a), true);
    assert.equal(await verifyPassword('correct horse batterY', a), false);
    assert.equal(await verifyPassword('correct horse battery', 'md5$abc'), false);
  });

  it('treats a composed and a decomposed accent as the same password', async () => {
    const hash = await hashPassword('Müller-Lüdenscheidt');
    assert.equal(await verifyPassword('Mu\u0308ller-Lu\u0308denscheidt', hash), true);
  });

  it('enforces length bounds on both sides', () => {
    const code = (value: unknown) => {
      try {
        checkPasswordRules(value);
        return 'ok';
      } catch (error) {
        assert.ok(isAppError(error));
        return `${error.code}:${error.details?.field}`;
      }
    };
    assert.equal(code('a'.repeat(11)), 'invalid_request:password');
    assert.equal(code('a'.repeat(12)), 'ok');
    assert.equal(code('😀'.repeat(12)), 'ok', 'counts characters, not UTF-16 units');
    assert.equal(code('a'.repeat(256)), 'ok');
    assert.equal(code('a'.repeat(257)), 'invalid_request:password');
    assert.equal(code(undefined), 'invalid_request:password');
    assert.equal(code(12345678901234), 'invalid_request:password');
  });
});
