/**
 * The service as `npm start` runs it, in a process of its own (`node src/start.ts` on the test
 * runner's Node): for tests of several instances on one database. Its JSON log lines are kept
 * parsed; everything it wrote is kept for failure messages.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ServiceProcess {
  child: ChildProcess;
  /** The JSON log lines written to standard output so far. */
  logs: Array<Record<string, unknown>>;
  output(): string;
  /** Resolves once it listens (its start line printed); rejects when it exits before. */
  started: Promise<void>;
  exited: Promise<number | null>;
  /** Sends SIGKILL unless it has exited, and waits for the exit. */
  kill(): Promise<void>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

export function startService(env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ['src/start.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  let output = '';
  let partial = '';
  let listening: () => void = () => {};
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    listening = resolve;
    void exited.then((code) =>
      reject(new Error(`the service exited (${code}) before listening:\n${output}`)),
    );
  });
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('Calendar Access Service')) listening();
      if (!line.startsWith('{')) continue;
      logs.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  return {
    child,
    logs,
    output: () => output,
    started,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
