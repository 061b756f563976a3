/** How long ago an instant was, in words people read (pages, tool notes). */
export function ageInWords(then: Temporal.Instant, now: Temporal.Instant): string {
  const minutes = Math.max(0, Math.round(now.since(then).total('minutes')));
  if (minutes < 1) return 'less than a minute';
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} hours` : `${Math.round(hours / 24)} days`;
}
