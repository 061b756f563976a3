/**
 * Reads one calendar's events in a window as the client may see them: provider occurrences
 * through the account's adapter, then the core's placement, masking and edit rights.
 */

import { type DetailLevel, lowerDetail } from '../../domain/detailLevels.ts';
import { type CalendarView, type EventIds, type PlacedEvent, toEvents } from '../../domain/occurrences.ts';
import type { SkippedItem } from '../../domain/providerFacts.ts';
import type { TimeWindow } from '../../domain/window.ts';
import { AppError } from '../../errors.ts';
import { providerDetailCap } from '../../policy/consent.ts';
import { providerFor } from '../../providers/registry.ts';
import type { CalendarRecord, ConnectedAccount } from '../../store/connectedAccounts.ts';
import { type ConnectionDeps, withConnection } from '../connections/connections.ts';

export interface ReadOptions {
  window: TimeWindow;
  /** Level granted for this calendar (consent and workspace policy already applied). */
  detailLevel: DetailLevel;
  privateDetails: boolean;
  /** The user's confirmed IANA zone, for floating and all-day times of calendars without one. */
  timeZone?: string;
}

export interface CalendarEvents {
  events: PlacedEvent[];
  skipped: SkippedItem[];
}

/** CalDAV and ICS calendars may hold floating times that only a zone can place. */
export function needsTimeZone(
  account: ConnectedAccount,
  calendar: CalendarRecord,
  timeZone?: string,
): boolean {
  return (
    (account.provider === 'caldav' || account.provider === 'ics') &&
    calendar.timeZone === undefined &&
    timeZone === undefined
  );
}

export async function readCalendarEvents(
  deps: ConnectionDeps & { ids: EventIds },
  account: ConnectedAccount,
  calendar: CalendarRecord,
  options: ReadOptions,
): Promise<CalendarEvents> {
  // Decided before any provider call: no zone is ever guessed.
  if (needsTimeZone(account, calendar, options.timeZone)) {
    throw new AppError(
      'time_zone_required',
      `Calendar "${calendar.name}" has no known time zone; give the user's time zone.`,
      {
        details: { calendarId: calendar.id },
      },
    );
  }
  const provider = providerFor(deps.providers, account.provider);
  const { occurrences, skipped } = await withConnection(deps, account, (access) =>
    provider.listEvents(access, calendar, options.window),
  );
  return {
    events: toEvents(occurrences, calendarView(calendar, options), deps.ids, options.window),
    skipped,
  };
}

/** How the client sees this calendar's events: its level, private details, the zone for floating times, the zone times are shown in. */
export function calendarView(
  calendar: CalendarRecord,
  options: Pick<ReadOptions, 'detailLevel' | 'privateDetails' | 'timeZone'>,
): CalendarView {
  const placementZone = calendar.timeZone ?? options.timeZone;
  return {
    calendarId: calendar.id,
    access: calendar.access,
    // The provider's right caps what was granted here too, whoever the caller is.
    detailLevel: lowerDetail(options.detailLevel, providerDetailCap(calendar.access)),
    privateDetails: options.privateDetails,
    ...(placementZone === undefined ? {} : { placementZone }),
    ...(options.timeZone === undefined ? {} : { shownZone: options.timeZone }),
  };
}
