/**
 * The person's one default calendar among all their connected accounts: each provider names at
 * most one per account (Google `primary`, Microsoft `isDefaultCalendar`, CalDAV
 * `schedule-default-calendar-URL`, else the first calendar the server lists; ICS none), and the
 * account connected first wins, so connecting another account never moves it.
 */
export function defaultCalendarId(
  accountsInConnectOrder: readonly (readonly { id: string; primary: boolean }[])[],
): string | undefined {
  for (const calendars of accountsInConnectOrder) {
    const named = calendars.find((calendar) => calendar.primary);
    if (named !== undefined) return named.id;
  }
  return undefined;
}
