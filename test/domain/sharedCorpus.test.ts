/**
 * The shared real-world corpus (../shared/fixtures/ical, see its SOURCES.md): every file expands
 * without throwing, into well-formed occurrences. An extra on top of the project's own fixtures;
 * skipped loudly where the folder is missing, and failing under CI=true.
 */
import { describe, it } from 'node:test';
import { sharedCorpus, sharedCorpusMissing } from '../helpers/sharedCorpus.ts';
import { assertExpandsWellFormed, fixture, fixtureNames } from './icalFixtures.ts';

const skip = sharedCorpusMissing();

describe('every file of the shared corpus', { skip }, () => {
  for (const name of skip === undefined ? fixtureNames(sharedCorpus) : []) {
    it(`${name} expands without throwing, into well-formed occurrences`, () =>
      assertExpandsWellFormed(fixture(name, sharedCorpus), name));
  }
});
