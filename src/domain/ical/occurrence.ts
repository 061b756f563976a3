/**
 * One placed occurrence of a VEVENT (master, override or orphan) → a ProviderOccurrence.
 */
import type { ProviderOccurrence } from '../providerFacts.ts';
import { alertsOf } from './alerts.ts';
import { describe } from './describe.ts';
import { wholeDays } from './durations.ts';
import type { Component } from './parse.ts';
import { participants, participation } from './participants.ts';
import { hasConference, isGoogleBirthday } from './providerHints.ts';
import type { Point } from './times.ts';

export interface OccurrenceSource {
  providerEventId: string;
  /** The component whose properties the occurrence shows (master or override). */
  component: Component;
  point: Point;
  span: Temporal.Duration;
  recurring: boolean;
  recurrenceId?: string;
}

export interface OccurrenceOptions {
  version?: string;
  selfAddresses?: string[];
  managedCopy?: boolean;
}

export function toOccurrence(source: OccurrenceSource, options: OccurrenceOptions): ProviderOccurrence {
  const { component, point } = source;
  const span = point.kind === 'date' ? wholeDays(source.span) : source.span;
  const alerts = alertsOf(component, span);
  const { responseStatus, ...people } = participation(component, options.selfAddresses);
  return {
    providerEventId: source.providerEventId,
    ...(source.recurrenceId !== undefined && { recurrenceId: source.recurrenceId }),
    ...placement(point),
    duration: span.toString(),
    ...describe(component),
    ...(alerts.length > 0 && { alerts }),
    ...(responseStatus && { responseStatus }),
    ...participants(component, options.selfAddresses),
    facts: {
      recurring: source.recurring,
      ...people,
      conference: hasConference(component),
      managedCopy: options.managedCopy === true || isGoogleBirthday(component),
      ...(options.version !== undefined && { version: options.version }),
    },
  };
}

function placement(point: Point): Pick<ProviderOccurrence, 'start' | 'timeZone' | 'showWithoutTime'> {
  if (point.kind === 'date') return { start: `${point.date.toString()}T00:00:00`, showWithoutTime: true };
  if (point.kind === 'floating') {
    return { start: point.local.toString({ smallestUnit: 'second' }), showWithoutTime: false };
  }
  return {
    start: point.zdt.toPlainDateTime().toString({ smallestUnit: 'second' }),
    timeZone: point.zdt.timeZoneId,
    showWithoutTime: false,
  };
}
