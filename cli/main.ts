#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { KeyAdminError } from '../core/index.ts';
import { createKey, createUser, listKeys, migrate, revokeKey } from './admin-commands.ts';
import { runOpenApiCommand } from './openapi-command.ts';
import { serve } from './serve.ts';
import { UnreachableError, UsageError } from './usage-error.ts';

const USAGE = `usage: monitoring-api <command> [flags]

  serve [--host H] [--port P] [--database URL] [--rate-limit N/S] [--rate-limit-store memory|redis://HOST:PORT[/DB]]
        [--rate-limit-fail open|closed] [--trust-proxy CIDR]... [--allow-private-targets] [--body-limit BYTES]
  migrate [--database URL]
  users create [--name N] [--json] [--database URL]
  keys create --user ID [--scopes read,write] [--allow-ip CIDR]... [--name N] [--rate-limit N/S] [--expires ISO] [--json] [--database URL]
  keys list --user ID [--json] [--database URL]
  keys revoke ID [--database URL]
  openapi [--base-path P] [--server-url URL] [--markdown] [--output FILE]

Database URLs: postgres://..., postgresql://..., sqlite:PATH, sqlite::memory: (default sqlite:./data/monitoring.db).
Environment: DATABASE_URL, HOST, PORT, RATE_LIMIT_STORE, RATE_LIMIT_FAIL (flags win).
`;

function version(): string {
  // The same file sits one level deeper once compiled (dist/cli/main.js).
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'monitoring-api') return pkg.version ?? 'unknown';
    } catch {
      // not this one
    }
  }
  return 'unknown';
}

/** Runs one command; resolves to the exit code, or never for `serve` (it exits on a signal). */
async function run(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const args = sub === undefined ? rest : [sub, ...rest];
  switch (command) {
    case 'serve':
      await serve(args);
      return -1;
    case 'migrate':
      await migrate(args);
      return 0;
    case 'openapi':
      return runOpenApiCommand(args);
    case 'users':
      if (sub === 'create') return createUser(rest).then(() => 0);
      throw new UsageError(`unknown users command: ${sub ?? '(none)'}; use users create`);
    case 'keys':
      if (sub === 'create') return createKey(rest).then(() => 0);
      if (sub === 'list') return listKeys(rest).then(() => 0);
      if (sub === 'revoke') return revokeKey(rest);
      throw new UsageError(`unknown keys command: ${sub ?? '(none)'}; use keys create, keys list or keys revoke`);
    default:
      throw new UsageError(`unknown command: ${command} (see monitoring-api --help)`);
  }
}

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
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    process.stderr.write(`monitoring-api: ${message}\n`);
    if (error instanceof UsageError || error instanceof UnreachableError) process.exitCode = 2;
    else if (error instanceof KeyAdminError) process.exitCode = 1;
    else {
      process.exitCode = 1;
    }
  },
);
