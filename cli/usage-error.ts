/** A mistake in how the command was called: one line on stderr and exit code 2 (docs/contract.md §9). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
