/**
 * The calendars of a grant with their effective detail level, and what was left out and why
 * (calendars not chosen at consent, accounts that need reconnecting): `GET /v1/calendars` and
 * the `list_calendars` tool.
 */
import type { Kysely } from 'kysely';
import type { DetailLevel } from '../../domain/detailLevels.ts';
import type { ProviderKind } from '../../domain/providerFacts.ts';
import { effectiveDetailLevel } from '../../policy/consent.ts';
import type { Principal } from '../../policy/principal.ts';
import { accountsOf, calendarsOfAccount } from '../../store/connectedAccounts.ts';
import type { Database } from '../../store/schema.ts';
import { defaultCalendarId } from '../defaultCalendar.ts';

export interface CalendarItem {
  id: string;
  name: string;
  provider: ProviderKind;
  accountId: string;
  primary: boolean;
  readOnly: boolean;
  detailLevel: DetailLevel;
  timeZone?: string;
  color?: string;
}

export interface Exclusion {
  reason: 'not_selected' | 'reconnect_required';
  count: number;
  accountId?: string;
}

export async function grantedCalendars(
  db: Kysely<Database>,
  principal: Principal,
): Promise<{ data: CalendarItem[]; meta: { excluded: Exclusion[] } }> {
  const granted = new Map(principal.calendars.map((c) => [c.calendarId, c.detailLevel]));
  const data: CalendarItem[] = [];
  const excluded: Exclusion[] = [];
  let notSelected = 0;
  const accounts = await accountsOf(db, principal.userId, principal.workspaceId);
  const calendarsByAccount = await Promise.all(accounts.map((a) => calendarsOfAccount(db, a.id)));
  // One default for the person, whether or not this grant shares it: never one per account.
  const defaultId = defaultCalendarId(calendarsByAccount);
  for (const [index, account] of accounts.entries()) {
    const calendars = calendarsByAccount[index]!;
    const chosen = calendars.filter((c) => granted.has(c.id));
    notSelected += calendars.length - chosen.length;
    if (account.status === 'reconnect_required') {
      if (chosen.length > 0)
        excluded.push({ reason: 'reconnect_required', count: chosen.length, accountId: account.id });
      continue;
    }
    for (const c of chosen) {
      data.push({
        id: c.id,
        name: c.name,
        provider: account.provider,
        accountId: account.id,
        primary: c.id === defaultId,
        readOnly: c.access === 'reader' || c.access === 'freeBusy',
        detailLevel: effectiveDetailLevel(granted.get(c.id)!, principal.policy, c.access),
        ...(c.timeZone ? { timeZone: c.timeZone } : {}),
        ...(c.color ? { color: c.color } : {}),
      });
    }
  }
  if (notSelected > 0) excluded.push({ reason: 'not_selected', count: notSelected });
  return { data, meta: { excluded } };
}
