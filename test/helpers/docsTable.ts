/** The documentation's tables as cells, so tests can hold the documentation to the code it describes. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** The first table under `heading` (any level) in `docs/<file>`: header row first, then each row, cells trimmed. */
export function docsTable(file: string, heading: string): string[][] {
  const text = readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8');
  const section = text.split(/^#+ /m).find((s) => s.startsWith(`${heading}\n`));
  assert.ok(section, `docs/${file} has no "${heading}" heading`);
  const lines = section.split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  assert.ok(start >= 0, `The "${heading}" section of docs/${file} has no table`);
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
