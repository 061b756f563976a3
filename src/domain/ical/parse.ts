/**
 * iCalendar text → components. Each top-level component (VEVENT, VTIMEZONE, …) is parsed on
 * its own, so one broken event is reported instead of failing the whole feed.
 */
import ICAL from 'ical.js';
import { AppError } from '../../errors.ts';
import { type Budget, spend, unlimitedBudget } from '../budget.ts';

export type Component = InstanceType<typeof ICAL.Component>;

export interface MalformedComponent {
  uid?: string;
  reason: string;
}

export interface ParsedCalendar {
  /** Top-level components of every VCALENDAR in the text, in file order. */
  components: Component[];
  /** Calendar-level properties (lower-case name → first value), e.g. `x-wr-timezone`, `prodid`. */
  properties: Map<string, string>;
  malformed: MalformedComponent[];
}

const beginLine = /^BEGIN:([A-Za-z0-9-]+)\s*$/i;
const endLine = /^END:([A-Za-z0-9-]+)\s*$/i;

/**
 * Throws `invalid_request` when the text is not iCalendar at all, and BudgetExceeded when it
 * holds more bytes or components than the budget allows. `components: false` reads only the
 * calendar-level properties (a feed's name and zone), skipping the costly parse of each component.
 */
export function parseCalendar(
  text: string,
  budget: Budget = unlimitedBudget(),
  { components = true }: { components?: boolean } = {},
): ParsedCalendar {
  spend(budget, 'bytes', text.length);
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const result: ParsedCalendar = { components: [], properties: new Map(), malformed: [] };
  let calendars = 0;
  let inCalendar = false;
  let block: string[] | undefined;
  let depth = 0;
  const propertyLines: string[] = [];

  for (const line of lines) {
    const begin = beginLine.exec(line)?.[1]?.toUpperCase();
    const end = endLine.exec(line)?.[1]?.toUpperCase();
    if (!inCalendar) {
      if (begin === 'VCALENDAR') {
        inCalendar = true;
        calendars += 1;
      }
      continue;
    }
    if (block === undefined) {
      if (begin !== undefined) {
        block = [line];
        depth = 1;
      } else if (end === 'VCALENDAR') {
        inCalendar = false;
      } else if (/^[ \t]/.test(line) && propertyLines.length > 0) {
        propertyLines[propertyLines.length - 1] += `\r\n${line}`;
      } else if (line.trim() !== '') {
        propertyLines.push(line);
      }
      continue;
    }
    if (end === 'VCALENDAR') {
      // The calendar ends inside a component: that component never ended.
      addUnterminated(block, result);
      block = undefined;
      inCalendar = false;
      continue;
    }
    block.push(line);
    if (begin !== undefined) depth += 1;
    if (end !== undefined) depth -= 1;
    if (depth === 0) {
      if (components) {
        spend(budget, 'items');
        addComponent(block, result);
      }
      block = undefined;
    }
  }
  if (calendars === 0) throw new AppError('invalid_request', 'The text is not an iCalendar document.');
  if (block !== undefined) addUnterminated(block, result);
  for (const line of propertyLines) addCalendarProperty(line, result.properties);
  return result;
}

function wrap(lines: string): unknown {
  return ICAL.parse(`BEGIN:VCALENDAR\r\n${lines}\r\nEND:VCALENDAR\r\n`);
}

function addComponent(block: string[], result: ParsedCalendar): void {
  try {
    const component = new ICAL.Component(wrap(block.join('\r\n')) as unknown[]).getAllSubcomponents()[0];
    if (component !== undefined) result.components.push(component);
  } catch (error) {
    result.malformed.push({ ...uidOf(block), reason: `malformed component: ${messageOf(error)}` });
  }
}

function addUnterminated(block: string[], result: ParsedCalendar): void {
  result.malformed.push({ ...uidOf(block), reason: 'malformed component: it does not end' });
}

function addCalendarProperty(line: string, properties: Map<string, string>): void {
  try {
    const property = new ICAL.Component(wrap(line) as unknown[]).getAllProperties()[0];
    const value = property?.getFirstValue();
    if (property !== undefined && typeof value === 'string' && !properties.has(property.name)) {
      properties.set(property.name, value);
    }
  } catch {
    // A broken calendar-level property only loses that hint (name, zone); the events still count.
  }
}

function uidOf(block: string[]): { uid?: string } {
  const uid = block.find((line) => /^UID[:;]/i.test(line))?.replace(/^UID[^:]*:/i, '');
  return uid === undefined || uid.trim() === '' ? {} : { uid: uid.trim() };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
