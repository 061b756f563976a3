/**
 * Busy time of people outside the workspace, as the providers of the caller's own accounts can
 * tell it (Google freeBusy, Graph getSchedule, a CalDAV schedule outbox): every account the grant reaches is asked for
 * everyone at once, in parallel, within the read deadline; what an account told this grant in the
 * last minute is not asked again (busyLookups.ts). An account that fails or runs out of time tells
 * nothing more; it never fails the answer.
 */
import type { TimeWindow } from '../../domain/window.ts';
import { isAppError } from '../../errors.ts';
import { waitAtMost } from '../../lib/waitAtMost.ts';
import type { Principal } from '../../policy/principal.ts';
import type { ToldBusy } from '../../providers/port.ts';
import { providerFor } from '../../providers/registry.ts';
import { accountsOf, findCalendars } from '../../store/connectedAccounts.ts';
import type { CalendarDeps } from '../calendarDeps.ts';
import { withConnection } from '../connections/connections.ts';

export type ProviderSource = 'google' | 'microsoft' | 'caldav';

export interface OutsidersBusy {
  /** By address key: the busy time (working hours where told) and the provider that told it. */
  known: Map<string, ToldBusy & { source: ProviderSource }>;
  /** Whether any account was there to ask: if not, nobody outside could have been told. */
  asked: boolean;
}

export async function outsidersBusy(
  deps: CalendarDeps,
  principal: Principal,
  keys: readonly string[],
  window: TimeWindow,
): Promise<OutsidersBusy> {
  const known: OutsidersBusy['known'] = new Map();
  if (keys.length === 0) return { known, asked: false };
  // Only accounts the person shared a calendar of with this grant act for it.
  const granted = new Set(
    (
      await findCalendars(
        deps.db,
        principal.calendars.map((c) => c.calendarId),
      )
    ).map((c) => c.accountId),
  );
  const accounts = (await accountsOf(deps.db, principal.userId, principal.workspaceId)).filter(
    (a) => granted.has(a.id) && a.status === 'active',
  );
  const answers = await Promise.all(
    accounts.map(async (account) => {
      const provider = providerFor(deps.providers, account.provider);
      if (provider.freeBusy === undefined || account.provider === 'ics') return undefined;
      const scope = { grantId: principal.grantId, accountId: account.id, window };
      const { kept, missing } = deps.busyLookups?.find(scope, keys) ?? { kept: new Map(), missing: keys };
      const told = new Map<string, ToldBusy>();
      for (const [key, answer] of kept) if (answer !== undefined) told.set(key, answer);
      if (missing.length === 0) return { source: account.provider, told };
      const lookup = withConnection(deps, account, (access) => provider.freeBusy!(access, missing, window));
      try {
        const fresh = await waitAtMost(lookup, deps.readDeadlineMs);
        if (fresh === undefined) return kept.size === 0 ? undefined : { source: account.provider, told };
        deps.busyLookups?.keep(scope, missing, fresh);
        for (const [key, answer] of fresh) told.set(key, answer);
        return { source: account.provider, told };
      } catch (error) {
        if (!isAppError(error)) deps.onUnexpectedError?.(error);
        return kept.size === 0 ? undefined : { source: account.provider, told };
      }
    }),
  );
  // The first account (oldest) that can tell about a person answers for them.
  for (const answer of answers) {
    if (answer === undefined) continue;
    for (const [key, told] of answer.told) {
      if (!known.has(key)) known.set(key, { source: answer.source, ...told });
    }
  }
  return { known, asked: accounts.length > 0 };
}
