/** How much of an event a grant shows, per calendar: `busy` < `titles` < `full`. Pure. */
/** Ordered from least to most revealing. */
export const detailLevels = ['busy', 'titles', 'full'] as const;
export type DetailLevel = (typeof detailLevels)[number];

export const isDetailLevel = (value: unknown): value is DetailLevel =>
  typeof value === 'string' && (detailLevels as readonly string[]).includes(value);

/** The lower of two detail levels. */
export const lowerDetail = (a: DetailLevel, b: DetailLevel): DetailLevel =>
  detailLevels.indexOf(a) <= detailLevels.indexOf(b) ? a : b;

/** Whether `level` shows at least as much as `least`. */
export const atLeast = (level: DetailLevel, least: DetailLevel): boolean =>
  detailLevels.indexOf(level) >= detailLevels.indexOf(least);
