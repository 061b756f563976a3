/** Password rules and scrypt hashing with a per-user salt; verification in constant time. */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { invalidField } from '../errors.ts';

export const passwordMinLength = 12;
export const passwordMaxLength = 256;

// OWASP's scrypt baseline: N=2^17, r=8, p=1 (128 MiB of work memory per hash).
const params = { N: 2 ** 17, r: 8, p: 1, keyLength: 32, maxmem: 256 * 1024 * 1024 };

export function checkPasswordRules(password: unknown, field = 'password'): string {
  if (typeof password !== 'string' || password.length === 0) throw invalidField(field, 'Enter a password.');
  const length = [...password].length;
  if (length < passwordMinLength) {
    throw invalidField(field, `Use at least ${passwordMinLength} characters for the password.`);
  }
  if (length > passwordMaxLength) {
    throw invalidField(field, `Use at most ${passwordMaxLength} characters for the password.`);
  }
  return password;
}

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFKC'),
      salt,
      params.keyLength,
      { N, r, p, maxmem: params.maxmem },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** `scrypt$N$r$p$salt$hash`, so parameters can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params.N, params.r, params.p);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash of a random password: verifying against it costs the same as a real one (no timing oracle). */
let decoy: Promise<string> | undefined;
export const decoyHash = (): Promise<string> => {
  decoy ??= hashPassword(randomBytes(24).toString('base64url'));
  return decoy;
};
