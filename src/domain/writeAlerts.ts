/**
 * Reminders a write sets, in the form the read tools show them (`offset`: a signed ISO 8601
 * duration relative to the start, e.g. -PT15M), and what each provider can hold of them. Only
 * reminders at or before the start, in whole minutes, up to four weeks ahead: what Google,
 * Graph and VALARM hold alike. Pure.
 */

import { AppError, invalidField } from '../errors.ts';
import type { AlertAction, Alert as ReadAlert } from './event.ts';
import type { EventFields, NewEvent, WriteAlert } from './eventChanges.ts';
import type { ProviderKind } from './providerFacts.ts';

export const maxAlerts = 5;
/** Four weeks: Google's longest reminder. */
export const maxMinutesBefore = 40_320;

export function writeAlerts(alerts: readonly ReadAlert[]): WriteAlert[] {
  return alerts.map((alert, i) => {
    const field = `alerts[${i}].offset`;
    let offset: Temporal.Duration;
    try {
      offset = Temporal.Duration.from(alert.offset);
    } catch {
      throw invalidField(
        field,
        'Give the offset as an ISO 8601 duration before the start, such as -PT15M or -P1D.',
      );
    }
    if (offset.years !== 0 || offset.months !== 0 || offset.weeks !== 0) {
      throw invalidField(field, 'Give the offset in days, hours and minutes (at most -P28D).');
    }
    const minutes = -offset.total({ unit: 'minutes' }) || 0;
    if (!Number.isInteger(minutes) || minutes < 0 || minutes > maxMinutesBefore) {
      throw invalidField(
        field,
        'A reminder comes at or before the start, in whole minutes, at most four weeks (-P28D) ahead.',
      );
    }
    return { minutesBefore: minutes, action: alert.action ?? 'display' };
  });
}

/** What a provider's events can hold of what a write sets. */
interface WriteLimits {
  alerts: number;
  actions: readonly AlertAction[];
  conference: boolean;
}

const limits: Record<Exclude<ProviderKind, 'ics'>, WriteLimits & { name: string }> = {
  google: { name: 'Google Calendar', alerts: maxAlerts, actions: ['display', 'email'], conference: true },
  // An Outlook event has one reminder, shown by the person's own devices.
  microsoft: { name: 'Microsoft 365', alerts: 1, actions: ['display'], conference: true },
  // VALARMs are kept by every CalDAV server, but e-mail alarms need the server to send mail, which
  // CalDAV does not promise; and CalDAV has no online meetings of its own.
  caldav: { name: 'This CalDAV calendar', alerts: maxAlerts, actions: ['display'], conference: false },
};

const unsupported = (field: string, message: string) =>
  new AppError('unsupported_by_provider', message, { details: { field } });

/** Refuses, before anything is written, what the calendar's provider cannot hold. */
export function checkWriteLimits(
  kind: ProviderKind,
  fields: EventFields & Pick<NewEvent, 'conference'>,
): void {
  if (kind === 'ics') return;
  const limit = limits[kind];
  const alerts = fields.alerts ?? [];
  if (alerts.length > limit.alerts) {
    throw unsupported(
      'alerts',
      `${limit.name} holds at most ${limit.alerts} reminder${limit.alerts === 1 ? '' : 's'} per event.`,
    );
  }
  const index = alerts.findIndex((alert) => !limit.actions.includes(alert.action));
  if (index >= 0) {
    throw unsupported(
      `alerts[${index}].action`,
      `${limit.name} cannot send e-mail reminders; use "display".`,
    );
  }
  if (fields.conference === true && !limit.conference) {
    throw unsupported(
      'conference',
      `${limit.name} has no online meetings of its own; add a meeting link to the description instead.`,
    );
  }
}
