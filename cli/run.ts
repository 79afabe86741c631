/**
 * The CLI's commands behind `monitoring-api` (main.ts): `run` dispatches one command line, and
 * `describeFailure` turns what it threw into the line and exit code the process reports;
 * `runCommandLine` does both, writing where its CliIo says. Apart from the process wiring, so
 * that tests can call the commands in process, with output and environment of their own.
 */
import { version } from './version.ts';
import { processIo, type CliIo } from './io.ts';
import { UnreachableError } from './unreachable-error.ts';
import { UsageError } from './usage-error.ts';

export const USAGE = `usage: monitoring-api <command> [flags]

  serve [--host H] [--port P] [--database URL] [--rate-limit N/S] [--rate-limit-store memory|redis://HOST:PORT[/DB][?prefix=NAME&timeout=MS]]
        [--rate-limit-fail open|closed] [--trust-proxy CIDR]... [--allow-private-targets] [--body-limit BYTES] [--public-url URL]
        [--no-prepared-statements] [--query-timeout MS] [--shutdown-timeout MS]
        [--header-timeout MS] [--request-timeout MS] [--keep-alive-timeout MS] [--log-level debug|info|warn|error]
        [--metrics-address HOST:PORT] [--smtp-url URL] [--smtp-from ADDR] [--public-url URL]
        [--telegram-api-url URL] [--pagerduty-events-url URL] [--worker [ENGINE FLAGS]]
  worker [--database URL] [--allow-private-targets] [--no-prepared-statements] [--query-timeout MS] [--stop-timeout MS]
         [--log-level debug|info|warn|error] [--health-address HOST:PORT] [--metrics-address HOST:PORT]
         [--smtp-url URL] [--smtp-from ADDR] [--public-url URL] [--telegram-api-url URL] [--pagerduty-events-url URL]
         [ENGINE FLAGS]
  migrate [--database URL]
  users create [--name N] [--json] [--database URL]
  keys create --user ID [--scopes read,write] [--allow-ip CIDR]... [--name N] [--rate-limit N/S] [--expires ISO] [--json] [--database URL]
  keys list --user ID [--json] [--database URL]
  keys revoke ID [--json] [--database URL]
  openapi [--base-path P] [--server-url URL] [--markdown] [--output FILE]

ENGINE FLAGS: [--concurrency N] [--dns-server HOST[:PORT]]... [--dnsbl-zone ZONE]... [--dnsbl-domain-zone ZONE]...
        [--dnsbl-zone-info FILE] [--probe-timeout MS] [--dns-timeout MS] [--retry-delay S] [--failures-before-down N] [--result-retention AGE]
        [--report-retention AGE] [--lease MS] [--poll-interval MS] [--worker-id NAME] [--ca-file PEM]...
        [--location NAME] [--probe-source-address ADDR]

serve --worker checks what the API stores in the same process; worker runs the checks alone (any
number of workers may share one PostgreSQL database). Neither the API without --worker nor any
other command checks anything. serve takes --dnsbl-zone and --dnsbl-domain-zone without --worker
too: a monitor's zones must be among them, so give an API the zones its workers ask.
engine defaults: --concurrency 100 --probe-timeout 10000 --dns-timeout 5000 --retry-delay 30 --failures-before-down 2
--result-retention 7d --report-retention 400d --lease 120000 --poll-interval 1000, the system's DNS resolver, the DNSBL zones listed in docs/engine.md.
serve defaults: --host 127.0.0.1 --port 8080 (0: any free port) --rate-limit 120/60 --body-limit 16384
  --query-timeout 12000 (PostgreSQL) --shutdown-timeout 5000 + query timeout + 3000
  --header-timeout 10000 --request-timeout 30000 --keep-alive-timeout 5000 --log-level info; --metrics-address off.
channels (serve and worker): --smtp-url smtp[s]://user:pass@host:port with --smtp-from ADDR sends email (none
  without); --public-url links messages to records; --telegram-api-url https://api.telegram.org and
  --pagerduty-events-url https://events.pagerduty.com/v2/enqueue by default.
worker defaults: --stop-timeout 30000 (on SIGTERM, how long checks in flight may take; then exit 1) --log-level info;
  --health-address (GET /healthz, /readyz) and --metrics-address (GET /metrics) off; port 0 takes any free port.
Database URLs: postgres://..., postgresql://..., sqlite:PATH, sqlite::memory: (default sqlite:./data/monitoring.db).
Environment: DATABASE_URL, HOST, PORT, RATE_LIMIT_STORE, RATE_LIMIT_FAIL (flags win).
Exit codes: 0 done; 1 the operation failed (no such user or key); 2 bad flags, or the database,
Redis or address cannot be used.
`;

/** Whether the caller asked for help anywhere among a command's flags (before a `--`). */
function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** Runs one command; resolves to the exit code, or -1 for `serve` and `worker` (they exit on a signal). */
async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (command === undefined) throw new UsageError('no command given (see monitoring-api --help)');
  if (command === 'help' || command === '--help' || command === '-h' || (command !== 'openapi' && wantsHelp(argv))) {
    io.stdout(USAGE);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    io.stdout(`${version()}\n`);
    return 0;
  }
  const args = sub === undefined ? rest : [sub, ...rest];
  // Each command loads its own modules: help, typos and the admin commands need neither the
  // HTTP stack nor the OpenAPI generator.
  const admin = () => import('./commands/admin-commands.ts');
  switch (command) {
    case 'serve':
      await (await import('./commands/serve.ts')).serve(args, io);
      return -1;
    case 'worker':
      await (await import('./commands/worker.ts')).worker(args, io);
      return -1;
    case 'migrate':
      await (await admin()).migrate(args, io);
      return 0;
    case 'openapi':
      return (await import('./commands/openapi-command.ts')).runOpenApiCommand(args, io);
    case 'users':
      if (sub === 'create') return (await admin()).createUser(rest, io).then(() => 0);
      throw new UsageError(`unknown users command: ${sub ?? '(none)'}; use users create`);
    case 'keys':
      if (sub === 'create') return (await admin()).createKey(rest, io).then(() => 0);
      if (sub === 'list') return (await admin()).listKeys(rest, io).then(() => 0);
      if (sub === 'revoke') return (await admin()).revokeKey(rest, io).then(() => 0);
      throw new UsageError(`unknown keys command: ${sub ?? '(none)'}; use keys create, keys list or keys revoke`);
    default:
      throw new UsageError(`unknown command: ${command} (see monitoring-api --help)`);
  }
}

/**
 * What a failed command prints (one line, after `monitoring-api: `) and its exit code: 2 when the
 * call or its surroundings are wrong (flags, database, Redis, address); 1 when a well-formed
 * request failed (no such user or key) or something broke.
 */
function describeFailure(error: unknown): { line: string; code: 1 | 2 } {
  const line = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  return { line, code: error instanceof UsageError || error instanceof UnreachableError ? 2 : 1 };
}

/** What `monitoring-api ARGS` ends with: its exit code (-1 while serve or worker run on), and whether it failed. */
export interface CommandLineOutcome {
  code: number;
  failed: boolean;
}

/**
 * Runs one command line as `monitoring-api` does: what a failed command threw becomes one line
 * on stderr, `monitoring-api: ` first, and its exit code (describeFailure).
 */
export async function runCommandLine(argv: readonly string[], io: CliIo = processIo): Promise<CommandLineOutcome> {
  try {
    return { code: await run(argv, io), failed: false };
  } catch (error) {
    const { line, code } = describeFailure(error);
    io.stderr(`monitoring-api: ${line}\n`);
    return { code, failed: true };
  }
}
