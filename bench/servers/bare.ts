// The ceiling: node:http answering with the very bytes the API sent for the same request (status,
// header fields and body, captured from the real server in this run), doing nothing else. The
// rate-limit counter and request id change per request as the API's do.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

interface Captured {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const captured: Captured = JSON.parse(readFileSync(process.env.BENCH_RESPONSE!, 'utf8'));
const length = String(Buffer.byteLength(captured.body));
let remaining = 1_000_000_000;
const server = createServer((_req, res) => {
  remaining--;
  const headers: Record<string, string> = {
    ...captured.headers,
    'content-length': length,
    'x-request-id': randomUUID(),
  };
  if (headers['ratelimit-remaining'] !== undefined) {
    headers['ratelimit-remaining'] = String(remaining);
    headers.ratelimit = headers.ratelimit!.replace(/r=\d+/, `r=${remaining}`);
  }
  res.writeHead(captured.status, headers);
  res.end(captured.body);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
