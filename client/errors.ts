import type { ErrorDetail } from './types.ts';

/** Codes the client itself gives to failures that never got an API error envelope. */
export type ClientErrorCode = 'network_error' | 'unexpected_response' | 'aborted';

export interface MonitoringApiErrorInit {
  status: number;
  code: string;
  message: string;
  details?: ErrorDetail[];
  existingId?: number;
  requestId?: string | null;
  retryAfterSeconds?: number;
  cause?: unknown;
}

/**
 * Every failure of a client call. `status` and `code` come from the API's error envelope
 * (`code` is the stable part: branch on it); a failure without one has status 0 (`network_error`,
 * `aborted`) or the HTTP status with `unexpected_response` (e.g. an HTML page from a proxy).
 */
export class MonitoringApiError extends Error {
  override readonly name = 'MonitoringApiError';
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /**
   * The API's error code (`validation_failed`, `duplicate_device`, `rate_limit_exceeded`, ...) or a ClientErrorCode.
   */
  readonly code: string;
  /** On validation_failed: every problem, one per field. Empty otherwise. */
  readonly details: ErrorDetail[];
  /** On duplicate_device / duplicate_blacklist_monitor: the id of the record that exists already. */
  readonly existingId: number | undefined;
  /** The X-Request-Id of the answer, for the server's logs. */
  readonly requestId: string | null;
  /** On 429: how long the server asked to wait. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: MonitoringApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.existingId = init.existingId;
    this.requestId = init.requestId ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}
