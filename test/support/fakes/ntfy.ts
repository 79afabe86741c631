/**
 * An ntfy server (docs.ntfy.sh, "Publishing"): POST `/<topic>` with the message as the body (at
 * most 4096 bytes: ntfy's message limit, past which it makes an attachment), `Title` (decoded from
 * RFC 2047 when so encoded), `Priority` 1 to 5 or its names, `Tags` a comma list. With a token
 * set, a request without `Authorization: Bearer` is 401 and one with another token 403. A wrong
 * request is 400 `{"code": 40007, ...}`; a message taken is 200 with the message as JSON.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { json, startFakeService, type FakeService } from './fake-service.ts';

const PRIORITIES = new Set(['1', '2', '3', '4', '5', 'min', 'low', 'default', 'high', 'max', 'urgent']);

/** A header as ntfy reads it: RFC 2047 encoded words decoded. */
export function decodedHeader(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text.replace(/=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=/gi, (_, b64: string) =>
    Buffer.from(b64, 'base64').toString('utf8'),
  );
}

export async function startFakeNtfy(topic: string, token: string | null = null): Promise<FakeService> {
  const bad = (error: string) => json(400, { code: 40007, http: 400, error });
  return startFakeService(
    (request) => {
      const headers: IncomingHttpHeaders = request.headers;
      if (token !== null) {
        const auth = headers.authorization;
        if (auth === undefined) return json(401, { code: 40101, http: 401, error: 'unauthorized' });
        if (auth !== `Bearer ${token}`) return json(403, { code: 40301, http: 403, error: 'forbidden' });
      }
      if (request.method !== 'POST' && request.method !== 'PUT') return json(405, { code: 40501, http: 405 });
      if (request.path !== `/${topic}`) return json(404, { code: 40401, http: 404, error: 'page not found' });
      if (headers.priority !== undefined && !PRIORITIES.has(String(headers.priority))) return bad('invalid priority');
      if (Buffer.byteLength(request.body) > 4096) return bad('message too long for a message (would be an attachment)');
      if (request.body === '') return bad('empty message');
      return null;
    },
    (request) =>
      json(200, {
        id: 'x',
        event: 'message',
        topic,
        title: decodedHeader(request.headers.title),
        message: request.body,
      }),
  );
}
