import type { ChannelSenderOptions } from '../../engine/index.ts';
import { mailDomain, smtpServer } from '../../engine/channels/smtp-mailer.ts';
import { text, type FlagValues } from '../flags.ts';
import { UsageError } from '../usage-error.ts';

/**
 * Where channels' messages go (docs/notifications.md, "What each type sends"): `serve` sends test messages
 * with them, `worker` and `serve --worker` the deliveries, so both take them, `serve` without
 * `--worker` too.
 */
export const CHANNEL_FLAGS = {
  'smtp-url': { type: 'string' },
  'smtp-from': { type: 'string' },
  'public-url': { type: 'string' },
  'telegram-api-url': { type: 'string' },
  'pagerduty-events-url': { type: 'string' },
} as const;

export type ChannelFlagOptions = Pick<
  ChannelSenderOptions,
  'smtpUrl' | 'smtpFrom' | 'publicUrl' | 'telegramApiUrl' | 'pagerdutyEventsUrl'
>;

/** An http or https URL, or a usage error naming the flag. */
function webUrl(flags: FlagValues, flag: string): string | undefined {
  const value = text(flags, flag);
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new UsageError(`--${flag} must be an http or https URL, not "${value}"`);
  }
  return value;
}

/** Reads and checks the channel flags; every bad value is a UsageError (exit 2). */
export function readChannelFlags(flags: FlagValues): ChannelFlagOptions {
  const smtpUrl = text(flags, 'smtp-url');
  const smtpFrom = text(flags, 'smtp-from');
  if ((smtpUrl === undefined) !== (smtpFrom === undefined)) {
    throw new UsageError('--smtp-url and --smtp-from go together: the mails need a sender the server sends for');
  }
  const options: ChannelFlagOptions = {};
  if (smtpUrl !== undefined && smtpFrom !== undefined) {
    try {
      smtpServer(smtpUrl);
    } catch (error) {
      throw new UsageError(`--smtp-url: ${(error as Error).message}`);
    }
    try {
      mailDomain(smtpFrom);
    } catch (error) {
      throw new UsageError(`--smtp-from: ${(error as Error).message}`);
    }
    Object.assign(options, { smtpUrl, smtpFrom });
  }
  const publicUrl = webUrl(flags, 'public-url');
  const telegramApiUrl = webUrl(flags, 'telegram-api-url');
  const pagerdutyEventsUrl = webUrl(flags, 'pagerduty-events-url');
  if (publicUrl !== undefined) options.publicUrl = publicUrl;
  if (telegramApiUrl !== undefined) options.telegramApiUrl = telegramApiUrl;
  if (pagerdutyEventsUrl !== undefined) options.pagerdutyEventsUrl = pagerdutyEventsUrl;
  return options;
}
