/** A signal for the work of one HTTP request, aborted when its connection closes before the answer was sent. */
import type { ServerResponse } from 'node:http';

export function whileClientWaits(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableEnded) controller.abort();
  });
  return controller.signal;
}
