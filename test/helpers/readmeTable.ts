/** README's tables as cells, so tests can hold the documentation to the code it describes. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The first table under README's `## heading`: header row first, then each row, cells trimmed. */
export function readmeTable(heading: string): string[][] {
  const section = readme.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  assert.ok(section, `README has no "## ${heading}" section`);
  const lines = section.split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  assert.ok(start >= 0, `README's "${heading}" section has no table`);
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return lines
    .slice(start, end === -1 ? undefined : end)
    .filter((_, i) => i !== 1) // the |---| line under the header
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}
