/**
 * Slack's incoming webhooks (docs.slack.dev, "Sending messages using incoming webhooks" and the
 * Block Kit reference): a JSON body with `text` and at most 50 `blocks`; header text plain_text
 * of at most 150 characters, section text at most 3000, context at most 10 elements. Slack answers
 * 400 `invalid_payload` for a body that is not JSON and 400 `invalid_blocks` for a wrong block, 200
 * `ok` otherwise. mrkdwn text must have `&`, `<` and `>` escaped except in links (`<url|label>`).
 */
import { jsonObject, startFakeService, type FakeAnswer, type FakeService } from './fake-service.ts';

const refuse = (body: string): FakeAnswer => ({ status: 400, headers: { 'content-type': 'text/plain' }, body });

/** What is wrong with mrkdwn text: a `<` that opens no link, or a raw `&`. */
function mrkdwnProblem(text: string): string | null {
  const outside = text.replace(/<https?:\/\/[^|<>\s]+\|[^<>]*>/g, '');
  if (/[<>]/.test(outside)) return 'an unescaped < or > outside a link';
  if (/&(?!(amp|lt|gt);)/.test(text)) return 'a raw &';
  return null;
}

function blocksProblem(blocks: unknown): string | null {
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 50) return 'blocks: 1 to 50';
  for (const block of blocks as Record<string, unknown>[]) {
    const text = block.text as { type?: unknown; text?: unknown } | undefined;
    switch (block.type) {
      case 'header':
        if (
          text?.type !== 'plain_text' ||
          typeof text.text !== 'string' ||
          text.text.length === 0 ||
          text.text.length > 150
        )
          return 'header: plain_text of 1 to 150';
        break;
      case 'section':
        if ((text?.type !== 'mrkdwn' && text?.type !== 'plain_text') || typeof text.text !== 'string')
          return 'section: a text object';
        if (text.text.length === 0 || text.text.length > 3000) return 'section text: 1 to 3000';
        if (text.type === 'mrkdwn' && mrkdwnProblem(text.text) !== null) return mrkdwnProblem(text.text);
        break;
      case 'context': {
        const elements = block.elements as { type?: unknown; text?: unknown }[] | undefined;
        if (!Array.isArray(elements) || elements.length === 0 || elements.length > 10)
          return 'context: 1 to 10 elements';
        for (const element of elements) {
          if (element.type !== 'mrkdwn' || typeof element.text !== 'string' || element.text.length > 3000)
            return 'context element';
        }
        break;
      }
      case 'divider':
        break;
      default:
        return `unknown block type ${String(block.type)}`;
    }
  }
  return null;
}

export async function startFakeSlack(): Promise<FakeService> {
  return startFakeService(
    (request) => {
      if (request.method !== 'POST' || !String(request.headers['content-type']).startsWith('application/json'))
        return refuse('invalid_payload');
      const body = jsonObject(request.body);
      if (body === null) return refuse('invalid_payload');
      if (typeof body.text !== 'string' || body.text.length === 0 || body.text.length > 40_000)
        return refuse('invalid_payload');
      if (mrkdwnProblem(body.text) !== null) return refuse('invalid_payload');
      return blocksProblem(body.blocks) === null ? null : refuse('invalid_blocks');
    },
    () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' }),
  );
}

/** The Block Kit texts of a message, as a person reads them: header, sections, context. */
export function slackTexts(body: string): { text: string; blocks: string[] } {
  const message = JSON.parse(body) as {
    text: string;
    blocks: { text?: { text: string }; elements?: { text: string }[] }[];
  };
  return {
    text: message.text,
    blocks: message.blocks.map((block) => block.text?.text ?? (block.elements ?? []).map((e) => e.text).join(' ')),
  };
}
