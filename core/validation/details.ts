import type { BaseIssue } from 'valibot';
import type { DetailCode, ErrorDetail } from '../http/api-error.ts';

/** Per field, what a valid value looks like: the human half of every detail message. */
export type FieldHints = Readonly<Record<string, string>>;

/**
 * How a server lets loopback, private and special-purpose targets in: said in the message of every
 * `forbidden_target`, for whoever runs the server, whichever way it runs: a host that embeds the
 * core sets the option, the standalone command takes the flag (docs/contract.md §5).
 */
const PRIVATE_TARGETS_HINT =
  'A server allows loopback, private and special-purpose targets with the allowPrivateTargets option (monitoring-api serve --allow-private-targets).';

export function detail(field: string, code: DetailCode, hints: FieldHints): ErrorDetail {
  const hint = hints[field] ?? 'valid';
  const message: Record<DetailCode, string> = {
    missing: `${field} is required.`,
    invalid_type: `${field} must be ${hint}.`,
    invalid_value: `${field} must be ${hint}.`,
    out_of_range: `${field} must be ${hint}.`,
    too_long: `${field} is too long: it must be ${hint}.`,
    unknown_field: `${field} is not a field of this request.`,
    forbidden_target: `${field} is not a publicly routable target. ${PRIVATE_TARGETS_HINT}`,
    not_applicable: `${field} applies to web services only.`,
    read_only_field: `${field} is kept by the server and cannot be changed.`,
  };
  return { field, code, message: message[code] };
}

/**
 * Fields of the input that the schema does not name. Checked by own keys rather than by the
 * schema, so `__proto__` and `constructor` are reported like any other stray field.
 */
export function unknownFields(input: object, known: ReadonlySet<string>): string[] {
  return Object.keys(input).filter((name) => !known.has(name));
}

const CODES = new Set<string>([
  'missing',
  'invalid_type',
  'invalid_value',
  'out_of_range',
  'too_long',
  'forbidden_target',
  'not_applicable',
]);

/**
 * Valibot issues as contract details. Each of our schema actions carries its detail code as its
 * message; a key absent from the input is `missing`. Only the first problem of a field is kept.
 */
export function issuesToDetails(issues: readonly BaseIssue<unknown>[], hints: FieldHints): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    const field = String(issue.path?.[0]?.key ?? '');
    if (seen.has(field)) continue;
    seen.add(field);
    const code: DetailCode =
      issue.input === undefined && issue.type === 'object'
        ? 'missing'
        : CODES.has(issue.message)
          ? (issue.message as DetailCode)
          : 'invalid_value';
    details.push(detail(field, code, hints));
  }
  return details;
}
