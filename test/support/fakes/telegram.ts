/**
 * Telegram's Bot API, `sendMessage` only (core.telegram.org/bots/api, "sendMessage" and
 * "Formatting options"): POST `/bot<token>/sendMessage` with a JSON `chat_id` and `text`; with
 * `parse_mode: "HTML"` the text may hold only the supported tags, properly nested, and `&`, `<`,
 * `>` and `"` only as entities; at most 4096 characters once parsed. An unknown token is 401
 * Unauthorized, a bad text 400 with Telegram's description; a message taken is 200 `{"ok": true}`.
 */
import { json, jsonObject, startFakeService, type FakeService } from './fake-service.ts';

const TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'a',
  'code',
  'pre',
  'tg-spoiler',
  'blockquote',
]);
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/** The text a reader sees, or what Telegram says is wrong with the HTML. */
export function parseTelegramHtml(html: string): { text: string } | { error: string } {
  const open: string[] = [];
  let text = '';
  const token = /<(\/?)([A-Za-z-]+)((?:\s+[a-z-]+="[^"<>]*")*)\s*>|&([a-z]+|#[0-9]+|#x[0-9a-fA-F]+);|[<>&]|[^<>&]+/g;
  for (const match of html.matchAll(token)) {
    const [whole, closing, tag, attributes, entity] = match;
    if (tag !== undefined) {
      const name = tag.toLowerCase();
      if (!TAGS.has(name)) return { error: `Unsupported start tag "${name}"` };
      if (closing === '/') {
        if (open.pop() !== name) return { error: `Unmatched end tag "${name}"` };
      } else {
        if (name === 'a' && !/^\s+href="[^"]+"$/.test(attributes ?? '')) return { error: 'a tag without href' };
        open.push(name);
      }
    } else if (entity !== undefined) {
      if (entity.startsWith('#'))
        text += String.fromCodePoint(Number(entity.startsWith('#x') ? `0x${entity.slice(2)}` : entity.slice(1)));
      else if (ENTITIES[entity] !== undefined) text += ENTITIES[entity];
      else return { error: `Unsupported entity "${entity}"` };
    } else if (whole === '<' || whole === '>' || whole === '&') {
      return { error: `Unexpected ${whole}` };
    } else text += whole;
  }
  if (open.length > 0) return { error: `Can't find end tag corresponding to start tag "${open.at(-1)}"` };
  return { text };
}

export async function startFakeTelegram(token: string): Promise<FakeService> {
  const badRequest = (description: string) =>
    json(400, { ok: false, error_code: 400, description: `Bad Request: ${description}` });
  return startFakeService(
    (request) => {
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.path);
      if (match === null) return json(404, { ok: false, error_code: 404, description: 'Not Found' });
      if (match[1] !== token) return json(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      if (match[2] !== 'sendMessage')
        return json(404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
      const body = jsonObject(request.body);
      if (body === null) return badRequest('message text is empty');
      if (typeof body.chat_id !== 'string' && typeof body.chat_id !== 'number') return badRequest('chat_id is empty');
      if (typeof body.text !== 'string' || body.text === '') return badRequest('message text is empty');
      if (body.parse_mode !== undefined && body.parse_mode !== 'HTML') return badRequest('unsupported parse_mode');
      const parsed = body.parse_mode === 'HTML' ? parseTelegramHtml(body.text) : { text: body.text };
      if ('error' in parsed) return badRequest(`can't parse entities: ${parsed.error}`);
      if (parsed.text.trim() === '') return badRequest('message text is empty');
      if (parsed.text.length > 4096) return badRequest('message is too long');
      return null;
    },
    (request) =>
      json(200, {
        ok: true,
        result: { message_id: 1, chat: { id: (jsonObject(request.body) ?? {}).chat_id }, text: '' },
      }),
  );
}

/** The text of an accepted `sendMessage` as a reader sees it. */
export function telegramText(body: string): string {
  const parsed = parseTelegramHtml((JSON.parse(body) as { text: string }).text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.text;
}
