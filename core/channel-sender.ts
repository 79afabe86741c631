import type { ChannelConfig, ChannelType } from './records/index.ts';
import type { WebhookTestResult } from './webhook-sender.ts';
/** A channel as a test message needs it: its type and its full (unmasked) config. */
export interface ChannelEndpoint {
  id: number;
  name: string;
  type: ChannelType;
  config: ChannelConfig;
}
/** Sends channels' messages for the API: `POST /channels/test` (docs/notifications.md). */
export interface ChannelSender {
  /** Whether email channels can be sent: an SMTP server is configured (else `email_unavailable`). */
  readonly email: boolean;
  /** Sends one test message at once and says how it went; never rejects for the channel's sake. */
  test(channel: ChannelEndpoint): Promise<WebhookTestResult>;
}
