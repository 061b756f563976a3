import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editBlockedReasons } from '../src/domain/event.ts';
import { AppError, errorCatalogue } from '../src/errors.ts';
import { docsTable } from './helpers/docsTable.ts';

const codes = Object.keys(errorCatalogue);

describe('error catalogue', () => {
  it('is the table in docs/errors.md written out: every code, its HTTP status and its meaning', () => {
    const rows = Object.entries(errorCatalogue).map(([code, { status, message }]) => [
      `\`${code}\``,
      String(status),
      message,
    ]);
    assert.deepEqual(docsTable('errors.md', 'Errors'), [['code', 'HTTP status', 'meaning'], ...rows]);
  });

  it('lists the refusals of writes, one code per editBlockedReason, together', () => {
    const first = codes.indexOf(editBlockedReasons[0]);
    assert.deepEqual(codes.slice(first, first + editBlockedReasons.length), editBlockedReasons);
  });

  it("gives an error the code's status, and its default message unless the call names one", () => {
    const cause = new Error('socket closed');
    const plain = new AppError('not_found');
    assert.equal(plain.status, 404);
    assert.equal(plain.message, errorCatalogue.not_found.message);
    const withOptions = new AppError('rate_limited', undefined, { retryAfter: 3, cause });
    assert.equal(withOptions.message, errorCatalogue.rate_limited.message);
    assert.equal(withOptions.retryAfter, 3);
    assert.equal(withOptions.cause, cause);
    const specific = new AppError('conflict', 'The event changed since it was read.', { details: { a: 1 } });
    assert.equal(specific.status, 409);
    assert.equal(specific.message, 'The event changed since it was read.');
    assert.deepEqual(specific.details, { a: 1 });
  });
});
