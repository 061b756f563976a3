/**
 * What the caller's providers told of other people's busy time (and working hours), kept for a
 * minute per grant, so that an assistant trying a few meeting lengths or windows in a row does
 * not ask the providers again each time. Kept per account, window and address, and "not told" too (so a repeat asks
 * nobody); failures and timeouts are not kept. Bounded: the oldest entries go first.
 */
import type { TimeWindow } from '../../domain/window.ts';
import { type Clock, epochMs } from '../../lib/clock.ts';
import type { ToldBusy } from '../../providers/port.ts';

export interface LookupScope {
  grantId: string;
  accountId: string;
  window: TimeWindow;
}

interface Entry {
  expiresAt: number;
  /** undefined: the provider could not tell. */
  told: ToldBusy | undefined;
}

export class BusyLookups {
  readonly #entries = new Map<string, Entry>();
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(clock: Clock, { ttlMs = 60_000, maxEntries = 10_000 } = {}) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  static #key(scope: LookupScope, address: string): string {
    const { grantId, accountId, window } = scope;
    return JSON.stringify([grantId, accountId, window.start.toString(), window.end.toString(), address]);
  }

  /** What was told of each address still kept (undefined: not told); the others are missing. */
  find(scope: LookupScope, addresses: readonly string[]) {
    const now = epochMs(this.#clock);
    const kept = new Map<string, ToldBusy | undefined>();
    const missing: string[] = [];
    for (const address of addresses) {
      const key = BusyLookups.#key(scope, address);
      const entry = this.#entries.get(key);
      if (entry !== undefined && entry.expiresAt > now) kept.set(address, entry.told);
      else {
        if (entry !== undefined) this.#entries.delete(key);
        missing.push(address);
      }
    }
    return { kept, missing };
  }

  /** Keeps one answer for the addresses asked: those not in `told` were not told about. */
  keep(scope: LookupScope, asked: readonly string[], told: ReadonlyMap<string, ToldBusy>): void {
    const expiresAt = epochMs(this.#clock) + this.#ttlMs;
    for (const address of asked) {
      const key = BusyLookups.#key(scope, address);
      this.#entries.delete(key);
      this.#entries.set(key, { expiresAt, told: told.get(address) });
    }
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(key);
    }
  }
}
