/**
 * Discord's webhooks ("Execute Webhook" and the embed limits of its API reference): JSON with
 * `content` (at most 2000) or `embeds` (at most 10); per embed title 256, description 4096, at most
 * 25 fields, footer 2048, a `color` from 0 to 0xFFFFFF; at most 6000 characters across every
 * embed's title, description, fields, footer and author. A wrong body is 400 with
 * `{"code": 50035, "message": "Invalid Form Body"}`; a message taken is 204.
 */
import { json, jsonObject, startFakeService, type FakeService } from './fake-service.ts';

interface Embed {
  title?: unknown;
  description?: unknown;
  color?: unknown;
  fields?: { name?: unknown; value?: unknown }[];
  footer?: { text?: unknown };
  author?: { name?: unknown };
}

const length = (value: unknown) => (typeof value === 'string' ? value.length : 0);

function embedsProblem(embeds: unknown): string | null {
  if (!Array.isArray(embeds) || embeds.length > 10) return 'embeds: at most 10';
  let total = 0;
  for (const embed of embeds as Embed[]) {
    if (length(embed.title) > 256) return 'title: at most 256';
    if (length(embed.description) > 4096) return 'description: at most 4096';
    if (
      embed.color !== undefined &&
      (!Number.isInteger(embed.color) || (embed.color as number) < 0 || (embed.color as number) > 0xffffff)
    )
      return 'color';
    const fields = embed.fields ?? [];
    if (fields.length > 25) return 'fields: at most 25';
    if (length(embed.footer?.text) > 2048) return 'footer: at most 2048';
    total += length(embed.title) + length(embed.description) + length(embed.footer?.text) + length(embed.author?.name);
    for (const field of fields) {
      if (length(field.name) > 256 || length(field.value) > 1024) return 'field';
      total += length(field.name) + length(field.value);
    }
  }
  return total > 6000 ? 'embeds: at most 6000 characters in all' : null;
}

export async function startFakeDiscord(): Promise<FakeService> {
  const invalid = json(400, { code: 50035, message: 'Invalid Form Body' });
  return startFakeService(
    (request) => {
      if (request.method !== 'POST' || !String(request.headers['content-type']).startsWith('application/json')) {
        return json(400, { code: 50006, message: 'Cannot send an empty message' });
      }
      const body = jsonObject(request.body);
      if (body === null) return json(400, { code: 50109, message: 'The request body contains invalid JSON.' });
      if (length(body.content) > 2000) return invalid;
      if (body.content === undefined && (!Array.isArray(body.embeds) || body.embeds.length === 0)) {
        return json(400, { code: 50006, message: 'Cannot send an empty message' });
      }
      return body.embeds === undefined || embedsProblem(body.embeds) === null ? null : invalid;
    },
    () => ({ status: 204 }),
  );
}
