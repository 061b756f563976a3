/**
 * The keys that sign access tokens: ES256, generated on first start, stored sealed, named after
 * the environment so a token shows where it came from. Rotation adds a key that signs at once on
 * every instance told (PostgreSQL), else from the next start; the previous key keeps verifying
 * until the one after the new one retires it.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConfigError, type Environment } from '../config/config.ts';
import { type Clock, epochMs } from '../lib/clock.ts';
import type { SecretBox } from '../lib/encryption.ts';
import { noticeChannels, publishNotice } from '../store/notices.ts';
import type { Database } from '../store/schema.ts';
import { activeSigningKeys, insertSigningKey, retireSigningKeysExcept } from '../store/signingKeys.ts';

export const signingAlgorithm = 'ES256';

export interface PrivateJwk {
  kid: string;
  kty: string;
  crv: string;
  x: string;
  y: string;
  d: string;
  alg: string;
  use: string;
}

const bound = (kid: string) => `signing-key:${kid}`;

async function addKey(db: Kysely<Database>, box: SecretBox, environment: Environment, clock: Clock) {
  const kid = `${environment}-${randomBytes(9).toString('base64url')}`;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: signingAlgorithm, use: 'sig' };
  await insertSigningKey(db, {
    kid,
    sealedJwk: box.seal(JSON.stringify(jwk), bound(kid)),
    createdAt: epochMs(clock),
  });
  return kid;
}

/** This environment's active keys, newest (the signing one) first; creates the first one. */
export async function loadSigningKeys(
  db: Kysely<Database>,
  box: SecretBox,
  environment: Environment,
  clock: Clock,
): Promise<PrivateJwk[]> {
  let stored = (await activeSigningKeys(db)).filter((k) => k.kid.startsWith(`${environment}-`));
  if (stored.length === 0) {
    await addKey(db, box, environment, clock);
    // Instances starting together may each add a first key: told, each then loads them all.
    await publishNotice(db, noticeChannels.signingKeys);
    stored = (await activeSigningKeys(db)).filter((k) => k.kid.startsWith(`${environment}-`));
  }
  try {
    return stored.map((k) => JSON.parse(box.open(k.sealedJwk, bound(k.kid))) as PrivateJwk);
  } catch (error) {
    // The one way a sealed key of our own fails to open: another SECRET_KEY than the database's.
    throw new ConfigError(
      [
        'SECRET_KEY is not the key this database was created with: its signing keys (and the stored provider tokens) cannot be opened.',
        "Start with the SECRET_KEY (or the data folder's secret-key file) the database was used with; keep it with every backup.",
        'To start over instead, remove the database (and its data folder); every connection and grant is then lost.',
      ],
      { cause: error },
    );
  }
}

/**
 * Adds a new signing key, retires all but it and its predecessor, and tells the running
 * instances. Returns the new kid.
 */
export async function rotateSigningKeys(
  db: Kysely<Database>,
  box: SecretBox,
  environment: Environment,
  clock: Clock,
): Promise<string> {
  const previous = (await activeSigningKeys(db)).find((k) => k.kid.startsWith(`${environment}-`));
  const kid = await addKey(db, box, environment, clock);
  await retireSigningKeysExcept(
    db,
    `${environment}-`,
    previous ? [kid, previous.kid] : [kid],
    epochMs(clock),
  );
  await publishNotice(db, noticeChannels.signingKeys);
  return kid;
}
