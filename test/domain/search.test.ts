/**
 * The search of search_events: folding (NFKC, case, diacritics), the query's words (Unicode
 * white space), matching every word against the text the event shows, and the fields searched
 * at each detail level.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Event } from '../../src/domain/event.ts';
import {
  distinctWords,
  eachWord,
  fieldsSearchedAt,
  foldText,
  matchesWords,
  queryWords,
  searchableFields,
} from '../../src/domain/search.ts';

const event = (fields: Partial<Event> = {}): Event => ({
  eventId: 'evt_1',
  calendarId: 'cal_1',
  occurrenceId: 'occ_1',
  title: '',
  start: '2026-03-02T09:00:00',
  timeZone: 'Europe/Berlin',
  duration: 'PT1H',
  showWithoutTime: false,
  status: 'confirmed',
  freeBusyStatus: 'busy',
  canRespond: false,
  canEdit: true,
  ...fields,
});

describe('foldText', () => {
  const folds: Array<[string, string, string]> = [
    ['case', 'Quarterly REVIEW', 'quarterly review'],
    ['umlaut', 'Müller', 'muller'],
    ['precomposed and decomposed alike', 'Mu\u0308ller', 'muller'],
    ['acute accent', 'Café Crème', 'cafe creme'],
    ['ring above', 'Ångström', 'angstrom'],
    ['cedilla and caron', 'Façade Čapek', 'facade capek'],
    ['sharp s', 'Straße', 'strasse'],
    ['sharp s upper-cased spelling', 'STRASSE', 'strasse'],
    ['Turkish dotted capital I', 'İstanbul', 'istanbul'],
    ['Turkish dotless i', 'Diyarbakır', 'diyarbakir'],
    ['fi ligature', 'ﬁnance', 'finance'],
    ['ffi ligature', 'oﬃce', 'office'],
    ['st ligature', 'ﬆudio', 'studio'],
    ['fullwidth letters and digits', 'ＡＢＣ１２', 'abc12'],
    ['circled digit', '①', '1'],
    ['superscript', 'm²', 'm2'],
    ['Kelvin sign', '\u212a', 'k'],
    ['Ohm sign', '\u2126', 'ω'],
    ['DZ digraph', 'Ǆ', 'dz'],
    ['Greek accents', 'Ἀθῆναι', 'αθηναι'],
    ['Cyrillic short i keeps its letter base', 'Йога', 'иога'],
    ['stroked l and acute accents', 'Łódź', 'lodz'],
    ['slashed o', 'Øresund', 'oresund'],
    ['d with stroke', 'Đakovo', 'dakovo'],
    ['ae and oe ligatures', 'Æsop Œuvre', 'aesop oeuvre'],
    ['no-break space becomes a space', 'a\u00a0b', 'a b'],
    ['plain ASCII unchanged', 'standup 10:00 #42', 'standup 10:00 #42'],
    ['empty', '', ''],
  ];
  for (const [what, input, folded] of folds) {
    it(`${what}: ${JSON.stringify(input)} → ${JSON.stringify(folded)}`, () => {
      assert.equal(foldText(input), folded);
    });
  }

  // Full case folding (Unicode CaseFolding.txt, status F) maps U+1E9E to "ss", like ß.
  it('capital sharp s (ẞ) folds to ss like ß', () => {
    assert.equal(foldText('STRAẞE'), 'strasse');
    assert.equal(foldText('ẞ'), foldText('ß'));
  });

  // Case folding maps final sigma ς to σ, so a word ending in sigma matches inside a longer word.
  it('final sigma folds to sigma', () => {
    assert.equal(foldText('ς'), 'σ');
    assert.equal(foldText('Οδός'), 'οδοσ');
    assert.equal(foldText('ΟΔΟΣ'), foldText('οδοσ'));
  });
});

describe('queryWords', () => {
  const cases: Array<[string, string, string[]]> = [
    ['one word', 'Review', ['review']],
    ['several spaces and tabs', '  team \t review\n', ['team', 'review']],
    ['no-break space', 'team\u00a0review', ['team', 'review']],
    ['em space', 'team\u2003review', ['team', 'review']],
    ['ideographic space', 'team\u3000review', ['team', 'review']],
    ['narrow no-break space', 'team\u202freview', ['team', 'review']],
    ['ogham space mark', 'team\u1680review', ['team', 'review']],
    ['line separator', 'team\u2028review', ['team', 'review']],
    ['paragraph separator', 'team\u2029review', ['team', 'review']],
    ['zero-width space is not white space', 'team\u200breview', ['team\u200breview']],
    ['folded', 'MÜLLER Straße', ['muller', 'strasse']],
    ['fullwidth letters', 'ＲＥＶＩＥＷ', ['review']],
    ['only white space', ' \u00a0\u3000\t', []],
    ['empty', '', []],
    ['order kept, duplicates kept', 'b a b', ['b', 'a', 'b']],
  ];
  for (const [what, query, words] of cases) {
    it(`${what}: ${JSON.stringify(query)}`, () => {
      assert.deepEqual(queryWords(query), words);
    });
  }

  // U+0085 NEXT LINE has the Unicode White_Space property (JavaScript's \s leaves it out).
  it('splits on NEXT LINE (U+0085), which is Unicode white space', () => {
    assert.deepEqual(queryWords('team\u0085review'), ['team', 'review']);
  });
});

describe('matchesWords', () => {
  const full = event({
    title: 'Team Müller',
    description: 'Quarterly Review of the Straße project',
    categories: ['Finance'],
    keywords: ['Q3'],
    locations: [{ name: 'Berlin HQ', description: 'Room Everest' }],
    virtualLocations: [{ name: 'Video', uri: 'https://meet.example/abc' }],
    links: [{ href: 'https://docs.example/agenda', title: 'Agenda' }],
    workingLocation: { type: 'office', label: 'Lisbon' },
  });

  const matches = (query: string, e = full) => matchesWords(e, queryWords(query));

  const table: Array<[string, boolean]> = [
    ['muller', true],
    ['MÜLLER', true],
    ['Mueller', false],
    ['review müller', true],
    ['müller review', true],
    ['quarterly strasse', true],
    ['finance q3', true],
    ['team finance q3 review', true],
    ['revi', true],
    ['ller', true],
    ['team absent', false],
    ['berlin', false],
    ['everest', false],
    ['video', false],
    ['meet.example', false],
    ['agenda', false],
    ['lisbon', false],
    // Words never span two fields.
    ['müllerquarterly', false],
    ['finanq3', false],
  ];
  for (const [query, expected] of table) {
    it(`${JSON.stringify(query)} ${expected ? 'matches' : 'does not match'}`, () => {
      assert.equal(matches(query), expected);
    });
  }

  it('matches everything when there are no words (the tool refuses such a query before)', () => {
    assert.equal(matchesWords(full, []), true);
  });

  it('searches the title as returned: a busy placeholder matches "busy", never the hidden title', () => {
    const masked = event({ title: 'Busy' });
    assert.equal(matches('busy', masked), true);
    assert.equal(matches('müller', masked), false);
  });

  it('folds the event text too: a Turkish capital and a ligature in the text match plain words', () => {
    const e = event({ title: 'İZMİR oﬃce', keywords: ['ＱＵＡＲＴＥＲ'] });
    assert.equal(matches('izmir office quarter', e), true);
  });

  it('treats a title without optional fields as the only text', () => {
    assert.equal(matches('review', event({ title: 'Review' })), true);
    assert.equal(matches('review', event({ title: 'Standup' })), false);
  });
});

describe('fieldsSearchedAt', () => {
  it('lists every searchable field at full detail and only the title below', () => {
    assert.deepEqual(searchableFields, ['title', 'description', 'categories', 'keywords']);
    assert.deepEqual(fieldsSearchedAt('full'), ['title', 'description', 'categories', 'keywords']);
    assert.deepEqual(fieldsSearchedAt('titles'), ['title']);
    assert.deepEqual(fieldsSearchedAt('busy'), ['title']);
  });

  it('returns a fresh array each time', () => {
    const fields = fieldsSearchedAt('full');
    fields.pop();
    assert.deepEqual(fieldsSearchedAt('full'), ['title', 'description', 'categories', 'keywords']);
  });
});

describe('eachWord', () => {
  it('splits on exactly the characters Unicode calls white space', () => {
    for (let code = 0; code < 0x10000; code++) {
      const letter = String.fromCharCode(code);
      const words: string[] = [];
      eachWord(`a${letter}b`, (word) => words.push(word));
      const white = /\p{White_Space}/u.test(letter);
      assert.deepEqual(words, white ? ['a', 'b'] : [`a${letter}b`], `U+${code.toString(16)}`);
    }
  });

  it('gives the words in order, none empty', () => {
    const words: string[] = [];
    eachWord('\u3000 one\t\ttwo\u2028three \u00a0', (word) => words.push(word));
    assert.deepEqual(words, ['one', 'two', 'three']);
  });
});

describe('distinctWords', () => {
  it('keeps each folded word once, one per line', () => {
    assert.equal(distinctWords('The plan\u00a0and the  PLAN,\nthe end'), 'the\nplan\nand\nplan,\nend');
    assert.equal(distinctWords(' \n\t'), '');
  });

  it('holds every query word exactly when the folded text does', () => {
    // Texts and words drawn from a small alphabet with white space of several kinds: every
    // substring without white space is found in both or in neither.
    const alphabet = ['a', 'b', 'É', 'ß', 'ss', '-', ' ', '\n', '\u00a0', '\u2003', 'ﬁ'];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const draw = (length: number) => Array.from({ length }, () => alphabet[next(alphabet.length)]).join('');
    for (let i = 0; i < 400; i++) {
      const text = draw(1 + next(30));
      const kept = distinctWords(text);
      for (const word of queryWords(draw(1 + next(6))))
        assert.equal(kept.includes(word), foldText(text).includes(word), JSON.stringify({ text, word }));
    }
  });
});
