/**
 * The shared real-world corpus (../shared/fixtures/ical, see its SOURCES.md): every file expands
 * without throwing, into well-formed occurrences. An extra on top of the project's own fixtures;
 * where the folder is missing, one skipped test says so (and under CI=true the file fails).
 */
import { describe, it } from 'node:test';
import { sharedCorpus, sharedCorpusMissing } from '../helpers/sharedCorpus.ts';
import { assertExpandsWellFormed, fixture, fixtureNames } from './icalFixtures.ts';

const skip = sharedCorpusMissing();

describe('every file of the shared corpus', () => {
  const names = skip === undefined ? fixtureNames(sharedCorpus) : ['every .ics file'];
  for (const name of names) {
    it(`${name} expands without throwing, into well-formed occurrences`, { skip }, () =>
      assertExpandsWellFormed(fixture(name, sharedCorpus), name),
    );
  }
});
