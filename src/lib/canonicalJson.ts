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
    for (const key of Object.keys(record).sort()) sorted[key] = record[key];
    return sorted;
  });
}
