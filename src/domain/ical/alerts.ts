/**
 * VALARM ↔ alerts: DISPLAY and EMAIL alarms with a relative trigger. An absolute trigger names
 * one moment, which means nothing for the other occurrences, so it is left out.
 */
import ICAL from 'ical.js';
import { alertOffset } from '../alertOffset.ts';
import type { Alert, AlertAction } from '../event.ts';
import type { WriteAlert } from '../eventChanges.ts';
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
    alerts.push({ offset: alertOffset(seconds(offset) + (relatedToEnd ? seconds(span) : 0)), action });
  }
  return alerts;
}

/** Replaces the event's alarms with display alarms before its start (what writes set; see writeAlerts.ts). */
export function setAlarms(event: Component, alerts: readonly WriteAlert[]): void {
  for (const alarm of event.getAllSubcomponents('valarm')) event.removeSubcomponent(alarm);
  for (const alert of alerts) {
    const alarm = new ICAL.Component('valarm');
    alarm.addPropertyWithValue('action', alert.action.toUpperCase());
    // DESCRIPTION is required of a DISPLAY alarm (RFC 5545 §3.6.6).
    alarm.addPropertyWithValue('description', String(event.getFirstPropertyValue('summary') ?? 'Reminder'));
    alarm.addPropertyWithValue(
      'trigger',
      ICAL.Duration.fromString(Temporal.Duration.from({ minutes: -alert.minutesBefore }).toString()),
    );
    event.addSubcomponent(alarm);
  }
}

/** A duration in seconds, days counted as 24 hours (an end-related trigger adds the span to it). */
const seconds = (duration: Temporal.Duration) =>
  duration.weeks * 604800 +
  duration.days * 86400 +
  duration.hours * 3600 +
  duration.minutes * 60 +
  duration.seconds;
