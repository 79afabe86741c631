// The fair create baseline's HTTP side, shared by the PostgreSQL and SQLite servers: what a
// careful hand-written node:http server does for POST /v1/devices/create and nothing more. It
// reads the body, JSON.parse, checks the two required fields, runs the insert and answers 201
// with the row as JSON in the API's envelope. No authentication, rate limit, validation beyond
// the two fields, normalisation or request log.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export type Insert = (targetType: string, targetValue: string, createdAt: string) => Promise<unknown>;

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

async function create(req: IncomingMessage, res: ServerResponse, insert: Insert): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return answer(res, 400, '{"success":false,"error":{"code":"invalid_json"}}');
  }
  const { target_type: type, target_value: value } = (body ?? {}) as Record<string, unknown>;
  if (typeof type !== 'string' || typeof value !== 'string')
    return answer(res, 400, '{"success":false,"error":{"code":"validation_failed"}}');
  const row = await insert(type, value, new Date().toISOString());
  if (row === undefined) return answer(res, 409, '{"success":false,"error":{"code":"duplicate_device"}}');
  answer(res, 201, `{"success":true,"data":${JSON.stringify(row)}}`);
}

export function serveCreates(insert: Insert, onClose: () => Promise<void>): void {
  const server = createServer((req, res) => {
    create(req, res, insert).catch((error: unknown) => {
      console.error(error);
      answer(res, 500, '{"success":false,"error":{"code":"server_error"}}');
    });
  });
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`);
  });
  process.on('SIGTERM', () => server.close(() => void onClose().then(() => process.exit(0))));
}
