/** Validates events against the one closed Event schema, as every surface's tests do. */
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { eventSchema } from '../../src/domain/eventSchema.ts';

const validate = new Ajv({ allErrors: true, strict: true }).compile(eventSchema);

export function assertValidEvent(event: unknown): void {
  if (!validate(event))
    assert.fail(`invalid event: ${JSON.stringify(validate.errors)}\n${JSON.stringify(event)}`);
}
