import { DEFAULTS } from '../../core/index.ts';
import { normalizePublicUrl } from '../../core/internal.ts';
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

/**
 * `--public-url URL`: where clients reach this server (`https://monitoring.example.com`), an http or
 * https URL without query or fragment, checked as the core checks it. One flag serves both uses: a
 * heartbeat's `ping_url` is `URL/ping/<token>` (docs/heartbeats.md, "The resource"), and channels'
 * messages link to the record's `get` route under `URL/v1` (docs/notifications.md).
 */
export function readPublicUrl(flags: FlagValues): string | undefined {
  const value = text(flags, 'public-url');
  if (value === undefined) return undefined;
  try {
    return normalizePublicUrl(value);
  } catch {
    throw new UsageError(`--public-url must be an http or https URL without query or fragment, not "${value}"`);
  }
}

/**
 * Reads and checks the channel flags; every bad value is a UsageError (exit 2). `publicUrl` is
 * `--public-url` as readPublicUrl read it: the links go to the API under its base path.
 */
export function readChannelFlags(flags: FlagValues, publicUrl: string | undefined): ChannelFlagOptions {
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
  const telegramApiUrl = webUrl(flags, 'telegram-api-url');
  const pagerdutyEventsUrl = webUrl(flags, 'pagerduty-events-url');
  if (publicUrl !== undefined) options.publicUrl = `${publicUrl}${DEFAULTS.basePath}`;
  if (telegramApiUrl !== undefined) options.telegramApiUrl = telegramApiUrl;
  if (pagerdutyEventsUrl !== undefined) options.pagerdutyEventsUrl = pagerdutyEventsUrl;
  return options;
}
