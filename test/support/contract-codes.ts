/**
 * The closed set of `details[].code` values docs/contract.md §3 allows, written out here rather
 * than taken from the code, so a test notices a code the contract does not name.
 */
export const DETAIL_CODES: ReadonlySet<string> = new Set([
  'missing',
  'invalid_type',
  'invalid_value',
  'out_of_range',
  'too_long',
  'unknown_field',
  'forbidden_target',
  'not_applicable',
  'read_only_field',
]);
