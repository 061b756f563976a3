/**
 * Asking the person, not the model, before a step that cannot be undone: the tool's `confirm`
 * raises an MCP form elicitation (a yes/no) when the client declared the elicitation capability,
 * and lets the step go ahead without asking when it did not. On protocol 2026-07-28 the question
 * rides the multi-round-trip flow: the call answers `input_required`, and the client calls again
 * with the person's answer. 2025-era clients are served statelessly here, with no initialize the
 * server can remember, so they never declare the capability and are never asked.
 */
import { type ClientCapabilities, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { AppError } from '../errors.ts';

const key = 'confirm';

const requestedSchema = {
  type: 'object' as const,
  properties: { [key]: { type: 'boolean' as const, title: 'Yes, go ahead' } },
  required: [key],
};

/** Thrown by `confirm` when the person has not been asked yet; the server turns it into the question. */
export class ConfirmationNeeded extends Error {}

/** Returns when the person said yes or cannot be asked; throws otherwise (see above). */
export type Confirm = (question: string) => void;

export function confirmer(
  capabilities: ClientCapabilities | undefined,
  responses: Record<string, unknown> | undefined,
): Confirm {
  return (question) => {
    if (capabilities?.elicitation === undefined) return;
    const answer = inputResponse(responses, key);
    if (answer.kind !== 'elicit') throw new ConfirmationNeeded(question);
    if (answer.action === 'accept' && answer.content?.[key] === true) return;
    throw new AppError('not_confirmed', 'The user did not confirm this change: nothing was changed.');
  };
}

/** The `input_required` answer that puts the question to the person. */
export const askFor = (needed: ConfirmationNeeded) =>
  inputRequired({
    inputRequests: {
      [key]: inputRequired.elicit({ mode: 'form', message: needed.message, requestedSchema }),
    },
  });
