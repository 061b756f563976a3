/**
 * Every input of the pages for people in one check: path parameters, query strings and form
 * fields with a control character other than tab and line breaks (a NUL, which PostgreSQL cannot
 * store, among them) are refused with invalid_request naming the field, before any page runs.
 */
import type { FastifyInstance } from 'fastify';
import { invalidField } from '../errors.ts';
import { hasStrayControlCharacters } from '../lib/text.ts';

function refuseControlCharacters(fields: unknown): void {
  if (fields === null || typeof fields !== 'object') return;
  for (const [name, value] of Object.entries(fields)) {
    if ([value].flat().some((v) => typeof v === 'string' && hasStrayControlCharacters(v)))
      throw invalidField(name, `${name} cannot contain control characters.`);
  }
}

export function registerPageInputCheck(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.page !== true) return;
    for (const fields of [request.params, request.query, request.body]) refuseControlCharacters(fields);
  });
}
