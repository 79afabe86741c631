/** A detail of a `validation_failed` answer: one problem with one field (docs/contract.md §3). */
export type DetailCode =
  | 'missing' | 'invalid_type' | 'invalid_value' | 'out_of_range' | 'too_long'
  | 'unknown_field' | 'forbidden_target' | 'not_applicable';

export interface ErrorDetail {
  field: string;
  code: DetailCode;
  message: string;
}

/**
 * An answer the contract names: thrown (or returned) anywhere in the pipeline and turned into the
 * error envelope by `errorResponse`. Only these ever reach a client; any other error becomes a
 * generic 500 so that nothing internal (stack, SQL, driver text) leaks.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra fields of the error object, e.g. `existing_id` on a 409. */
    readonly extra?: Readonly<Record<string, number | string>>,
    /** Extra response headers, e.g. `Allow` on a 405. */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}
