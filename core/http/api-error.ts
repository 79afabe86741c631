/** A detail of a `validation_failed` answer: one problem with one field (docs/contract.md §3). */
export type DetailCode =
  | 'missing'
  | 'invalid_type'
  | 'invalid_value'
  | 'out_of_range'
  | 'too_long'
  | 'unknown_field'
  | 'forbidden_target'
  | 'not_applicable'
  | 'read_only_field';

export interface ErrorDetail {
  field: string;
  code: DetailCode;
  message: string;
}

/** Response header fields by lower-case name, as `ApiResponse` carries them. */
export type HeaderFields = Readonly<Record<string, string>>;

/** What an `ApiError` says besides its status, code and message. */
export interface ApiErrorOptions {
  /** On `validation_failed`: every problem found, one per field (docs/contract.md §3). */
  details?: readonly ErrorDetail[];
  /** On a 409 `duplicate_*`: the id of the record that exists already, answered as `existing_id`. */
  existingId?: number;
  /**
   * Header fields the answer needs whoever asked: `WWW-Authenticate` on a 401, `Allow` on a 405,
   * `Retry-After` on a 429, `Connection: close` where the server closes. Names in any case; the
   * error keeps them lower-case. The pipeline adds the per-request ones (X-Request-Id, quota).
   */
  headers?: Readonly<Record<string, string>>;
  /** What went wrong underneath, for logs and debuggers; never sent to the client. */
  cause?: unknown;
}

const NO_HEADERS: HeaderFields = Object.freeze({});

function lowerCaseNames(headers: Readonly<Record<string, string>> | undefined): HeaderFields {
  if (headers === undefined) return NO_HEADERS;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  // Factories' errors are built once and shared (cli/server/protocol-errors.ts): nobody may edit them.
  return Object.freeze(out);
}

/**
 * An answer the contract names: thrown (or returned) anywhere in the pipeline and turned into the
 * error envelope, with its headers, by `errorResponse`. Only these ever reach a client; any other
 * error becomes a generic 500 so that nothing internal (stack, SQL, driver text) leaks.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly details: readonly ErrorDetail[] | undefined;
  readonly existingId: number | undefined;
  /** The header fields this answer carries, by lower-case name; empty when it needs none. */
  readonly headers: HeaderFields;
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.existingId = options.existingId;
    this.headers = lowerCaseNames(options.headers);
  }

  /** The same answer with more header fields (those given win), e.g. a server's `Connection: close`. */
  withHeaders(headers: Readonly<Record<string, string>>): ApiError {
    return new ApiError(this.status, this.code, this.message, {
      details: this.details,
      existingId: this.existingId,
      headers: { ...this.headers, ...headers },
      cause: this.cause,
    });
  }
}
