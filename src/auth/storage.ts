/**
 * oidc-provider's storage adapter on our database. Ids (codes, refresh tokens, session ids) are
 * bearer secrets, so rows are keyed by their hash and payloads are sealed, bound to the row.
 * Destroying a Grant ends the person's access grant too, whatever destroyed it (code or refresh
 * token reuse, revocation, expiry).
 */
import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { SecretBox } from '../lib/encryption.ts';
import { tokenHash } from '../lib/secrets.ts';
import { markGrantsRevoked } from '../store/accessGrants.ts';
import {
  consumeRecord,
  deleteRecord,
  deleteRecordsOfGrant,
  findRecord,
  upsertRecord,
} from '../store/oauthRecords.ts';
import type { Database } from '../store/schema.ts';

export interface StorageDeps {
  db: Kysely<Database>;
  box: SecretBox;
  /** Told when a grant ended, so that caches (of every instance) forget it at once. */
  onGrantEnded(grantId: string): Promise<void>;
}

// oidc-provider judges expiry on the real clock, so its storage must too.
const realNow = (): number => Temporal.Now.instant().epochMilliseconds;

export function storageAdapter(deps: StorageDeps): (model: string) => Adapter {
  return (model) => new StorageAdapter(model, deps);
}

class StorageAdapter implements Adapter {
  readonly #model: string;
  readonly #deps: StorageDeps;

  constructor(model: string, deps: StorageDeps) {
    this.#model = model;
    this.#deps = deps;
  }

  #bound(idHash: string): string {
    return `oauth:${this.#model}:${idHash}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const idHash = tokenHash(id);
    await upsertRecord(this.#deps.db, {
      model: this.#model,
      idHash,
      payload: this.#deps.box.seal(JSON.stringify(payload), this.#bound(idHash)),
      grantId: payload.grantId ?? null,
      uidHash: payload.uid === undefined ? null : tokenHash(payload.uid),
      expiresAt: expiresIn ? realNow() + expiresIn * 1000 : null,
    });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const idHash = tokenHash(id);
    const record = await findRecord(this.#deps.db, this.#model, { idHash }, realNow());
    return record && this.#open(record.payload, record.idHash, record.consumedAt);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const record = await findRecord(this.#deps.db, this.#model, { uidHash: tokenHash(uid) }, realNow());
    return record && this.#open(record.payload, record.idHash, record.consumedAt);
  }

  async findByUserCode(): Promise<AdapterPayload | undefined> {
    return undefined; // The device flow is not offered.
  }

  async consume(id: string): Promise<void> {
    await consumeRecord(this.#deps.db, this.#model, tokenHash(id), realNow());
  }

  async destroy(id: string): Promise<void> {
    await deleteRecord(this.#deps.db, this.#model, tokenHash(id));
    if (this.#model === 'Grant') await this.#endGrant(id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await deleteRecordsOfGrant(this.#deps.db, grantId, [this.#model]);
  }

  /** Told once: a grant the service revoked already was forgotten (and counted) then. */
  async #endGrant(grantId: string): Promise<void> {
    const ended = await markGrantsRevoked(
      this.#deps.db,
      { id: grantId },
      'ended by the authorization server',
      realNow(),
    );
    if (ended.length > 0) await this.#deps.onGrantEnded(grantId);
  }

  #open(sealed: string, idHash: string, consumedAt: number | null): AdapterPayload {
    const payload = JSON.parse(this.#deps.box.open(sealed, this.#bound(idHash))) as AdapterPayload;
    return consumedAt === null ? payload : { ...payload, consumed: consumedAt };
  }
}
