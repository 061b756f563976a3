/** A form's error shown next to the field it concerns, tied to it for screen readers. */
import type { AppError } from '../errors.ts';
import { type Html, html } from './html.ts';

/** The field an error names (`details.field`), when the form has it; else the error is the form's. */
export const fieldOf = (error: AppError | undefined, fields: readonly string[]): string | undefined => {
  const named = error?.details?.field;
  return typeof named === 'string' && fields.includes(named) ? named : undefined;
};

/** The attributes of a field in error, and the line after it; nothing for a field without one. */
export function fieldError(id: string, message: string | undefined): { attributes: Html; line: Html } {
  if (message === undefined) return { attributes: html``, line: html`` };
  return {
    attributes: html` aria-invalid="true" aria-describedby="${id}-error" autofocus`,
    line: html`<p class="field-error" id="${id}-error">${message}</p>`,
  };
}
