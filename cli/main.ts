#!/usr/bin/env node
import { describeFailure, run } from './run.ts';

// `monitoring-api openapi | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

run(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    const { line, code } = describeFailure(error);
    process.stderr.write(`monitoring-api: ${line}\n`);
    process.exitCode = code;
    // Commands close what they opened, but a driver's handle left behind must not turn a failed
    // command into a hung one.
    setTimeout(() => process.exit(), 2_000).unref();
  },
);
