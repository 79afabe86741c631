import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { nodeHeaders } from '../../adapters/node/node-http.ts';
import type { ApiError } from '../../core/http/api-error.ts';
import { protocolErrors } from '../../core/http/protocol-errors.ts';
import { errorResponse } from '../../core/http/api-response.ts';
import { requestId } from '../../core/http/request-id.ts';

/*
 * Requests node:http would answer itself, before the API sees them, with an empty body or none at
 * all. They get the API's envelope instead (docs/contract.md §3: every answer is JSON and carries an
 * X-Request-Id), and the connection closes: what follows on it cannot be trusted to be framed. The
 * errors given here say so themselves (protocolErrors carry `Connection: close`).
 */

const CLIENT_ERRORS: Record<string, ApiError> = {
  HPE_HEADER_OVERFLOW: protocolErrors.headersTooLarge(),
  ERR_HTTP_REQUEST_TIMEOUT: protocolErrors.requestTimeout(),
};
const NOT_HTTP = protocolErrors.malformed();
const NO_HOST = protocolErrors.missingHost();
const CONNECT = protocolErrors.connect();
const EXPECTATION = protocolErrors.expectationFailed();

/** Connections already being closed by closeWith. */
const closing = new WeakSet<Duplex>();

/** How long a connection answered on its raw socket may take to read the answer before it is cut. */
const LINGER_MS = 2_000;

/** The API's answer to `error`: its envelope and the headers it carries, with X-Request-Id. */
function answer(error: ApiError, id: string): [Record<string, string>, string] {
  const { headers, body } = errorResponse(error);
  const text = body as string;
  headers['x-request-id'] = id;
  headers['content-length'] = String(Buffer.byteLength(text));
  return [headers, text];
}

/**
 * Answers on a socket the HTTP parser has let go of, then closes it: node:http servers keep
 * half-open connections, and no server timeout watches a socket it no longer parses. When an
 * earlier request on the connection is still being answered, written bytes would be read as its
 * answer; that one is made the last instead, and nothing is said of what followed it.
 */
function closeWith(socket: Duplex, error: ApiError, owed: ServerResponse | undefined): void {
  // The parser goes on failing on each chunk that arrives after its first failure.
  if (closing.has(socket)) return;
  closing.add(socket);
  if (owed !== undefined) {
    socket.pause();
    if (!owed.headersSent) owed.shouldKeepAlive = false;
    owed.once('close', () => socket.destroy());
    return;
  }
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [headers, body] = answer(error, crypto.randomUUID());
  const lines = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${lines}\r\n${body}`, () => socket.destroy());
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * Answers `error` on a request node:http parsed, in the envelope. node:http closes the connection
 * after it when the error says `Connection: close`, as every one given here does.
 */
export function writeToResponse(req: IncomingMessage, res: ServerResponse, error: ApiError): void {
  const [headers, body] = answer(error, requestId(nodeHeaders(req)));
  res.writeHead(error.status, headers);
  res.end(body);
}

/**
 * The server's 'clientError': malformed HTTP, oversized headers, too slow. `owed`: the answer
 * still owed to an earlier request on the connection (ConnectionDrain.owedAnswer).
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  owed: ServerResponse | undefined,
): void {
  if (error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  closeWith(socket, CLIENT_ERRORS[error.code ?? ''] ?? NOT_HTTP, owed);
}

/** The server's 'connect': without a listener node:http drops the connection without a word. */
export function answerConnect(socket: Duplex, owed: ServerResponse | undefined): void {
  closeWith(socket, CONNECT, owed);
}

/** The server's 'checkExpectation': an Expect other than 100-continue (RFC 9110 §10.1.1). */
export function answerExpectation(req: IncomingMessage, res: ServerResponse): void {
  writeToResponse(req, res, EXPECTATION);
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400. The server is made with
 * `requireHostHeader: false` so that this answer, not node's empty one, is given.
 */
export function answeredMissingHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.headers.host !== undefined || req.httpVersionMajor !== 1 || req.httpVersionMinor !== 1) return false;
  writeToResponse(req, res, NO_HOST);
  return true;
}
