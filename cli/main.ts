#!/usr/bin/env node
import { processIo } from './io.ts';
import { runCommandLine } from './run.ts';

// `monitoring-api openapi | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

runCommandLine(process.argv.slice(2), processIo).then(({ code, failed }) => {
  if (code >= 0) process.exitCode = code;
  // Commands close what they opened, but a driver's handle left behind must not turn a failed
  // command into a hung one.
  if (failed) setTimeout(() => process.exit(), 2_000).unref();
});
