/**
 * The README's first hour names the pages' headings, buttons and links in italics: each must
 * still be a label of the pages (a "…" stands for what the page fills in, "→" for a heading
 * within another), so the walk-through never drifts from what people see.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const root = new URL('../../', import.meta.url);
const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The italic phrases of the first-hour section (a phrase may wrap onto the next line). */
function firstHourLabels(readme: string): string[] {
  const section = /### The first hour[\s\S]*?\n(?=Two messages|#)/.exec(readme)?.[0] ?? '';
  assert.ok(section.length > 0, 'the README has its first-hour section');
  const withoutBold = section.replace(/\*\*[^*]+\*\*/g, '');
  return [...withoutBold.matchAll(/\*([^*]+)\*/g)].map((m) => squeeze(m[1]!));
}

/** The labels with a part the pages do not have. */
const missingLabels = (readme: string, pages: string): string[] =>
  firstHourLabels(readme).filter((label) =>
    label
      .split(/→|…/)
      .map((part) => part.trim())
      .some((part) => part !== '' && !pages.includes(part)),
  );

/** Every page's source text, as one line. */
function pagesText(): string {
  const dir = new URL('src/web/', root);
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  return squeeze(files.map((f) => readFileSync(new URL(f, dir), 'utf8')).join(' '));
}

describe("the README's first hour", () => {
  it('names only labels the pages show', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    assert.ok(firstHourLabels(readme).length > 20);
    assert.deepEqual(missingLabels(readme, pagesText()), []);
  });

  it('finds a label no page has, across a line break and around what the page fills in', () => {
    const readme =
      '### The first hour\n*Your calendars → Calendar accounts in …* and *Connected\n   apps*\n\nTwo messages';
    assert.deepEqual(missingLabels(readme, 'Your calendars Calendar accounts in Your assistants'), [
      'Connected apps',
    ]);
  });
});
