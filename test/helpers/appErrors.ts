/** Assertions on the typed errors the service throws. */
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.ts';

/** `promise` rejects with an AppError of `code`, which `check` may look at further. */
export const rejectsWith = (promise: Promise<unknown>, code: string, check?: (error: AppError) => void) =>
  assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code, error.message);
    check?.(error);
    return true;
  });
