/** What the calendar services, reads and writes alike, are given by the composition root. */
import type { AccountDeps } from './accounts/connectedAccounts.ts';
import type { EventIdCodec } from './eventIds.ts';

export interface CalendarDeps extends AccountDeps {
  ids: EventIdCodec;
  /** Told about failures that were not the provider's answer (they are still reported to the caller). */
  onUnexpectedError?: (error: unknown) => void;
}
