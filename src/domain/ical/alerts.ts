/**
 * VALARM → alerts: DISPLAY and EMAIL alarms with a relative trigger. An absolute trigger names
 * one moment, which means nothing for the other occurrences, so it is left out.
 */
import ICAL from 'ical.js';
import type { Alert, AlertAction } from '../event.ts';
import type { Component } from './parse.ts';

const actions: Record<string, AlertAction> = { DISPLAY: 'display', EMAIL: 'email' };

/** `span` is the occurrence's duration, for triggers related to the end. */
export function alertsOf(component: Component, span: Temporal.Duration): Alert[] {
  const alerts: Alert[] = [];
  for (const alarm of component.getAllSubcomponents('valarm')) {
    const action =
      actions[
        String(alarm.getFirstPropertyValue('action') ?? '')
          .trim()
          .toUpperCase()
      ];
    const trigger = alarm.getFirstProperty('trigger');
    const value = trigger?.getFirstValue();
    if (action === undefined || trigger === null || !(value instanceof ICAL.Duration)) continue;
    const sign = value.isNegative ? -1 : 1;
    const offset = Temporal.Duration.from({
      weeks: sign * value.weeks,
      days: sign * value.days,
      hours: sign * value.hours,
      minutes: sign * value.minutes,
      seconds: sign * value.seconds,
    });
    const relatedToEnd = trigger.getFirstParameter('related')?.toUpperCase() === 'END';
    alerts.push({ offset: (relatedToEnd ? fromEnd(offset, span) : offset).toString(), action });
  }
  return alerts;
}

/** An end-related trigger as an offset from the start (days counted as 24 hours). */
function fromEnd(offset: Temporal.Duration, span: Temporal.Duration): Temporal.Duration {
  const seconds = (duration: Temporal.Duration) =>
    duration.weeks * 604800 +
    duration.days * 86400 +
    duration.hours * 3600 +
    duration.minutes * 60 +
    duration.seconds;
  return Temporal.Duration.from({ seconds: seconds(span) + seconds(offset) }).round({ largestUnit: 'hours' });
}
