/**
 * The admin page's audit log in words: who did what to whom — the member, the app, the calendar
 * accounts, what a policy change changed — and when. Entries written before they kept names and
 * the policy before the change say what they hold (an app's id, the policy as saved).
 */
import { providerNames } from '../../calendars/connections/credentialsInput.ts';
import { type DetailLevel, isDetailLevel } from '../../domain/detailLevels.ts';
import { isScope, type Scope, scopes } from '../../policy/workspacePolicy.ts';
import type { AuditDetail, AuditEntry, AuditValue } from '../../store/audit.ts';
import { type Html, html } from '../html.ts';
import { detailWords, scopeWords } from '../words.ts';

/** "24 Nov 2026, 15:34 UTC", with the exact instant for machines. */
export function readableTime(epochMs: number): Html {
  const instant = Temporal.Instant.fromEpochMilliseconds(epochMs);
  const words = instant.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  return html`<time datetime="${instant.toString()}">${words} UTC</time>`;
}

const text = (value: AuditValue | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;

const texts = (value: AuditValue | undefined): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

const objectOf = (value: AuditValue | undefined): AuditDetail | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as AuditDetail) : undefined;

const person = (name: string | null, email: string | null): Html =>
  email === null
    ? html`<span class="muted">a removed account</span>`
    : name === null || name === ''
      ? html`${email}`
      : html`${name} <span class="muted">(${email})</span>`;

/** The app by the name it had then, with its id; only the id for entries that kept no name. */
const app = (detail: AuditDetail): Html => {
  const name = text(detail.clientName) ?? text(detail.name);
  const id = html`<code>${text(detail.client) ?? ''}</code>`;
  return name === undefined ? html`the app ${id}` : html`<strong>${name}</strong> ${id}`;
};

const onOff = (on: boolean) => (on ? 'on' : 'off');

const clientList = (value: AuditValue | undefined, none: string): Html => {
  const ids = texts(value);
  return ids.length === 0
    ? html`${none}`
    : html`${ids.map((id, i) => html`${i > 0 ? ', ' : ''}<code>${id}</code>`)}`;
};

const levelWords = (value: AuditValue | undefined): string =>
  isDetailLevel(value) ? detailWords[value as DetailLevel] : String(value);

/** One phrase per setting that differs between two policies as recorded. */
function policyChanges(before: AuditDetail, after: AuditDetail): Html[] {
  const changes: Html[] = [];
  const was = texts(before.allowedScopes);
  const now = texts(after.allowedScopes);
  for (const scope of scopes) {
    if (was.includes(scope) !== now.includes(scope))
      changes.push(html`${scopeWords[scope]}: ${onOff(was.includes(scope))} → ${onOff(now.includes(scope))}`);
  }
  if (before.maxDetailLevel !== after.maxDetailLevel)
    changes.push(
      html`Maximum detail: ${levelWords(before.maxDetailLevel)} → ${levelWords(after.maxDetailLevel)}`,
    );
  // Entries written before the setting existed had titles and times.
  const preselected = (detail: AuditDetail) => detail.defaultDetailLevel ?? 'titles';
  if (preselected(before) !== preselected(after))
    changes.push(
      html`Preselected detail: ${levelWords(preselected(before))} → ${levelWords(preselected(after))}`,
    );
  if (Boolean(before.privateDetailsAllowed) !== Boolean(after.privateDetailsAllowed))
    changes.push(
      html`Details of private events: ${onOff(Boolean(before.privateDetailsAllowed))} → ${onOff(Boolean(after.privateDetailsAllowed))}`,
    );
  // Entries written before the setting existed had it on.
  const colleagues = (detail: AuditDetail) => detail.colleagueAvailability !== false;
  if (colleagues(before) !== colleagues(after))
    changes.push(html`Colleagues' free/busy: ${onOff(colleagues(before))} → ${onOff(colleagues(after))}`);
  if (texts(before.allowedClients).join('\n') !== texts(after.allowedClients).join('\n'))
    changes.push(
      html`Allowed clients: ${clientList(before.allowedClients, 'any')} → ${clientList(after.allowedClients, 'any')}`,
    );
  if (texts(before.blockedClients).join('\n') !== texts(after.blockedClients).join('\n'))
    changes.push(
      html`Blocked clients: ${clientList(before.blockedClients, 'none')} → ${clientList(after.blockedClients, 'none')}`,
    );
  return changes;
}

/** The policy as saved, for entries that did not keep the one before. */
function policySaved(detail: AuditDetail): Html[] {
  const allowed = texts(detail.allowedScopes).filter(isScope) as Scope[];
  return [
    html`Apps may: ${allowed.map((s) => scopeWords[s].toLowerCase()).join('; ') || 'nothing'}`,
    html`Maximum detail: ${levelWords(detail.maxDetailLevel)}`,
    html`Preselected detail: ${levelWords(detail.defaultDetailLevel ?? 'titles')}`,
    html`Details of private events: ${onOff(Boolean(detail.privateDetailsAllowed))}`,
    html`Colleagues' free/busy: ${onOff(detail.colleagueAvailability !== false)}`,
    html`Allowed clients: ${clientList(detail.allowedClients, 'any')}`,
    html`Blocked clients: ${clientList(detail.blockedClients, 'none')}`,
  ];
}

const phrases = (parts: Html[]): Html => html`${parts.map((p, i) => html`${i > 0 ? '; ' : ''}${p}`)}`;

function policyWords(detail: AuditDetail): Html {
  const before = objectOf(detail.before);
  if (before === undefined) return html`Saved the policy: ${phrases(policySaved(detail))}`;
  const changes = policyChanges(before, detail);
  return changes.length === 0
    ? html`Saved the policy without changes`
    : html`Changed the policy: ${phrases(changes)}`;
}

function accountWords(detail: AuditDetail): Html {
  const count = typeof detail.calendars === 'number' ? detail.calendars : 0;
  const calendars = count === 1 ? '1 calendar' : `${count} calendars`;
  const accounts = Array.isArray(detail.accounts) ? detail.accounts.map(objectOf) : [];
  const named = accounts.flatMap((a) => {
    const label = text(a?.label);
    const provider = text(a?.provider);
    if (label === undefined) return [];
    const kind =
      provider !== undefined && provider in providerNames
        ? providerNames[provider as keyof typeof providerNames]
        : provider;
    return [html`${label}${kind === undefined ? '' : html` <span class="muted">(${kind})</span>`}`];
  });
  return named.length === 0 ? html`${calendars}` : html`${calendars} of ${phrases(named)}`;
}

/** What the entry records, in words. */
export function auditWhat(entry: AuditEntry): Html {
  const { detail } = entry;
  const target = person(entry.targetName, entry.targetEmail);
  const role = text(detail.role) ?? '';
  switch (entry.action) {
    case 'workspace.created':
      return html`Created the workspace <strong>${text(detail.name) ?? ''}</strong>`;
    case 'member.added':
      return detail.via === 'invitation'
        ? html`Joined as ${role}, through an invitation`
        : html`Added ${target} as ${role}`;
    case 'member.invited':
      return html`Invited ${text(detail.email) ?? ''} as ${role}`;
    case 'member.invitation_withdrawn':
      return html`Withdrew the invitation of ${text(detail.email) ?? ''} as ${role}`;
    case 'member.role_changed':
      return html`Changed the role of ${target}: ${text(detail.from) ?? ''} → ${text(detail.to) ?? ''}`;
    case 'member.removed':
      return entry.actorUserId !== null && entry.actorUserId === entry.targetUserId
        ? html`Left the workspace (was ${role})`
        : html`Removed ${target} (was ${role})`;
    case 'policy.updated':
      return policyWords(detail);
    case 'grant.created': {
      const may = texts(detail.scopes).filter(isScope) as Scope[];
      return html`Allowed ${app(detail)} to ${may.map((s) => scopeWords[s].toLowerCase()).join(' and ')}: ${accountWords(detail)}`;
    }
    case 'grant.changed':
      return html`Changed what ${app(detail)} sees: ${accountWords(detail)}`;
    case 'grant.revoked':
      return html`Revoked the access of ${app(detail)}`;
    case 'client.blocked': {
      const ended = typeof detail.grantsEnded === 'number' ? detail.grantsEnded : 0;
      return html`Blocked ${app(detail)} in the workspace; ${ended === 1 ? '1 grant' : `${ended} grants`} to it ended`;
    }
    case 'client.registered':
      return html`Registered ${app(detail)} (${text(detail.kind) ?? ''})`;
    case 'room.added':
      return html`Added the room ${text(detail.name) ?? ''} (${text(detail.email) ?? ''})`;
    case 'room.removed':
      return html`Removed the room ${text(detail.email) ?? ''}`;
    case 'rooms.imported': {
      const count = typeof detail.count === 'number' ? detail.count : 0;
      return html`Filled the room list from calendar providers: ${count === 1 ? '1 room' : `${count} rooms`}`;
    }
  }
}

/** Who did it: a member, or the operator at the command line. */
export const auditWho = (entry: AuditEntry): Html =>
  entry.actorUserId === null ? html`The operator (CLI)` : person(entry.actorName, entry.actorEmail);

export function auditLogSection(entries: readonly AuditEntry[]): Html {
  return html`<section id="audit" class="panel wide">
<h2>Audit log</h2>
${
  entries.length === 0
    ? html`<p>Nothing recorded yet.</p>`
    : html`<table class="stack audit"><thead><tr><th>When</th><th>Who</th><th>What</th></tr></thead><tbody>
${entries.map((a) => html`<tr><td data-label="When">${readableTime(a.at)}</td><td data-label="Who">${auditWho(a)}</td><td data-label="What">${auditWhat(a)}</td></tr>`)}
</tbody></table>`
}
</section>`;
}
