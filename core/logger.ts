/** One line per request: what an operator needs, and never the Authorization header. */
export interface RequestLogEntry {
  time: string;
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  client_ip: string | null;
  key_id: number | null;
  /** The error code of a failed request. */
  code?: string;
}

/** Where the API reports; every method is optional, and the default reports nothing. */
export interface Logger {
  request?(entry: RequestLogEntry): void;
  /** An unexpected failure: the client saw a bare 500, the details go here. */
  error?(message: string, error: unknown, requestId?: string): void;
  warn?(message: string): void;
}
