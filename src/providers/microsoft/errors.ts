/** The typed error for a Graph answer that is not 2xx, to a read or to a write. */
import { AppError } from '../../errors.ts';
import { readBoundedText } from '../boundedBody.ts';
import { providerName } from './config.ts';
import type { GraphErrorBody, GraphPage } from './wire.ts';

async function errorDetails(response: Response) {
  const body = (await response.json().catch(() => ({}))) as GraphErrorBody;
  return { status: response.status, graphCode: body.error?.code };
}

const reconnect = (details: Record<string, unknown>) =>
  new AppError('reconnect_required', 'Microsoft no longer accepts this account; connect it again.', {
    details,
  });

/** The AppError for a non-2xx Graph answer to a read (the body is consumed). */
export async function graphFailure(response: Response): Promise<AppError> {
  const details = await errorDetails(response);
  switch (response.status) {
    case 401:
      return reconnect(details);
    // Forbidden is what Graph answers once a calendar is no longer shared with the user.
    case 403:
    case 404:
    case 410:
      return new AppError('not_found', `${providerName} has no such item.`, { details });
    default:
      return new AppError('provider_unavailable', `${providerName} answered HTTP ${response.status}.`, {
        details,
      });
  }
}

/**
 * The AppError for a write Graph refused (the body is consumed). 429, 5xx and timeouts never
 * get here: ProviderHttp turns them into provider_unavailable.
 */
export async function graphWriteFailure(response: Response): Promise<AppError> {
  const details = await errorDetails(response);
  switch (response.status) {
    case 401:
      return reconnect(details);
    case 403:
      return new AppError('calendar_read_only', `${providerName} does not allow changes to this calendar.`, {
        details,
      });
    case 404:
    case 410:
      return new AppError('not_found', `${providerName} has no such item.`, { details });
    // A changeKey that no longer matches (If-Match): someone changed the event meanwhile.
    case 409:
    case 412:
      return new AppError('conflict', 'The event changed at Microsoft since it was read.', {
        details: { reason: 'version', ...details },
      });
    default:
      // Any other refusal (400: a change Graph does not accept) is definite: nothing was applied.
      if (response.status < 500)
        return new AppError('invalid_request', `${providerName} rejected the change.`, {
          details: { reason: 'bad_request', ...details },
        });
      return new AppError('provider_unavailable', `${providerName} answered HTTP ${response.status}.`, {
        details: { reason: 'server_error', ...details },
      });
  }
}

/** The parsed JSON body of a 2xx answer, or the typed error. */
export async function graphJson<T>(response: Response): Promise<T> {
  if (!response.ok) throw await graphFailure(response);
  const text = await graphAnswerText(response);
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw unreadablePage(cause);
  }
}

/** Most bytes one answer may take (a page of a few hundred events with long bodies fits). */
const maxPageBytes = 32 * 1024 * 1024;

/** A 2xx answer's text, read within `maxBytes` (a hostile or broken server costs no more). */
export const graphAnswerText = (response: Response, maxBytes = maxPageBytes): Promise<string> =>
  readBoundedText(response, { maxBytes, what: `${providerName}'s answer` });

/** A 2xx page of a collection, read within maxPageBytes, or the typed error. */
export async function graphPage<T>(response: Response): Promise<GraphPage<T>> {
  if (!response.ok) throw await graphFailure(response);
  const text = await graphAnswerText(response);
  let page: GraphPage<T>;
  try {
    page = JSON.parse(text) as GraphPage<T>;
  } catch (cause) {
    throw unreadablePage(cause);
  }
  if (!Array.isArray(page?.value)) throw unreadablePage(undefined);
  return page;
}

const unreadablePage = (cause: unknown) =>
  new AppError('provider_unavailable', `${providerName} sent a page this service cannot read.`, {
    cause,
    details: { reason: 'unreadable' },
  });
