/**
 * The shared iCalendar corpus: real-world files kept beside the repository in
 * ../shared/fixtures/ical (with their SOURCES.md), an extra on top of the project's own
 * fixtures in test/fixtures/ical. Missing, it skips loudly outside CI and fails in CI.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const sharedCorpus = new URL('../../../shared/fixtures/ical/', import.meta.url);

/** undefined when the corpus is there; otherwise why not (and in CI: throws). */
export function sharedCorpusMissing(): string | undefined {
  if (existsSync(sharedCorpus)) return undefined;
  const why = `no shared iCalendar corpus at ${fileURLToPath(sharedCorpus)} (../shared/fixtures/ical beside the repository)`;
  if (process.env.CI) throw new Error(`${why}; required in CI`);
  process.stderr.write(`\n*** SKIPPING shared-corpus tests: ${why}\n\n`);
  return why;
}
