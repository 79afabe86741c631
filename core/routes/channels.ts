import type { ChannelEndpoint } from '../channel-sender.ts';
import { maskedConfig } from '../channels/channel-configs.ts';
import { errors } from '../http/errors.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import type { Channel, NewChannel } from '../records/index.ts';
import {
  changesChannelType,
  channelHints,
  channelPatchBody,
  channelSchema,
  parseChannelInput,
} from '../validation/channel-input.ts';
import { parseIdAlone } from '../validation/list-query.ts';
import { parsePatch } from '../validation/patch-input.ts';
import { changedFields } from './record-change.ts';
import { resourceRoutes } from './resource-routes.ts';
import type { RouteContext } from './route-context.ts';

const FIELDS = Object.keys(channelSchema.entries);

/** The channel as every answer shows it: each secret of its config as `…` and its last four characters. */
export function shownChannel(channel: Channel): Channel {
  return { ...channel, config: maskedConfig(channel.type, channel.config) };
}

/** Whether this server can send mail: a channel sender that says so (docs/notifications.md, "Email"). */
const canSendEmail = (call: RouteContext) => call.channelSender?.email === true;

/**
 * GET /channels, POST /channels/create, GET /channels/get, PATCH /channels/update, DELETE
 * /channels/delete (docs/notifications.md). The store keeps a channel's config whole; every answer
 * masks its secrets (`shownChannel`). A change judges the body against the channel as stored, so
 * a config of the same type merges into the stored one and keeps the secrets it leaves out
 * (`channelPatchBody`), and a change of type needs the new type's config whole. A channel that is
 * or becomes `email` on a server that cannot send mail is 400 `email_unavailable`; an `email`
 * channel that exists already may still be changed (disabled, say).
 */
export const channelRoutes = resourceRoutes<Channel, NewChannel>({
  parse(input, call, createdAt) {
    const channel = parseChannelInput(input, call, createdAt);
    if (channel.type === 'email' && !canSendEmail(call)) throw errors.emailUnavailable();
    return channel;
  },
  list: (store, userId, page) => store.listChannels(userId, page),
  create: async (store, userId, channel) => ({ created: await store.createChannel(userId, channel) }),
  remove: (store, userId, id) => store.deleteChannel(userId, id),
  get: (store, userId, id) => store.getChannel(userId, id),
  prepare(from, body, call, at) {
    const to = parsePatch<Channel, NewChannel>(
      {
        schema: channelSchema,
        hints: channelHints,
        parse: (input) => parseChannelInput(input, call, from.created_at),
        // Another type's config is given whole: the stored one is not carried over to it.
        rederive: (record, given) => (changesChannelType(record, given) ? ['config'] : []),
      },
      from,
      channelPatchBody(from, body),
    );
    if (to.type === 'email' && from.type !== 'email' && !canSendEmail(call)) throw errors.emailUnavailable();
    const fields = [...FIELDS];
    // Enabled again by its user, a channel the server disabled no longer says why it was.
    if (to.is_enabled && from.disabled_reason !== null) fields.push('disabled_reason');
    if (changedFields(from, to, fields).length === 0) return { change: null };
    return { change: { to, fields, effect: 'none', at, events: [] } };
  },
  update: (store, userId, id, change) => store.updateChannel(userId, id, change),
  shown: shownChannel,
  kind: 'channel',
  notFound: 'channel_not_found',
});

/**
 * POST /channels/test?id=<id>: one test message sent to the channel at once, and the attempt's
 * outcome as the answer (docs/notifications.md, "Testing a channel"), as `POST /webhooks/test`
 * does for a webhook. The body, if any, is not read; nothing is stored.
 */
export async function testChannel(call: RouteContext): Promise<ApiResponse> {
  const id = parseIdAlone(call.url.query);
  const channel = await call.store.getChannel(call.key.user_id, id);
  if (channel === undefined) throw errors.notFound('channel_not_found');
  const sender = call.channelSender;
  if (sender === undefined) throw errors.channelTestUnavailable();
  if (channel.type === 'email' && !sender.email) throw errors.emailUnavailable();
  const endpoint: ChannelEndpoint = { id: channel.id, name: channel.name, type: channel.type, config: channel.config };
  return successResponse(200, await sender.test(endpoint));
}
