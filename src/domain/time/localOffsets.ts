/**
 * A zone's UTC offsets as a function of local time, over a span: what places floating and
 * all-day times inside a database query. A local time L is placed at L − offset, where the
 * offset is the one in force before a transition at instant T while L < T + max(before, after):
 * the times a gap skips move forward and repeated ones take the earlier instant, as Temporal's
 * `compatible` disambiguation places them. Pure.
 */

export interface OffsetStep {
  /** The offset (ms) of local times before `untilLocalMs` (read as UTC), and after the previous step. */
  offsetMs: number;
  untilLocalMs: number;
}

/** Zones change offsets a few times a year: a span of years stays far below this. */
const maxSteps = 1_000;

/** The steps covering local times whose instants lie in [startMs, endMs); the last runs on without end. */
export function localOffsets(zone: string, span: { startMs: number; endMs: number }): OffsetStep[] {
  let at = Temporal.Instant.fromEpochMilliseconds(span.startMs).toZonedDateTimeISO(zone);
  let offsetMs = at.offsetNanoseconds / 1_000_000;
  const steps: OffsetStep[] = [];
  while (steps.length < maxSteps) {
    const next = at.getTimeZoneTransition('next');
    if (next === null || next.epochMilliseconds >= span.endMs) break;
    const nextOffsetMs = next.offsetNanoseconds / 1_000_000;
    steps.push({ offsetMs, untilLocalMs: next.epochMilliseconds + Math.max(offsetMs, nextOffsetMs) });
    offsetMs = nextOffsetMs;
    at = next;
  }
  steps.push({ offsetMs, untilLocalMs: Number.POSITIVE_INFINITY });
  return steps;
}

/** The instant (epoch ms) of a local time read as UTC, by the steps (none: read as UTC), as store/copyReads.ts#placed places it in a query. */
export function placeLocalMs(localMs: number, offsets: readonly OffsetStep[]): number {
  for (const step of offsets) if (localMs < step.untilLocalMs) return localMs - step.offsetMs;
  return localMs - (offsets.at(-1)?.offsetMs ?? 0);
}
