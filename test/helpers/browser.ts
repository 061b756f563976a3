/** Headless Debian Chromium (fresh profile per launch) for page tests; missing Chromium skips loudly outside CI and fails in CI. */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function chromiumMissing(): string | undefined {
  if (existsSync(chromiumPath)) return undefined;
  const why = `Chromium not found at ${chromiumPath} (apt-get install chromium)`;
  if (process.env.CI) throw new Error(`${why}; required in CI`);
  process.stderr.write(`\n*** SKIPPING browser tests: ${why}\n\n`);
  return why;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
