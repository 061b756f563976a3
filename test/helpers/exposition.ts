/** The Prometheus text format read back into samples, so tests assert values rather than text. */
import assert from 'node:assert/strict';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const sampleLine = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/;
const labelPair = /([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)",?/g;

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = sampleLine.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (m[2] ?? '').matchAll(labelPair))
      labels[name!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    // Besides numbers, the format has NaN (prom-client writes `Nan`) and the infinities.
    const value = /^nan$/i.test(m[3]!) ? Number.NaN : Number(m[3]!.replace(/^([+-])Inf$/, '$1Infinity'));
    assert.ok(!Number.isNaN(value) || /^nan$/i.test(m[3]!), `not a number: ${line}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return samples;
}

/** The value of the one sample with this name whose labels include `labels`; 0 when there is none. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value ?? 0;
}
