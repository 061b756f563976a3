/**
 * JSON with every object's keys in one order, so equal values always give the same text: for
 * hashes that stand for a value's version.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    // Keys sorted by code unit, then set in that order (no entry pairs: a listing sync versions
    // every item this way). The object written orders array-index keys first, as any does.
    const record = item as Record<string, unknown>;
    const sorted: Record<string, unknown> = {};
    const keys = inCodeUnitOrder(Object.keys(record));
    for (let k = 0; k < keys.length; k++) sorted[keys[k]!] = record[keys[k]!];
    return sorted;
  });
}

/**
 * Keys sorted by code unit, as `sort()` sorts strings: an object's few in place (`sort` copies
 * its array into a work array first, a sync's largest garbage after its rows), more by `sort`.
 */
function inCodeUnitOrder(keys: string[]): string[] {
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}
