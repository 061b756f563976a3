/**
 * Every request the fake Google received, counted by endpoint kind and method, for tests that
 * bound how many provider requests a sync or a read may spend. Faulted requests count too:
 * they were sent.
 */
import type { RequestKind } from './routes.ts';

export class RequestCounts {
  #counts = new Map<string, number>();

  record(kind: RequestKind, method: string): void {
    const key = `${method} ${kind}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  /** How many requests of this kind (and method), or of any kind; every request when no filter. */
  count(filter: { kind?: RequestKind; method?: string } = {}): number {
    let total = 0;
    for (const [key, count] of this.#counts) {
      const [method, kind] = key.split(' ');
      if ((filter.kind ?? kind) === kind && (filter.method ?? method) === method) total += count;
    }
    return total;
  }

  /** Counts per kind, e.g. `{ 'events.list': 3, write: 1 }`. */
  byKind(): Partial<Record<RequestKind, number>> {
    const result: Partial<Record<RequestKind, number>> = {};
    for (const [key, count] of this.#counts) {
      const kind = key.split(' ')[1] as RequestKind;
      result[kind] = (result[kind] ?? 0) + count;
    }
    return result;
  }

  reset(): void {
    this.#counts.clear();
  }
}
