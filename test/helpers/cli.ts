/** Runs the CLI in-process on a data directory, collecting what it prints. */
import { runCli } from '../../src/cli/run.ts';

export async function cliIn(dataDir: string, env: Record<string, string>, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: { DATA_DIR: dataDir, APP_ENV: 'test', ...env },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
