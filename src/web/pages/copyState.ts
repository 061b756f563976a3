/**
 * A calendar's synced copy as its person reads it on the account page: not copied, first sync
 * pending or running, synced, stale, or failing with the reason in the words the tools use.
 */
import { type ExclusionReason, exclusionMeanings } from '../../calendars/reads/readEvents.ts';
import type { CopyStatus } from '../../store/calendarCopies.ts';
import { type Html, html } from '../html.ts';
import { type ReaderTime, timeTag } from '../when.ts';

const count = (items: number) => `${items} item${items === 1 ? '' : 's'}`;

/** Whether a sync holds the copy right now (a crashed instance's lease runs out). */
const syncRunning = (copy: CopyStatus, now: Temporal.Instant): boolean =>
  copy.leaseUntil !== null && copy.leaseUntil > now.epochMilliseconds;

/**
 * The copy's state in words (a running first sync counts the items it has written so far);
 * `maxAgeMs` is how far past its due time a copy may be before it is called stale.
 */
export function copyStateWords(
  copy: CopyStatus | undefined,
  options: { time: ReaderTime; maxAgeMs: number },
): Html {
  const { time } = options;
  const { now } = time;
  if (copy === undefined) return html`<span class="muted">Not copied — no app has access</span>`;
  if (copy.failureReason !== null) {
    // Failing since the last sync that worked (or since the copy began, if none has).
    const reason =
      exclusionMeanings[copy.failureReason as ExclusionReason] ?? exclusionMeanings.provider_unavailable;
    return html`<strong>Sync failing</strong> since ${timeTag(copy.syncedAt ?? copy.createdAt, time)}: ${reason}`;
  }
  if (copy.syncedAt === null) {
    if (!syncRunning(copy, now)) return html`First sync pending`;
    return copy.items === 0
      ? html`First sync running`
      : html`First sync running: ${count(copy.items)} so far`;
  }
  const held = html`${count(copy.items)}${copy.skipped > 0 ? html`; ${exclusionMeanings.incomplete}` : ''}`;
  // Rounds sync a due copy within seconds; one overdue by more than a read tolerates is stale.
  if (copy.nextSyncAt + options.maxAgeMs < now.epochMilliseconds)
    return html`<strong>Stale</strong>: synced ${timeTag(copy.syncedAt, time)} (${held}), the next sync is overdue`;
  return html`Synced ${timeTag(copy.syncedAt, time)} (${held})`;
}
