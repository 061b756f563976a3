/**
 * The one place tool outcomes and errors become MCP results. Errors a caller can act on are tool
 * results with `isError: true` and `{"error":{"code","message",…}}`, so a model can read them;
 * anything unexpected is `internal_error` without details.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { AppError, isAppError } from '../errors.ts';
import type { ToolOutcome } from './tool.ts';

export function successResult(outcome: ToolOutcome): CallToolResult {
  const json = { type: 'text' as const, text: JSON.stringify(outcome.structured) };
  return {
    structuredContent: outcome.structured,
    content: [json, ...(outcome.notes ?? []).map((text) => ({ type: 'text' as const, text }))],
  };
}

export function errorResult(error: unknown, onUnexpected: (error: unknown) => void): CallToolResult {
  let known: AppError;
  if (isAppError(error)) {
    known = error;
  } else {
    onUnexpected(error);
    known = new AppError('internal_error', 'Something went wrong on our side. Try again later.');
  }
  const body = { error: { code: known.code, message: known.message, ...known.details } };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}
