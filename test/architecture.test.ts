/**
 * The layers of ARCHITECTURE.md, checked on the imports of every file under src/: the core
 * (domain/, policy/) is pure and owns its vocabulary, adapters never reach the database, the
 * store never reaches a surface, and no two files import each other, however indirectly.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../src/', import.meta.url));

/** What each top-level place of src/ may import, besides itself and npm packages. */
const core = ['domain/', 'lib/', 'errors.ts'];
const services = ['store/', 'policy/', ...core, 'config/'];
/** The surfaces (auth/, mcp/, rest/, web/, http/, cli/) share the context main.ts builds. */
const surface = ['context.ts', 'calendars/', 'people/', ...services];
const allowed: Record<string, string[]> = {
  'errors.ts': [],
  'config/': [],
  'lib/': ['errors.ts'],
  'domain/': ['lib/', 'errors.ts'],
  'policy/': core,
  'store/': ['policy/', ...core, 'config/'],
  'providers/': [...core, 'config/'],
  'mail/': ['lib/', 'errors.ts', 'config/'],
  'people/': ['mail/', ...services],
  'calendars/': ['providers/', ...services],
  'sync/': ['calendars/', 'providers/', ...services],
  'context.ts': ['providers/', 'mail/', ...services],
  'auth/': surface,
  'mcp/': ['auth/', ...surface],
  'rest/': ['auth/', ...surface],
  'web/': ['auth/', 'providers/', 'mail/', ...surface],
  'http/': ['auth/', 'mcp/', 'rest/', 'web/', 'sync/', ...surface],
  'cli/': ['auth/', 'providers/', 'mail/', ...surface],
  'cli.ts': ['cli/'],
  'main.ts': ['*'],
  'start.ts': ['main.ts', 'people/', 'lib/', 'config/'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(src, path)] : [];
  });
}

const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

/** The files under src/ that `file` imports (type-only imports included: they are dependencies too). */
export function importsOf(file: string, text = readFileSync(join(src, file), 'utf8')): string[] {
  return [...text.matchAll(importPattern)].map((match) =>
    normalize(join(dirname(file), (match[1] ?? match[2])!)),
  );
}

/** `domain/x.ts` → `domain/`; `errors.ts` → `errors.ts`; outside src/ → undefined. */
function placeOf(file: string): string | undefined {
  if (file.startsWith('..')) return undefined;
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash + 1);
}

/** Every import that crosses the layers the wrong way, as `from → to`. */
export function layerViolations(graph: Map<string, string[]>): string[] {
  const violations: string[] = [];
  for (const [file, targets] of graph) {
    const place = placeOf(file)!;
    const may = allowed[place];
    if (may === undefined) {
      violations.push(`${file}: ${place} has no entry in the layer table`);
      continue;
    }
    for (const target of targets) {
      const to = placeOf(target);
      if (to === undefined) violations.push(`${file} → ${target} (outside src/)`);
      else if (to !== place && !may.includes('*') && !may.includes(to))
        violations.push(`${file} → ${target}`);
    }
  }
  return violations;
}

/** The import circles among files, each as the files along it (first file repeated last). */
export function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

const graphOfSources = (): Map<string, string[]> =>
  new Map(sourceFiles(src).map((file) => [file, importsOf(file)]));

describe('architecture', () => {
  const graph = graphOfSources();

  it('reads the imports of every source file', () => {
    assert.ok(graph.size > 100, `only ${graph.size} files found under src/`);
    assert.ok(graph.get('main.ts')!.includes('config/config.ts'));
    for (const [file, targets] of graph)
      for (const target of targets)
        assert.ok(graph.has(target), `${file} imports ${target}, which does not exist`);
  });

  it('keeps every import within the layers', () => {
    assert.deepEqual(layerViolations(graph), []);
  });

  it('has no import circle between files', () => {
    assert.deepEqual(
      circles(graph).map((circle) => circle.join(' → ')),
      [],
    );
  });

  it('would catch a core file importing an adapter, the store importing a surface, and a circle', () => {
    const domainFile = [...graph.keys()].find((file) => file.startsWith('domain/'))!;
    const text = `import type { CalendarProvider } from '../providers/port.ts';\n`;
    const withBadImport = new Map(graph).set(domainFile, [
      ...graph.get(domainFile)!,
      ...importsOf(domainFile, text),
    ]);
    assert.deepEqual(layerViolations(withBadImport), [`${domainFile} → providers/port.ts`]);
    const withSurface = new Map(graph).set('store/users.ts', ['mcp/server.ts']);
    assert.deepEqual(layerViolations(withSurface), ['store/users.ts → mcp/server.ts']);
    const circular = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    assert.deepEqual(circles(circular), [['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });
});
