import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { nodeHeaders } from '../adapters/node/index.ts';
import { requestId } from '../core/http/request-id.ts';

/**
 * Requests node:http would answer itself, before the API sees them, with an empty body or none at
 * all. They get the API's envelope instead (contract §3: every answer is JSON and carries an
 * X-Request-Id), and the connection closes: what follows on it cannot be trusted to be framed.
 */
interface ProtocolError {
  status: number;
  reason: string;
  code: string;
  message: string;
}

const CLIENT_ERRORS: Record<string, ProtocolError> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', code: 'request_header_fields_too_large', message: 'The request line or headers are too large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', code: 'request_timeout', message: 'The request was not received in time.' },
};
const NOT_HTTP: ProtocolError = { status: 400, reason: 'Bad Request', code: 'bad_request', message: 'The request is not valid HTTP.' };
const NO_HOST: ProtocolError = { status: 400, reason: 'Bad Request', code: 'bad_request', message: 'An HTTP/1.1 request needs a Host header.' };
const CONNECT: ProtocolError = { status: 400, reason: 'Bad Request', code: 'bad_request', message: 'CONNECT is not served: this server is not a proxy.' };
const EXPECTATION: ProtocolError = { status: 417, reason: 'Expectation Failed', code: 'expectation_failed', message: 'The only expectation served is 100-continue.' };

/** Connections already being closed by closeWith. */
const closing = new WeakSet<Duplex>();

/** How long a connection answered on its raw socket may take to read the answer before it is cut. */
const LINGER_MS = 2_000;

function headersAndBody(error: ProtocolError, id: string): [Record<string, string>, string] {
  const body = JSON.stringify({ success: false, error: { code: error.code, message: error.message } });
  return [{
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': id,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  }, body];
}

/** The answer still owed to an earlier request on a connection, if any (see ConnectionDrain). */
export type OwedAnswer = (socket: Duplex) => ServerResponse | undefined;

/**
 * Answers on a socket the HTTP parser has let go of, then closes it: node:http servers keep
 * half-open connections, and no server timeout watches a socket it no longer parses. When an
 * earlier request on the connection is still being answered, written bytes would be read as its
 * answer; that one is made the last instead, and nothing is said of what followed it.
 */
function closeWith(socket: Duplex, error: ProtocolError, owed: ServerResponse | undefined): void {
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
  const [headers, body] = headersAndBody(error, crypto.randomUUID());
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${error.status} ${error.reason}\r\n${lines}\r\n${body}`, () => socket.destroy());
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

function writeToResponse(req: IncomingMessage, res: ServerResponse, error: ProtocolError): void {
  const [headers, body] = headersAndBody(error, requestId(nodeHeaders(req)));
  res.writeHead(error.status, headers);
  res.end(body);
}

/** The server's 'clientError': malformed HTTP, oversized headers, too slow. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, owed: OwedAnswer): void {
  if (error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  closeWith(socket, CLIENT_ERRORS[error.code ?? ''] ?? NOT_HTTP, owed(socket));
}

/** The server's 'connect': without a listener node:http drops the connection without a word. */
export function answerConnect(socket: Duplex, owed: OwedAnswer): void {
  closeWith(socket, CONNECT, owed(socket));
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
