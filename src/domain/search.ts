/**
 * The search of `search_events`: every word of the query must occur in the text the assistant
 * may see of an event, in any order, folding case and diacritics after NFKC (`ß` = `ss`,
 * `Müller` = `muller`). Locations and participants are never searched. Pure.
 */
import type { DetailLevel } from './detailLevels.ts';
import type { Event } from './event.ts';

// Letters that carry a stroke or are ligatures do not decompose under NFD, yet people type them
// without it (lodz for Łódź, oresund for Øresund), as accent-insensitive collation treats them.
const undecomposed: Record<string, string> = {
  ł: 'l',
  ø: 'o',
  đ: 'd',
  ħ: 'h',
  ŧ: 't',
  ı: 'i',
  æ: 'ae',
  œ: 'oe',
};
const undecomposedPattern = new RegExp(`[${Object.keys(undecomposed).join('')}]`, 'gu');

/** Case- and diacritic-insensitive form of a text: NFKC, full case folding, marks removed. */
const printableAscii = /^[\x20-\x7e\t\n\r]*$/;

export function foldText(text: string): string {
  // Most text is plain ASCII, where folding is lower-casing.
  if (printableAscii.test(text)) return text.toLowerCase();
  return (
    text
      .normalize('NFKC')
      // Upper then lower case folds ß to ss as full case folding does; lower case alone would
      // leave it, and would write a word-final sigma as ς, which folding maps to σ.
      .toUpperCase()
      .toLowerCase()
      .replaceAll('ς', 'σ')
      // The capital sharp s (ẞ) lower-cases to ß, which folds to ss.
      .replaceAll('ß', 'ss')
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .replace(undecomposedPattern, (letter) => undecomposed[letter]!)
  );
}

/** Whether a UTF-16 code unit is white space as Unicode says (`\p{White_Space}`: all of it lies in the BMP). */
const isWhiteSpace = (code: number): boolean =>
  code === 0x20 ||
  (code >= 0x09 && code <= 0x0d) ||
  (code >= 0x85 &&
    (code === 0x85 ||
      code === 0xa0 ||
      code === 0x1680 ||
      (code >= 0x2000 && code <= 0x200a) ||
      code === 0x2028 ||
      code === 0x2029 ||
      code === 0x202f ||
      code === 0x205f ||
      code === 0x3000));

/**
 * Each word of a text, as split on Unicode white space, in order. A scan, not a split: a sync
 * splits every copied event's text, and a split's arrays were a tenth of its garbage.
 */
export function eachWord(text: string, visit: (word: string) => void): void {
  const length = text.length;
  for (let at = 0; at < length; ) {
    while (at < length && isWhiteSpace(text.charCodeAt(at))) at++;
    const start = at;
    while (at < length && !isWhiteSpace(text.charCodeAt(at))) at++;
    if (at > start) visit(text.slice(start, at));
  }
}

/** The query's words: split on Unicode white space, folded; empty when it has none. */
export function queryWords(query: string): string[] {
  const words: string[] = [];
  eachWord(foldText(query), (word) => words.push(word));
  return words;
}

/**
 * What a search needs of a text: its distinct folded words, one per line. A query's words hold no
 * white space, so one occurs in the text exactly when it occurs within one of these: a copy keeps
 * an agenda's searchable text without its repeats (store/copyBatches.ts).
 */
export function distinctWords(text: string): string {
  const seen = new Set<string>();
  const words: string[] = [];
  eachWord(foldText(text), (word) => {
    if (seen.has(word)) return;
    seen.add(word);
    words.push(word);
  });
  return words.join('\n');
}

export const searchableFields = ['title', 'description', 'categories', 'keywords'] as const;
export type SearchableField = (typeof searchableFields)[number];

/** The fields that carry text at a detail level (on busy, the title is the placeholder). */
export const fieldsSearchedAt = (level: DetailLevel): SearchableField[] =>
  level === 'full' ? [...searchableFields] : ['title'];

/** The searchable text of an event as it is returned (masking has already removed hidden text), folded. */
export const searchableText = (event: Event): string =>
  foldText(
    [event.title, event.description ?? '', ...(event.categories ?? []), ...(event.keywords ?? [])].join('\n'),
  );

/** Whether a folded text holds every word (a plain loop: a search tests thousands of texts). */
export function holdsWords(text: string, words: readonly string[]): boolean {
  for (let i = 0; i < words.length; i++) if (!text.includes(words[i]!)) return false;
  return true;
}

export const matchesWords = (event: Event, words: readonly string[]): boolean =>
  holdsWords(searchableText(event), words);
