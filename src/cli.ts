#!/usr/bin/env node
/** Entry point of the administration CLI (`npm run cli -- …`, or `calendar-access …`). */
import { runCli } from './cli/run.ts';

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
