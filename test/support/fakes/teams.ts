/**
 * A Teams Workflows webhook ("Post to a channel when a webhook request is received"): a JSON
 * message `{"type": "message", "attachments": [...]}` whose attachment is an Adaptive Card
 * (`contentType: application/vnd.microsoft.card.adaptive`, `content.type: AdaptiveCard`, a
 * schema version Teams renders: 1.4 or lower here), at most 28 KB in all (Teams' message limit).
 * A wrong body is 400; a message taken is 202 Accepted.
 */
import { json, jsonObject, startFakeService, type FakeService } from './fake-service.ts';

const ELEMENTS = new Set(['TextBlock', 'Container', 'ColumnSet', 'FactSet', 'Image', 'ActionSet', 'RichTextBlock']);

function cardProblem(card: Record<string, unknown>): string | null {
  if (card.type !== 'AdaptiveCard') return 'content.type';
  if (typeof card.version !== 'string' || !/^1\.[0-4]$/.test(card.version)) return 'version';
  if (!Array.isArray(card.body) || card.body.length === 0) return 'body';
  for (const element of card.body as { type?: unknown; text?: unknown }[]) {
    if (!ELEMENTS.has(String(element.type))) return `element ${String(element.type)}`;
    if (element.type === 'TextBlock' && (typeof element.text !== 'string' || element.text === ''))
      return 'TextBlock.text';
  }
  for (const action of (card.actions ?? []) as { type?: unknown; url?: unknown }[]) {
    if (action.type !== 'Action.OpenUrl' || typeof action.url !== 'string' || !/^https?:\/\//.test(action.url))
      return 'action';
  }
  return null;
}

export async function startFakeTeams(): Promise<FakeService> {
  const bad = (message: string) => json(400, { error: { code: 'InvalidRequestContent', message } });
  return startFakeService(
    (request) => {
      if (request.method !== 'POST' || !String(request.headers['content-type']).startsWith('application/json')) {
        return json(415, { error: { code: 'UnsupportedMediaType' } });
      }
      if (Buffer.byteLength(request.body) > 28 * 1024) return json(413, { error: { code: 'MessageTooLarge' } });
      const body = jsonObject(request.body);
      if (
        body === null ||
        body.type !== 'message' ||
        !Array.isArray(body.attachments) ||
        body.attachments.length === 0
      ) {
        return bad('a message with attachments');
      }
      for (const attachment of body.attachments as { contentType?: unknown; content?: unknown }[]) {
        if (attachment.contentType !== 'application/vnd.microsoft.card.adaptive') return bad('contentType');
        const card = typeof attachment.content === 'object' && attachment.content !== null ? attachment.content : null;
        const problem = card === null ? 'content' : cardProblem(card as Record<string, unknown>);
        if (problem !== null) return bad(problem);
      }
      return null;
    },
    () => ({ status: 202 }),
  );
}

/** The texts of a card's TextBlocks, in order. */
export function teamsTexts(body: string): string[] {
  const message = JSON.parse(body) as { attachments: { content: { body: { text?: string }[] } }[] };
  return message.attachments[0]!.content.body.map((element) => element.text ?? '');
}
