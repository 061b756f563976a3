import type { AppError } from '../errors.ts';
import { statusTitle } from '../lib/httpStatus.ts';
import { html } from './html.ts';
import { page } from './layout.ts';
import type { Visitor } from './visitor.ts';

/** The HTML face of an error on a page route: what happened, in words, with the stable code. */
export function errorPage(error: AppError, visitor: Visitor | null): string {
  return page(
    { title: statusTitle(error.status), user: visitor?.user, csrfToken: visitor?.csrfToken },
    html`<p>${error.message}</p><p class="muted">Error code: <code>${error.code}</code></p><p><a href="/">Go to the start page</a></p>`,
  );
}
