/**
 * Waits for `work` at most `ms`: its value, or undefined when the time ran out first. The work
 * goes on either way; a rejection still reaches the caller.
 */
export function waitAtMost<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timeout: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<undefined>((resolve) => {
      timeout = setTimeout(() => resolve(undefined), ms);
    }),
  ]).finally(() => clearTimeout(timeout));
}
