/**
 * Where a command writes and what environment it reads: the process's own in `monitoring-api`
 * (main.ts), buffers and a given environment when a test runs the commands in its own process, so
 * that calls running side by side neither mix their output nor see each other's variables.
 */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export interface CliIo extends CommandIo {
  /** The variables the CLI reads (DATABASE_URL, HOST, PORT, RATE_LIMIT_STORE, RATE_LIMIT_FAIL). */
  env: Readonly<Record<string, string | undefined>>;
}

export const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  get env() {
    return process.env;
  },
};
