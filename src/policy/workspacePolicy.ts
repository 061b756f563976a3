/** The workspace policy record: what members' grants may contain at most. Pure. */
import { invalidField } from '../errors.ts';

export const scopes = ['calendar:read', 'calendar:write', 'calendar:rsvp'] as const;
export type Scope = (typeof scopes)[number];

/** Ordered from least to most revealing. */
export const detailLevels = ['busy', 'titles', 'full'] as const;
export type DetailLevel = (typeof detailLevels)[number];

export interface WorkspacePolicy {
  allowedScopes: Scope[];
  maxDetailLevel: DetailLevel;
  /** Whether members may share details of private events at consent. */
  privateDetailsAllowed: boolean;
  /** Client IDs that may be granted access; `null` = any client. */
  allowedClients: string[] | null;
}

/** Secure by default: reading only, private details withheld; admins widen it deliberately. */
export const defaultPolicy: WorkspacePolicy = Object.freeze({
  allowedScopes: ['calendar:read'],
  maxDetailLevel: 'full',
  privateDetailsAllowed: false,
  allowedClients: null,
}) as WorkspacePolicy;

export const isScope = (value: unknown): value is Scope =>
  typeof value === 'string' && (scopes as readonly string[]).includes(value);

export const isDetailLevel = (value: unknown): value is DetailLevel =>
  typeof value === 'string' && (detailLevels as readonly string[]).includes(value);

/** The lower of two detail levels. */
export const lowerDetail = (a: DetailLevel, b: DetailLevel): DetailLevel =>
  detailLevels.indexOf(a) <= detailLevels.indexOf(b) ? a : b;

const maxClients = 100;
const clientIdPattern = /^[\x21-\x7e]{1,2048}$/;

export interface PolicyInput {
  allowedScopes: unknown;
  maxDetailLevel: unknown;
  privateDetailsAllowed: unknown;
  allowedClients: unknown;
}

/** Validates a whole policy as submitted (form or CLI); unknown values are errors, never dropped. */
export function parsePolicy(input: PolicyInput): WorkspacePolicy {
  const requested = input.allowedScopes === undefined ? [] : [input.allowedScopes].flat();
  const allowedScopes: Scope[] = [];
  for (const value of requested) {
    if (!isScope(value)) throw invalidField('allowedScopes', `Unknown scope "${String(value)}".`);
    if (!allowedScopes.includes(value)) allowedScopes.push(value);
  }
  allowedScopes.sort((a, b) => scopes.indexOf(a) - scopes.indexOf(b));

  if (!isDetailLevel(input.maxDetailLevel)) {
    throw invalidField('maxDetailLevel', `Maximum detail level must be one of ${detailLevels.join(', ')}.`);
  }
  const privateDetailsAllowed = input.privateDetailsAllowed === true || input.privateDetailsAllowed === 'on';

  let allowedClients: string[] | null = null;
  const clients = input.allowedClients;
  const list = typeof clients === 'string' ? clients.split(/\s+/).filter(Boolean) : clients;
  if (Array.isArray(list) && list.length > 0) {
    if (list.length > maxClients) throw invalidField('allowedClients', `List at most ${maxClients} clients.`);
    for (const id of list) {
      if (typeof id !== 'string' || !clientIdPattern.test(id)) {
        throw invalidField('allowedClients', 'Client IDs are printable text without spaces.');
      }
    }
    allowedClients = [...new Set(list as string[])];
  } else if (list !== undefined && list !== null && !Array.isArray(list) && typeof clients !== 'string') {
    throw invalidField('allowedClients', 'Allowed clients must be a list of client IDs.');
  }
  return { allowedScopes, maxDetailLevel: input.maxDetailLevel, privateDetailsAllowed, allowedClients };
}
