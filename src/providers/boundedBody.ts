/**
 * A provider's answer read into memory with a ceiling: the body is streamed and given up (the
 * stream cancelled) as soon as it passes the limit, whatever Content-Length claimed, so a hostile
 * or broken server costs at most that much memory. A body that breaks off or stalls is a typed
 * error too, with a reason the read service passes on.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError, isAppError } from '../errors.ts';

export interface BodyLimit {
  maxBytes: number;
  /** The answer, for messages: "The calendar feed", "The CalDAV server's answer for the calendar". */
  what: string;
}

const turnBytes = 1024 * 1024;

const mebibytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 100) / 100} MiB`;

export async function readBounded(response: Response, limit: BodyLimit): Promise<Uint8Array> {
  const tooLarge = () =>
    new AppError(
      'payload_too_large',
      `${limit.what} is larger than the ${mebibytes(limit.maxBytes)} this service reads.`,
      { details: { reason: 'too_large', maxBytes: limit.maxBytes } },
    );
  if (Number(response.headers.get('content-length') ?? 0) > limit.maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  let sinceTurn = 0;
  try {
    for await (const chunk of response.body ?? []) {
      total += chunk.byteLength;
      if (total > limit.maxBytes) throw tooLarge(); // leaving the loop cancels the stream
      chunks.push(chunk);
      // Chunks already received come one after another as microtasks: megabytes of them would
      // hold the event loop (~50 ms for 15 MB). A turn of the loop after each mebibyte.
      sinceTurn += chunk.byteLength;
      if (sinceTurn >= turnBytes) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
  } catch (error) {
    if (isAppError(error)) throw error;
    // The request's timeout aborts the body too; anything else is a connection that broke off.
    const timedOut = (error as Error).name === 'TimeoutError';
    throw new AppError(
      'provider_unavailable',
      timedOut ? `${limit.what} did not arrive in time.` : `${limit.what} was cut off before its end.`,
      { cause: error, details: { reason: timedOut ? 'timeout' : 'cut_off' } },
    );
  }
  // A buffer of its own (never a slice of Node's shared pool), so it can be moved to a worker.
  // Filled a mebibyte a turn: memory touched the first time is slow to come (15 MB: ~45 ms).
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
    sinceTurn += chunk.byteLength;
    if (sinceTurn >= turnBytes) {
      sinceTurn = 0;
      await nextTurn();
    }
  }
  return bytes;
}

/** The body as UTF-8 text, within the limit. */
export const readBoundedText = async (response: Response, limit: BodyLimit): Promise<string> =>
  new TextDecoder().decode(await readBounded(response, limit));
