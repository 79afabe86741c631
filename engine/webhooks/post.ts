import { postRequest, type PostOptions } from '../net/http-post.ts';
import type { WebhookRequest } from './payload.ts';

export type { PostOptions };

/** An attempt's answer: the endpoint's status when it answered, and why it failed (null for a 2xx). */
export interface SentWebhook {
  status: number | null;
  error: string | null;
}

/** POSTs one webhook request and says how it went; never rejects (see postRequest, engine/net/http-post.ts). */
export async function sendWebhook(url: string, req: WebhookRequest, options: PostOptions): Promise<SentWebhook> {
  try {
    const { status } = await postRequest(url, req, options);
    return { status, error: status >= 200 && status < 300 ? null : `http_${status}` };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { status: null, error: typeof code === 'string' ? code : 'request_failed' };
  }
}
