/** The database (or Redis) named on the command line cannot be used: also exit code 2. */
export class UnreachableError extends Error {
  override readonly name = 'UnreachableError';
}
