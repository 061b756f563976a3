/**
 * A read's events from the synced copies by one query over all its calendars
 * (store/copyReads.ts#copyPage): the database selects the window's rows, matches the search's
 * words against the text each calendar's reader may see, orders, limits and counts. Only the rows the read returns are then placed,
 * masked and given rights (`complete`): a read's cost is its window's rows and its page.
 */
import type { BusySpan } from '../../domain/availability.ts';
import { type CalendarView, type Ordered, type PlacedEvent, placedEvent } from '../../domain/occurrences.ts';
import { localOffsets, type OffsetStep } from '../../domain/time/localOffsets.ts';
import { AppError } from '../../errors.ts';
import { narrowRights } from '../../policy/eventRights.ts';
import type { Scope } from '../../policy/workspacePolicy.ts';
import {
  type CopiedRow,
  type CopyQuery,
  copiedRows,
  copyBusy,
  copyPage,
  floatingNear,
} from '../../store/copyReads.ts';
import { copyEdition } from '../../store/wordCache.ts';
import type { CalendarDeps } from '../calendarDeps.ts';
import type { ConnectionDeps } from '../connections/connections.ts';
import type { CopyForRead } from '../copies.ts';

/** A copied row in the one order, read whole and made into its event only if the read returns it. */
export interface CopyCandidate extends Ordered {
  rowId: number;
  /** The row, where the statement that placed it brought it whole (a page's places); else read once chosen. */
  copied?: CopiedRow;
  complete(row: CopiedRow): PlacedEvent;
}

export interface CopyReadOptions {
  words?: readonly string[];
  first?: number;
  /** Only events after this place in the one order (a page cursor's). */
  after?: Ordered;
  scopes: readonly Scope[];
}

/** Events made from copied rows between two turns of the loop (about a millisecond's work). */
const madeAtOnce = 250;

/** A local time lies within 14 hours of its instant: the zone's offsets are taken a day either side. */
const dayMs = 86_400_000;

/**
 * The query's calendar, window and the reading zone's offsets for floating and all-day times.
 * `known`: offsets already worked out in this read (calendars of one zone share them).
 */
function windowOf(
  view: CalendarView,
  copy: CopyForRead,
  window: { start: Temporal.Instant; end: Temporal.Instant },
  known = new Map<string, OffsetStep[]>(),
) {
  const zone = view.placementZone;
  const span = {
    startMs: window.start.epochMilliseconds - copy.longestMs - dayMs,
    endMs: window.end.epochMilliseconds + dayMs,
  };
  let offsets: OffsetStep[] = [];
  if (zone !== undefined) {
    const key = `${zone} ${span.startMs}`;
    offsets = known.get(key) ?? localOffsets(zone, span);
    known.set(key, offsets);
  }
  return {
    calendarId: view.calendarId,
    copyKey: copy.copyKey,
    edition: copyEdition(copy),
    window: { startNs: window.start.epochNanoseconds, endNs: window.end.epochNanoseconds },
    longestMs: copy.longestMs,
    offsets,
  };
}

/** Every part's query window, each zone's offsets worked out once. */
function windowsOf(parts: readonly CopyPart[], window: { start: Temporal.Instant; end: Temporal.Instant }) {
  const known = new Map<string, OffsetStep[]>();
  return parts.map(({ view, copy }) => windowOf(view, copy, window, known));
}

/** Floating and all-day times need a zone to be placed, as they do read live (domain/occurrences.ts). */
const zoneRequired = () =>
  new AppError('time_zone_required', 'This calendar has floating or all-day times and no known time zone.');

/** A calendar a read answers from its copy: how it is seen, and the copy. */
export interface CopyPart {
  view: CalendarView;
  copy: CopyForRead;
}

/** A copy a read cannot answer from, and why. */
export interface RefusedCopy {
  calendarId: string;
  error: AppError;
}

/**
 * The parts a read can answer: a copy whose floating or all-day times have no zone to be placed
 * by is refused (`time_zone_required`) before the query, so what the query finds and counts is
 * that of the calendars answered.
 */
async function answerable(
  deps: Pick<ConnectionDeps, 'db'>,
  parts: readonly CopyPart[],
  window: { start: Temporal.Instant; end: Temporal.Instant },
): Promise<{ answered: CopyPart[]; refused: RefusedCopy[] }> {
  const refused: RefusedCopy[] = [];
  const answered: CopyPart[] = [];
  for (const part of parts) {
    const zoneless =
      part.view.placementZone === undefined &&
      (await floatingNear(deps.db, windowOf(part.view, part.copy, window)));
    if (zoneless) refused.push({ calendarId: part.view.calendarId, error: zoneRequired() });
    else answered.push(part);
  }
  return { answered, refused };
}

/** The copies' busy time in the window, times only, in one query: what availability and meeting times need of them. */
export async function readCopiesBusy(
  deps: Pick<ConnectionDeps, 'db'>,
  parts: readonly CopyPart[],
  window: { start: Temporal.Instant; end: Temporal.Instant },
  tentativeIsBusy: boolean,
): Promise<{ busy: BusySpan[]; refused: RefusedCopy[] }> {
  const { answered, refused } = await answerable(deps, parts, window);
  const spans = await copyBusy(deps.db, windowsOf(answered, window), tentativeIsBusy);
  const busy = spans.map((span) => ({
    startNs: BigInt(span.startMs) * 1_000_000n,
    endNs: BigInt(span.endMs) * 1_000_000n,
  }));
  return { busy, refused };
}

/**
 * The places of a read over the copies of `parts`, in the one order, from one query
 * (store/copyReads.ts#copyPage); each becomes its event only if the read returns it.
 */
export async function readCopies(
  deps: Pick<CalendarDeps, 'db' | 'wordCache'>,
  parts: readonly CopyPart[],
  window: { start: Temporal.Instant; end: Temporal.Instant },
  options: CopyReadOptions,
): Promise<{
  candidates: CopyCandidate[];
  total: number;
  refused: RefusedCopy[];
}> {
  const { after, words } = options;
  const { answered, refused } = await answerable(deps, parts, window);
  const windows = windowsOf(answered, window);
  const queries = answered.map(
    ({ view }, i): CopyQuery => ({
      ...windows[i]!,
      ...(words === undefined || words.length === 0
        ? {}
        : { search: { words, level: view.detailLevel, privateDetails: view.privateDetails } }),
      ...(after === undefined
        ? {}
        : {
            after: {
              startMs: after.startMs,
              calendarId: after.event.calendarId,
              occurrenceId: after.event.occurrenceId,
            },
          }),
    }),
  );
  const { rows, total } = await copyPage(deps.db, queries, options.first, deps.wordCache);
  const views = new Map(answered.map(({ view }) => [view.calendarId, view]));
  const candidates = rows.map((row): CopyCandidate => {
    const view = views.get(row.calendarId)!;
    return {
      startMs: row.startMs,
      startNs: BigInt(row.startMs) * 1_000_000n,
      event: { calendarId: row.calendarId, occurrenceId: row.occurrenceId },
      rowId: row.rowId,
      ...(row.copied === undefined ? {} : { copied: row.copied }),
      complete(copied) {
        const placed = placedEvent(
          copied.occurrence,
          view,
          { eventId: copied.eventId, occurrenceId: row.occurrenceId },
          row.floating ? undefined : row.startMs,
        );
        placed.event = narrowRights(placed.event, options.scopes);
        return placed;
      },
    };
  });
  return { candidates, total, refused };
}

/**
 * The events a read returns, in its order: its copied rows read whole at once (only those chosen
 * among every calendar's places) and made into events, the loop free between slices.
 */
export async function completeChosen(
  deps: Pick<ConnectionDeps, 'db'>,
  chosen: readonly (PlacedEvent | CopyCandidate)[],
  between: () => Promise<void>,
): Promise<PlacedEvent[]> {
  const rowIds = chosen.flatMap((e) => ('complete' in e && e.copied === undefined ? [e.rowId] : []));
  const rows = rowIds.length === 0 ? new Map<number, CopiedRow>() : await copiedRows(deps.db, rowIds);
  const events: PlacedEvent[] = [];
  for (let i = 0; i < chosen.length; i += madeAtOnce) {
    if (i > 0) await between();
    for (const e of chosen.slice(i, i + madeAtOnce)) {
      if (!('complete' in e)) events.push(e);
      else {
        const row = e.copied ?? rows.get(e.rowId);
        // Read in a second query: gone with a sync applied in between, or its id given to another
        // occurrence since (SQLite reuses the highest id), the event is no longer there.
        if (row !== undefined && row.occurrenceId === e.event.occurrenceId) events.push(e.complete(row));
      }
    }
  }
  return events;
}
