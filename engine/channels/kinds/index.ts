/**
 * The channel kinds by type (docs/notifications.md, "What each type sends"). A new kind is its file in
 * this folder and its line here (docs/architecture.md, "Where a new thing goes").
 */
import type { ChannelKinds } from '../kind.ts';
import { discord } from './discord.ts';
import { email } from './email.ts';
import { ntfy } from './ntfy.ts';
import { pagerduty } from './pagerduty.ts';
import { slack } from './slack.ts';
import { teams } from './teams.ts';
import { telegram } from './telegram.ts';

export const CHANNEL_KINDS: ChannelKinds = {
  email,
  slack,
  discord,
  teams,
  telegram,
  pagerduty,
  ntfy,
};
