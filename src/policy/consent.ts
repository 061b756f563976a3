/**
 * What a person may grant a client in a workspace, and whether a submitted consent stays inside
 * it. Pure: the effective detail level of a calendar is the lowest of the provider's right, the
 * person's choice and the workspace cap; scopes are those requested that the policy allows.
 */

import { type DetailLevel, detailLevels, isDetailLevel, lowerDetail } from '../domain/detailLevels.ts';
import type { CalendarAccess } from '../domain/providerFacts.ts';
import { AppError, invalidField } from '../errors.ts';
import { isScope, permittedScopes, type Scope, type WorkspacePolicy } from './workspacePolicy.ts';

/** The most a provider right lets anyone see: free/busy access shows busy blocks only. */
export const providerDetailCap = (access: CalendarAccess): DetailLevel =>
  access === 'freeBusy' ? 'busy' : 'full';

/** The level a calendar is read at now: the lowest of the grant's choice, the policy cap and the provider right. */
export const effectiveDetailLevel = (
  granted: DetailLevel,
  policy: WorkspacePolicy,
  access: CalendarAccess,
): DetailLevel => lowerDetail(lowerDetail(granted, policy.maxDetailLevel), providerDetailCap(access));

export interface OfferedCalendar {
  id: string;
  /** The highest level the person may choose. */
  maxLevel: DetailLevel;
  /** The level chosen until the person picks another: the default, within `maxLevel`. */
  defaultLevel: DetailLevel;
}

export interface ConsentOffer {
  scopes: Scope[];
  /** Asked for, but not allowed by the workspace: said on the consent page, left out of the token. */
  withheld: Scope[];
  calendars: OfferedCalendar[];
  privateDetailsOffered: boolean;
}

export function consentOffer(
  policy: WorkspacePolicy,
  requestedScopes: Iterable<string>,
  calendars: ReadonlyArray<{ id: string; access: CalendarAccess }>,
): ConsentOffer {
  const asked = [...requestedScopes].filter(isScope);
  const permitted = permittedScopes(policy, asked);
  return {
    scopes: permitted,
    withheld: asked.filter((scope) => !permitted.includes(scope)),
    calendars: calendars.map((c) => {
      const maxLevel = lowerDetail(providerDetailCap(c.access), policy.maxDetailLevel);
      return { id: c.id, maxLevel, defaultLevel: lowerDetail(policy.defaultDetailLevel, maxLevel) };
    }),
    privateDetailsOffered: policy.privateDetailsAllowed,
  };
}

/** Levels a person can choose for a calendar, least revealing first. */
export const levelsUpTo = (max: DetailLevel): DetailLevel[] =>
  detailLevels.slice(0, detailLevels.indexOf(max) + 1);

export interface ConsentChoice {
  calendars: Array<{ calendarId: string; detailLevel: unknown }>;
  privateDetails: boolean;
}

/**
 * The calendars and levels of a valid choice. A calendar that was not offered (someone else's,
 * or unknown) is refused as not permitted, the same answer either way.
 */
export function checkConsent(
  offer: ConsentOffer,
  choice: ConsentChoice,
): Array<{ calendarId: string; detailLevel: DetailLevel }> {
  if (offer.scopes.length === 0)
    throw new AppError('forbidden', 'This workspace allows none of the requested access.');
  if (choice.calendars.length === 0) throw invalidField('calendars', 'Choose at least one calendar.');
  if (choice.privateDetails && !offer.privateDetailsOffered) {
    throw new AppError('forbidden', 'This workspace does not allow sharing details of private events.');
  }
  const seen = new Set<string>();
  return choice.calendars.map(({ calendarId, detailLevel }) => {
    const offered = offer.calendars.find((c) => c.id === calendarId);
    if (offered === undefined || seen.has(calendarId)) {
      throw new AppError('calendar_not_permitted', 'One of the chosen calendars cannot be shared here.');
    }
    seen.add(calendarId);
    if (!isDetailLevel(detailLevel) || !levelsUpTo(offered.maxLevel).includes(detailLevel)) {
      throw invalidField(`level_${calendarId}`, 'Choose one of the detail levels offered for this calendar.');
    }
    return { calendarId, detailLevel };
  });
}
