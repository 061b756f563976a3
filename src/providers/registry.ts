/** The adapters this deployment offers, by provider kind; Google and Microsoft only when configured. */

import type { ProviderKind } from '../domain/providerFacts.ts';
import { AppError } from '../errors.ts';
import type { CalendarProvider } from './port.ts';

export type Providers = { [K in ProviderKind]?: CalendarProvider<K> };

export function providerFor(providers: Providers, kind: ProviderKind): CalendarProvider {
  // The map holds each adapter under its own kind, so it accepts that kind's credentials.
  const provider = providers[kind] as CalendarProvider | undefined;
  if (provider === undefined)
    throw new AppError('invalid_request', `Connecting ${kind} accounts is not configured here.`);
  return provider;
}
