/**
 * Who is calling a protected resource, and what the grant lets them reach right now: what the
 * bearer check hands to the read service and the tools. Pure data.
 */

import type { DetailLevel } from '../domain/detailLevels.ts';
import type { Scope, WorkspacePolicy } from './workspacePolicy.ts';

export interface Principal {
  userId: string;
  workspaceId: string;
  clientId: string;
  grantId: string;
  /** Token scopes ∩ granted scopes ∩ workspace policy ∩ what this resource offers. */
  scopes: Scope[];
  /** The calendars chosen at consent, with the level chosen for each. */
  calendars: Array<{ calendarId: string; detailLevel: DetailLevel }>;
  privateDetails: boolean;
  policy: WorkspacePolicy;
}
