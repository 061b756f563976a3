/**
 * Other people's busy time through freeBusy.query: each address is asked as a calendar id; one
 * Google answers with `errors` for (not found, not shared) is left out. Times only: Google sends
 * nothing else.
 */
import type { BusySpan } from '../../domain/availability.ts';
import type { TimeWindow } from '../../domain/window.ts';
import type { Clock } from '../../lib/clock.ts';
import { readGoogleJson } from './client.ts';
import { googleFailure } from './errors.ts';
import type { GoogleSession } from './session.ts';
import type { GoogleFreeBusy } from './wire.ts';

/** Twenty people's busy spans for a few weeks fit well within it. */
const answerBytes = 1024 * 1024;

export async function googleFreeBusy(
  session: GoogleSession,
  request: { apiBaseUrl: string; clock: Clock; emails: readonly string[]; window: TimeWindow },
): Promise<Map<string, BusySpan[]>> {
  const known = new Map<string, BusySpan[]>();
  if (request.emails.length === 0) return known;
  const response = await session.write({
    url: `${request.apiBaseUrl}/freeBusy`,
    method: 'POST',
    body: {
      timeMin: request.window.start.toString(),
      timeMax: request.window.end.toString(),
      items: request.emails.map((id) => ({ id })),
    },
  });
  if (!response.ok) throw await googleFailure(response, request.clock.now());
  const answer = await readGoogleJson<GoogleFreeBusy>(response, answerBytes);
  for (const [id, calendar] of Object.entries(answer.calendars ?? {})) {
    if ((calendar.errors?.length ?? 0) > 0) continue;
    const busy = spansOf(calendar.busy ?? []);
    if (busy !== undefined) known.set(id.toLowerCase(), busy);
  }
  return known;
}

/** undefined when a span cannot be read: that person is not known rather than shown free. */
function spansOf(busy: ReadonlyArray<{ start?: string; end?: string }>): BusySpan[] | undefined {
  const spans: BusySpan[] = [];
  for (const { start, end } of busy) {
    try {
      const span = {
        startNs: Temporal.Instant.from(start ?? '').epochNanoseconds,
        endNs: Temporal.Instant.from(end ?? '').epochNanoseconds,
      };
      if (span.endNs > span.startNs) spans.push(span);
    } catch {
      return undefined;
    }
  }
  return spans;
}
