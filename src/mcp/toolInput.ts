/**
 * Tool arguments checked against the tool's own input schema (the one it lists), so the bounds a
 * client reads are exactly the bounds enforced. Failures become AppErrors with stable codes.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { AppError, invalidField } from '../errors.ts';
import { hasStrayControlCharacters } from '../lib/text.ts';
import type { JsonSchema, ToolDefinition } from './tool.ts';

const ajv = new Ajv({ allErrors: false, strict: true });
const validators = new WeakMap<JsonSchema, ReturnType<typeof ajv.compile>>();

function toAppError(error: ErrorObject): AppError {
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  // A member of a nested object is named with its path (recurrence.frequency, addAttendees.0.email).
  const member = (name: string) => (path === '' ? name : `${path}.${name}`);
  if (error.keyword === 'additionalProperties') {
    const extra = member(String(error.params.additionalProperty));
    return invalidField(extra, `Unknown argument "${extra}": this tool accepts only the arguments it lists.`);
  }
  if (error.keyword === 'required') {
    const missing = member(String(error.params.missingProperty));
    return invalidField(missing, `The argument "${missing}" is required.`);
  }
  if (path === 'calendarIds' && error.keyword === 'maxItems') {
    return new AppError(
      'too_many_calendars',
      `At most ${error.params.limit} calendars per call; split them over several calls.`,
      {
        details: { field: path },
      },
    );
  }
  if (path === 'timeZone' && error.keyword !== 'type') {
    return new AppError(
      'invalid_time_zone',
      'timeZone must be an IANA time zone name of 1 to 128 characters.',
      {
        details: { field: path },
      },
    );
  }
  const field = path === '' ? 'arguments' : path;
  return invalidField(field, `${field} ${error.message ?? 'is invalid'}.`);
}

/**
 * Ids are left to their own checks, which answer calendar_not_permitted as for any unknown id;
 * every other text with a control character (NUL among them) is refused, naming the argument.
 */
const idArguments = new Set(['calendarIds', 'calendarId', 'eventId', 'occurrenceId']);

function refuseControlCharacters(value: unknown, path: string): void {
  if (typeof value === 'string') {
    if (hasStrayControlCharacters(value))
      throw invalidField(path, `${path} cannot contain control characters.`);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => void refuseControlCharacters(item, `${path}.${index}`));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (path === '' && idArguments.has(key)) continue;
      refuseControlCharacters(item, path === '' ? key : `${path}.${key}`);
    }
  }
}

export function checkToolInput(tool: ToolDefinition, args: unknown): unknown {
  let validate = validators.get(tool.inputSchema);
  if (validate === undefined) {
    validate = ajv.compile(tool.inputSchema);
    validators.set(tool.inputSchema, validate);
  }
  const input = args ?? {};
  if (!validate(input)) throw toAppError(validate.errors![0]!);
  refuseControlCharacters(input, '');
  return input;
}
