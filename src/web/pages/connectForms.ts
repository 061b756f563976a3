/** The forms that connect an account by what the person types (CalDAV, ICS), shown again after an error with what was typed and the error where it belongs. */
import type { AppError } from '../../errors.ts';
import type { Form } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { csrfField } from '../layout.ts';

/** Accounts connected by what the person types, not by signing in at the provider. */
export const typedKinds = ['caldav', 'ics'] as const;
export type TypedKind = (typeof typedKinds)[number];

/** A connect form sent back after an error: what was typed (never a password) and what is wrong. */
export interface ConnectFormState {
  workspaceId: string;
  kind: TypedKind;
  values: Record<string, string>;
  /** The field the error concerns; undefined when it concerns the whole form. */
  field: string | undefined;
  message: string;
}

interface Field {
  name: string;
  label: string;
  type: 'url' | 'text' | 'password' | 'email';
  required: boolean;
  placeholder?: string;
  /** A line under the label saying what the field is for. */
  hint?: string;
}

const fieldsOf = (kind: TypedKind, signInEmail: string): Field[] =>
  kind === 'caldav'
    ? [
        {
          name: 'serverUrl',
          label: 'Server URL',
          type: 'url',
          required: true,
          placeholder: 'https://caldav.example.com/',
        },
        { name: 'username', label: 'User name', type: 'text', required: true },
        { name: 'password', label: 'App password', type: 'password', required: true },
        {
          name: 'calendarAddress',
          label: 'Your address in calendars (optional)',
          type: 'email',
          required: false,
          placeholder: signInEmail,
          hint: 'Guests are invited from it, and invitations to it can be answered. Used only when the server names none; empty: the user name if it is an e-mail address, else your sign-in address.',
        },
      ]
    : [
        {
          name: 'url',
          label: 'Feed URL',
          type: 'text',
          required: true,
          placeholder: 'webcal://example.com/calendar.ics',
        },
      ];

/** What to show again of a form that failed: its fields as typed, except passwords. */
export function connectFormState(
  workspaceId: string,
  kind: TypedKind,
  form: Form,
  error: AppError,
): ConnectFormState {
  const values: Record<string, string> = {};
  const fields = fieldsOf(kind, '');
  for (const field of fields) {
    const value = form[field.name];
    if (field.type !== 'password' && typeof value === 'string') values[field.name] = value;
  }
  const named = error.details?.field;
  const field = fields.some((f) => f.name === named) ? (named as string) : undefined;
  return { workspaceId, kind, values, field, message: error.message };
}

const titles: Record<TypedKind, { summary: string; button: string }> = {
  caldav: { summary: 'Connect a CalDAV account', button: 'Connect CalDAV' },
  ics: { summary: 'Subscribe to an ICS feed', button: 'Subscribe' },
};

/**
 * One form in its own disclosure, open when it comes back with an error. The browser is brought
 * back to it, not to the top of the page, by focusing the field concerned (or the form's error).
 */
export function connectForm(
  kind: TypedKind,
  options: { workspaceId: string; action: string; csrf: string; signInEmail: string },
  state: ConnectFormState | undefined,
): Html {
  const mine = state?.kind === kind && state.workspaceId === options.workspaceId ? state : undefined;
  const id = (name: string) => `${kind}-${name}-${options.workspaceId}`;
  const errorLine = (errorId: string, focus: boolean) =>
    html`<p class="error" id="${errorId}"${focus ? html` tabindex="-1" autofocus` : ''} role="alert">${mine?.message}</p>`;
  const fields = fieldsOf(kind, options.signInEmail).map((field) => {
    const wrong = mine !== undefined && mine.field === field.name;
    const hintId = field.hint === undefined ? undefined : id(`${field.name}-hint`);
    const errorId = id(`${field.name}-error`);
    const describedBy = [wrong ? errorId : undefined, hintId].filter((x) => x !== undefined).join(' ');
    return html`<label for="${id(field.name)}">${field.label}</label>
  ${field.hint === undefined ? '' : html`<span class="muted" id="${hintId}">${field.hint}</span>`}
  <input id="${id(field.name)}" name="${field.name}" type="${field.type}" autocomplete="off"${field.required ? html` required` : ''}${field.placeholder === undefined ? '' : html` placeholder="${field.placeholder}"`}${mine?.values[field.name] === undefined ? '' : html` value="${mine.values[field.name]}"`}${describedBy === '' ? '' : html` aria-describedby="${describedBy}"`}${wrong ? html` aria-invalid="true" autofocus` : ''}>
  ${wrong ? errorLine(errorId, false) : ''}`;
  });
  return html`<details${mine === undefined ? '' : html` open`}><summary>${titles[kind].summary}</summary>
<form method="post" action="${options.action}">
  ${csrfField(options.csrf)}
  ${mine !== undefined && mine.field === undefined ? errorLine(id('error'), true) : ''}
  ${fields}
  <div><button type="submit">${titles[kind].button}</button></div>
</form></details>`;
}
