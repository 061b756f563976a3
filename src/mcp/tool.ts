/**
 * What a tool is here: its listing (name, description written for a model, closed JSON Schemas
 * for input and output), the scopes it needs, and its work. Input arrives already checked
 * against `inputSchema` (see toolInput.ts); `run` returns the structured result.
 */

import type { CalendarDeps } from '../calendars/calendarDeps.ts';
import type { Principal } from '../policy/principal.ts';
import type { Scope } from '../policy/workspacePolicy.ts';
import type { Confirm } from './confirmation.ts';
import type { View } from './views/views.ts';

export type JsonSchema = Record<string, unknown>;

export interface ToolContext {
  principal: Principal;
  calendars: CalendarDeps;
  /** Key for page cursors. */
  secretKey: Buffer;
  /** Asks the person before a step that cannot be undone, where the client can ask (confirmation.ts). */
  confirm: Confirm;
  /** Aborted when the client has gone (cancelled, or its connection closed): reads stop their work. */
  signal: AbortSignal;
}

export interface ToolOutcome {
  structured: Record<string, unknown>;
  /** Said in words next to the JSON, one text part each: calendars not read completely, stale copies. */
  notes?: string[];
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** Listed and callable only when the token's effective scopes include all of these. */
  scopes: readonly Scope[];
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: boolean;
  };
  /** The MCP Apps view a host that supports Apps may show the result in (listed as `_meta.ui`). */
  view?: View;
  // biome-ignore lint/suspicious/noExplicitAny: each tool narrows its own input, which inputSchema has checked.
  run(input: any, context: ToolContext): Promise<ToolOutcome>;
}
