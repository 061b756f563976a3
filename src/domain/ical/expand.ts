/**
 * iCalendar text → the occurrences in a window (pure, no I/O). Events are grouped by UID: the
 * master's recurrence set, its RECURRENCE-ID overrides (RANGE=THISANDFUTURE included) and
 * orphan overrides. Anything that cannot be read is reported in `skipped`, never dropped; when
 * the budget runs out the expansion stops there and says how many events it left out.
 */
import { createHash } from 'node:crypto';
import { AppError, isAppError } from '../../errors.ts';
import { type Budget, BudgetExceeded, spend, unlimitedBudget } from '../budget.ts';
import type { EventsResult, ProviderOccurrence, SkippedItem } from '../providerFacts.ts';
import { resolveTzid } from '../time/zones.ts';
import type { TimeWindow } from '../window.ts';
import { declaredSpan, defaultSpan } from './durations.ts';
import { toOccurrence } from './occurrence.ts';
import { futureShifts, type Override, readOverrides, shifted } from './overrides.ts';
import { type Component, messageOf, parseCalendar } from './parse.ts';
import { seriesInstances } from './recurrence.ts';
import {
  type IcalTime,
  keyOf,
  orderOf,
  type Point,
  pointOf,
  readTime,
  type ZoneLookup,
  zoneLookup,
} from './times.ts';
import { latest } from './versions.ts';
import { inWindow, longestMs, unplacedSlackMs } from './window.ts';

export interface ExpandOptions {
  window: TimeWindow;
  /** The resource ETag, copied to facts.version. */
  version?: string;
  /** The connected user's e-mail addresses (mailto: compared case-insensitively). */
  selfAddresses?: string[];
  /** The whole feed is a managed copy (e.g. an ICS subscription). */
  managedCopy?: boolean;
  /** Default 5000; the rest are left out and the event is named in `skipped`. */
  maxOccurrencesPerEvent?: number;
  /** What the expansion may spend; shared by every object of one calendar's read. */
  budget?: Budget;
}

const defaultMaxOccurrences = 5000;
const maxIterations = 200_000;

interface Context {
  budget: Budget;
  zones: ZoneLookup;
  defaultZone: string | undefined;
  options: ExpandOptions;
}

interface Placed {
  order: number;
  occurrence: ProviderOccurrence;
}

/** Throws `invalid_request` when the text is not iCalendar at all. */
export function expandIcs(ics: string, options: ExpandOptions): EventsResult {
  const budget = options.budget ?? unlimitedBudget();
  let calendar: ReturnType<typeof parseCalendar>;
  try {
    calendar = parseCalendar(ics, budget);
  } catch (error) {
    if (error instanceof BudgetExceeded) return { occurrences: [], skipped: [{ reason: error.message }] };
    throw error;
  }
  const context: Context = {
    budget,
    zones: zoneLookup(
      calendar.components.filter((component) => component.name === 'vtimezone'),
      budget,
    ),
    defaultZone: defaultZoneOf(calendar.properties, calendar.components),
    options,
  };
  const skipped: SkippedItem[] = calendar.malformed.map(({ uid, reason }) => ({
    ...(uid !== undefined && { providerEventId: uid }),
    reason,
  }));
  const limit = options.maxOccurrencesPerEvent ?? defaultMaxOccurrences;
  const placed: Placed[] = [];
  const groups = [...groupByUid(calendar.components)];
  for (const [index, [uid, components]] of groups.entries()) {
    try {
      const occurrences = expandEvent(uid, components, context);
      if (occurrences.length > limit) {
        skipped.push({
          providerEventId: uid,
          reason: `more than ${limit} occurrences in the window; the rest are left out`,
        });
      }
      placed.push(...occurrences.slice(0, limit));
    } catch (error) {
      if (error instanceof BudgetExceeded) {
        const left = groups.length - index;
        skipped.push({ reason: `${error.message} (${left} event${left === 1 ? '' : 's'} not read)` });
        break;
      }
      skipped.push({
        providerEventId: uid,
        reason: isAppError(error) ? error.message : `malformed event: ${messageOf(error)}`,
      });
    }
  }
  placed.sort(
    (a, b) => a.order - b.order || a.occurrence.providerEventId.localeCompare(b.occurrence.providerEventId),
  );
  return { occurrences: placed.map(({ occurrence }) => occurrence), skipped };
}

/** The zone a calendar declares (X-WR-TIMEZONE) as an IANA name, if it declares a known one. */
export const calendarTimeZone = (ics: string): string | undefined =>
  declaredZone(parseCalendar(ics, unlimitedBudget(), { components: false }).properties);

/** The zone a calendar declares for itself (X-WR-TIMEZONE), when it names one we know. */
export function declaredZone(properties: Map<string, string>): string | undefined {
  const declared = properties.get('x-wr-timezone');
  return declared === undefined ? undefined : resolveTzid(declared);
}

/**
 * The zone used to read UTC values against all-day series (UNTIL, EXDATE, RECURRENCE-ID):
 * X-WR-TIMEZONE, else the one zone all the file's VTIMEZONEs stand for.
 */
export function defaultZoneOf(properties: Map<string, string>, components: Component[]): string | undefined {
  const resolved = declaredZone(properties);
  if (resolved !== undefined) return resolved;
  const zones = new Set(
    components
      .filter((component) => component.name === 'vtimezone')
      .map((component) => component.getFirstPropertyValue('tzid'))
      .map((tzid) => (typeof tzid === 'string' ? resolveTzid(tzid) : undefined))
      .filter((zone) => zone !== undefined),
  );
  return zones.size === 1 ? [...zones][0] : undefined;
}

function groupByUid(components: Component[]): Map<string, Component[]> {
  const groups = new Map<string, Component[]>();
  for (const component of components) {
    if (component.name !== 'vevent') continue;
    const uid = component.getFirstPropertyValue('uid');
    const key = typeof uid === 'string' && uid.trim() !== '' ? uid : generatedUid(component);
    groups.set(key, [...(groups.get(key) ?? []), component]);
  }
  return groups;
}

/**
 * A VEVENT without UID (RFC violation, seen in old exports) gets an id derived from its content
 * (DTSTAMP aside, which some feeds renew on every download).
 */
function generatedUid(component: Component): string {
  const hash = createHash('sha256');
  for (const property of component.getAllProperties()) {
    if (property.name !== 'dtstamp') hash.update(`${property.toICALString()}\n`);
  }
  return `generated-${hash.digest('hex').slice(0, 32)}`;
}

function expandEvent(uid: string, components: Component[], context: Context): Placed[] {
  const { zones, defaultZone, options, budget } = context;
  const master = latest(components.filter((component) => !component.hasProperty('recurrence-id')));
  const series = master === undefined ? undefined : seriesOf(master, context);
  const overrides = readOverrides(
    components.filter((component) => component.hasProperty('recurrence-id')),
    series,
    zones,
    defaultZone,
  );
  const placed: Placed[] = [];
  // Only occurrences in the window are built; a long series yields many more instances.
  const place = (component: Component, point: Point, span: Temporal.Duration, recurrenceId?: string) => {
    if (!inWindow(point, span, options.window)) return;
    spend(budget, 'occurrences');
    const recurring = recurrenceId !== undefined;
    const source = {
      providerEventId: uid,
      component,
      point,
      span,
      recurring,
      ...(recurring && { recurrenceId }),
    };
    placed.push({ order: orderOf(point), occurrence: toOccurrence(source, options) });
  };
  for (const override of overrides.values()) {
    place(override.component, pointOf(override.start), override.span, override.key);
  }
  if (master !== undefined && series !== undefined) {
    placeSeries(master, series, overrides, context, place);
  }
  return placed.sort((a, b) => a.order - b.order);
}

interface Series {
  start: IcalTime;
  span: Temporal.Duration;
}

function seriesOf(master: Component, { zones, defaultZone }: Context): Series {
  const dtstart = master.getFirstProperty('dtstart');
  if (dtstart === null) throw new AppError('invalid_request', 'missing DTSTART');
  const start = readTime(dtstart, zones);
  return { start, span: declaredSpan(master, start, zones, defaultZone) ?? defaultSpan(start) };
}

/** The master's instances that no override replaces, moved by THISANDFUTURE overrides. */
function placeSeries(
  master: Component,
  series: Series,
  overrides: Map<string, Override>,
  { zones, defaultZone, options, budget }: Context,
  place: (component: Component, point: Point, span: Temporal.Duration, recurrenceId?: string) => void,
): void {
  if (!master.hasProperty('rrule') && !master.hasProperty('rdate')) {
    const point = pointOf(series.start);
    if (!overrides.has(keyOf(point))) place(master, point, series.span);
    return;
  }
  const shifts = futureShifts(overrides.values(), series.start, defaultZone);
  // Bounds for rule instances, widened by how long one lasts and how far a THISANDFUTURE
  // override moves later instances (earlier moves bring instances from past the window in).
  const moves = shifts.map((shift) => shift.moveMs);
  const longest = Math.max(longestMs(series.span), ...shifts.map((shift) => longestMs(shift.override.span)));
  const instances = seriesInstances(master, series.start, zones, defaultZone, {
    keepFrom: options.window.start.epochMilliseconds - unplacedSlackMs - longest - Math.max(0, ...moves),
    stopOrder: options.window.end.epochMilliseconds + unplacedSlackMs - Math.min(0, ...moves),
    maxIterations,
    budget,
  });
  for (const instance of instances) {
    if (overrides.has(instance.key)) continue;
    const future = shifts.findLast((shift) => shift.from < instance.order);
    if (future === undefined) {
      place(master, instance.point, instance.span ?? series.span, instance.key);
    } else {
      place(
        future.override.component,
        shifted(instance.point, future.shift),
        future.override.span,
        instance.key,
      );
    }
  }
}
