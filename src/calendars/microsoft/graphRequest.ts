/**
 * One GET to Graph with a bearer token, and the typed error for an answer that is not 2xx.
 * Retries, timeouts and the per-mailbox cap are ProviderHttp's; token refresh is the client's.
 */
import { AppError } from '../../errors.ts';
import type { ProviderHttp } from '../providerHttp.ts';
import type { GraphErrorBody } from './graphTypes.ts';

export const providerName = 'Microsoft Graph';

export function graphGet(
  http: ProviderHttp,
  url: string,
  accessToken: string,
  accountKey: string,
): Promise<Response> {
  return http.request({
    url,
    headers: {
      authorization: `Bearer ${accessToken}`,
      accept: 'application/json',
      // Every date-time comes back in UTC; each event's own zone is in originalStartTimeZone.
      prefer: 'outlook.timezone="UTC"',
    },
    idempotent: true,
    accountKey,
    provider: providerName,
  });
}

/** The AppError for a non-2xx Graph answer (the body is consumed). */
export async function graphFailure(response: Response): Promise<AppError> {
  const body = (await response.json().catch(() => ({}))) as GraphErrorBody;
  const details = { status: response.status, graphCode: body.error?.code };
  switch (response.status) {
    case 401:
      return new AppError(
        'reconnect_required',
        'Microsoft no longer accepts this account; connect it again.',
        {
          details,
        },
      );
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

/** The parsed JSON body of a 2xx answer, or the typed error. */
export async function graphJson<T>(response: Response): Promise<T> {
  if (!response.ok) throw await graphFailure(response);
  return (await response.json()) as T;
}
