/**
 * Channels in the OpenAPI document (docs/notifications.md): the create and change bodies, the
 * record, each type's config (as a create gives it, and as answers show it, masked), the
 * attempts and their envelopes. Written by hand: a config's shape depends on the channel's type,
 * which the validator judges in code (core/channels/channel-configs.ts), whose patterns and
 * limits are used here.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import { ADDRESS, BOT_TOKEN, CHAT_ID, ROUTING_KEY, SECRET_FIELDS, TOPIC } from '../channels/channel-configs.ts';
import {
  CHANNEL_DELIVERY_STATUSES,
  CHANNEL_MESSAGE_KINDS,
  CHANNEL_TYPES,
  EVENT_TYPES,
  PAGERDUTY_SEVERITIES,
  type Channel,
  type ChannelAttempt,
  type ChannelType,
} from '../records/index.ts';
import { DEFAULT_CHANNEL_EVENTS, ESCALATE_AFTER_S, REMIND_EVERY_S } from '../validation/channel-input.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '../validation/webhook-input.ts';
import { NO_CONTROL_CHARACTERS } from './request-schemas.ts';
import { nullable, ref } from './schema-helpers.ts';

/** Each type's part of a schema name: `SlackChannelConfig`, `SlackChannelConfigInput`. */
const NAMES: Readonly<Record<ChannelType, string>> = {
  email: 'Email',
  slack: 'Slack',
  discord: 'Discord',
  teams: 'Teams',
  telegram: 'Telegram',
  pagerduty: 'PagerDuty',
  ntfy: 'Ntfy',
};

const url = (what: string): JsonSchema => ({
  type: 'string',
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  description: `${what}: an http or https URL on a public host (forbidden_target otherwise, unless the server allows private targets), without credentials or fragment.`,
});
const matching = (pattern: RegExp, maxLength: number, description: string): JsonSchema => ({
  type: 'string',
  pattern: pattern.source,
  maxLength,
  description,
});

/** Each type's config as a create gives it (the fields, their rules, which are required). */
function inputConfigs(): Record<ChannelType, { properties: Record<string, JsonSchema>; required: string[] }> {
  const webhook = (service: string) => ({
    properties: { webhook_url: url(`The ${service} webhook URL (a secret)`) },
    required: ['webhook_url'],
  });
  return {
    email: {
      properties: {
        to: {
          type: 'array',
          minItems: 1,
          maxItems: 10,
          description: 'The addresses to mail, as local@domain.',
          items: { type: 'string', maxLength: 254, pattern: ADDRESS.source },
        },
      },
      required: ['to'],
    },
    slack: webhook('Slack incoming'),
    discord: webhook('Discord'),
    teams: webhook('Microsoft Teams Workflows'),
    telegram: {
      properties: {
        bot_token: matching(BOT_TOKEN, 128, "The bot's token as BotFather gives it (a secret)."),
        chat_id: {
          description: 'The chat: its numeric id (negative for groups and channels), or a public channel @username.',
          anyOf: [{ type: 'string', pattern: CHAT_ID.source }, { type: 'integer' }],
        },
      },
      required: ['bot_token', 'chat_id'],
    },
    pagerduty: {
      properties: {
        routing_key: matching(ROUTING_KEY, 32, 'The Events API v2 integration key (a secret).'),
        severity: {
          description: "The events' severity. Default critical.",
          anyOf: [{ type: 'string', enum: [...PAGERDUTY_SEVERITIES] }, { type: 'null' }],
        },
      },
      required: ['routing_key'],
    },
    ntfy: {
      properties: {
        server_url: url('The ntfy server, e.g. https://ntfy.sh'),
        topic: matching(TOPIC, 64, 'The topic to publish to.'),
        token: {
          description: 'An access token (a secret). Default null: none.',
          anyOf: [{ type: 'string', maxLength: 256, pattern: NO_CONTROL_CHARACTERS }, { type: 'null' }],
        },
      },
      required: ['server_url', 'topic'],
    },
  };
}

const MASKED: JsonSchema = {
  type: 'string',
  pattern: '^…',
  description: 'A secret, masked: `…` and its last four characters.',
};

/** Each type's config as answers show it: its fields as stored, its secrets masked. */
function shownConfig(type: ChannelType, input: { properties: Record<string, JsonSchema> }): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const writeOnly: readonly string[] = SECRET_FIELDS[type];
  for (const name of Object.keys(input.properties)) {
    const secret = writeOnly.includes(name);
    if (type === 'ntfy' && name === 'token') properties[name] = nullable(MASKED);
    else if (secret) properties[name] = MASKED;
    else if (type === 'telegram' && name === 'chat_id') properties[name] = { type: 'string', pattern: CHAT_ID.source };
    else if (type === 'pagerduty' && name === 'severity')
      properties[name] = { type: 'string', enum: [...PAGERDUTY_SEVERITIES] };
    else properties[name] = input.properties[name]!;
  }
  return { type: 'object', required: Object.keys(properties), properties };
}

/** Ties `config` to `type`: for each type, the config schema of `suffix` (`''` or `Input`). */
function configByType(suffix: string): JsonSchema[] {
  return CHANNEL_TYPES.map((type) => ({
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: { properties: { config: ref(`${NAMES[type]}ChannelConfig${suffix}`) } },
  }));
}

const FLAG_OR_NULL: JsonSchema = { anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }, { type: 'null' }] };
const EVENTS: JsonSchema = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...EVENT_TYPES] },
};

/** The required fields a create and a change share, besides `config` (none of them may be null). */
function inputFields(): Record<string, JsonSchema> {
  const name: JsonSchema = { type: 'string', minLength: 1, maxLength: 100, pattern: NO_CONTROL_CHARACTERS };
  return {
    name: { description: 'What people know it by, 1 to 100 characters.', ...name },
    type: {
      description: 'Which service it sends to; it decides the config.',
      type: 'string',
      enum: [...CHANNEL_TYPES],
    },
  };
}

function settingFields(): Record<string, JsonSchema> {
  return {
    events: {
      description: `The event types it is told of, non-empty and distinct. Default ${DEFAULT_CHANNEL_EVENTS.join(', ')}.`,
      anyOf: [EVENTS, { type: 'null' }],
    },
    is_default: {
      description:
        'Whether it serves every device, blacklist monitor and heartbeat of the user whose channel_ids is null. Default true.',
      ...FLAG_OR_NULL,
    },
    remind_every_s: {
      description: `While an incident stays open, a "still down" message this often. Default null: none.`,
      anyOf: [{ type: 'integer', minimum: REMIND_EVERY_S.min, maximum: REMIND_EVERY_S.max }, { type: 'null' }],
    },
    escalate_after_s: {
      description:
        'Told of an incident only once it has been open this long without acknowledgement. Default null: at once.',
      anyOf: [{ type: 'integer', minimum: ESCALATE_AFTER_S.min, maximum: ESCALATE_AFTER_S.max }, { type: 'null' }],
    },
    send_recovery: { description: 'Whether recoveries are sent. Default true.', ...FLAG_OR_NULL },
    is_enabled: { description: 'A disabled channel is sent nothing. Default true.', ...FLAG_OR_NULL },
  };
}

function channelProperties(): { [K in keyof Channel]-?: JsonSchema } {
  return {
    id: ref('Id'),
    name: { type: 'string' },
    type: { type: 'string', enum: [...CHANNEL_TYPES] },
    config: {
      description: "The type's settings, each secret masked.",
      anyOf: CHANNEL_TYPES.map((type) => ref(`${NAMES[type]}ChannelConfig`)),
    },
    events: EVENTS,
    is_default: { type: 'boolean' },
    remind_every_s: nullable({ type: 'integer', minimum: REMIND_EVERY_S.min, maximum: REMIND_EVERY_S.max }),
    escalate_after_s: nullable({ type: 'integer', minimum: ESCALATE_AFTER_S.min, maximum: ESCALATE_AFTER_S.max }),
    send_recovery: { type: 'boolean' },
    is_enabled: { type: 'boolean' },
    created_at: ref('Timestamp'),
    last_delivery_at: {
      description: 'When the last attempt ended; null before the first.',
      ...nullable(ref('Timestamp')),
    },
    last_delivery_status: {
      description: 'delivered, or failing from a failed attempt until one succeeds; null before the first.',
      ...nullable({ type: 'string', enum: [...CHANNEL_DELIVERY_STATUSES] }),
    },
    last_delivery_error: {
      description: 'Why the last attempt failed; null when it succeeded, or before any.',
      ...nullable({ type: 'string' }),
    },
    failing_since: {
      description: 'When the current run of failed attempts began; null while they succeed.',
      ...nullable(ref('Timestamp')),
    },
    disabled_reason: {
      description:
        'Why the server disabled it (http_404, http_410: its webhook was deleted; http_401, http_403: its token or key was refused); null otherwise. Enabling it again clears it.',
      ...nullable({ type: 'string' }),
    },
  };
}

const attempt: { [K in keyof ChannelAttempt]-?: JsonSchema } = {
  id: { description: 'Larger ids are later attempts.', ...ref('Id') },
  kind: {
    description:
      'events: one event or several grouped (an escalation too); reminder: an incident still open; acknowledgement: an incident acknowledged.',
    type: 'string',
    enum: [...CHANNEL_MESSAGE_KINDS],
  },
  event_ids: { description: 'The events the message told of, ascending.', type: 'array', items: ref('Id') },
  event_types: {
    description: 'Their types, distinct.',
    type: 'array',
    uniqueItems: true,
    items: { type: 'string', enum: [...EVENT_TYPES] },
  },
  attempt: {
    type: 'integer',
    minimum: 1,
    description: '1 for the first attempt at this message, 2 for its first retry, ...',
  },
  attempted_at: { description: 'When the attempt ended.', ...ref('Timestamp') },
  http_status: {
    description: 'The HTTP status answered; null when none came (email has none).',
    ...nullable({ type: 'integer' }),
  },
  error: { description: 'Why the attempt failed; null when it was delivered.', ...nullable({ type: 'string' }) },
  duration_ms: {
    description: 'How long the attempt took, connecting included, in whole milliseconds.',
    ...nullable({ type: 'integer', minimum: 0 }),
  },
};

export function channelSchemas(): Record<string, JsonSchema> {
  const configs = inputConfigs();
  const schemas: Record<string, JsonSchema> = {};
  for (const type of CHANNEL_TYPES) {
    const { properties, required } = configs[type];
    schemas[`${NAMES[type]}ChannelConfigInput`] = {
      type: 'object',
      description: `The config of a ${type} channel, as a create gives it.`,
      required,
      additionalProperties: false,
      properties,
    };
    schemas[`${NAMES[type]}ChannelConfig`] = {
      description: `The config of a ${type} channel, as answers show it (secrets masked).`,
      ...shownConfig(type, configs[type]),
    };
  }
  const properties = channelProperties();
  const envelope = (data: JsonSchema, description: string): JsonSchema => ({
    type: 'object',
    description,
    required: ['success', 'data'],
    properties: { success: { const: true }, data },
  });
  return {
    ...schemas,
    ChannelInput: {
      type: 'object',
      description:
        'A channel to create. Its config is that of its type (an email channel is refused with email_unavailable on a server without SMTP). An optional field given as null means the same as leaving it out.',
      required: ['name', 'type', 'config'],
      additionalProperties: false,
      properties: {
        ...inputFields(),
        config: {
          description: "The type's settings; each problem is named config.<field>.",
          anyOf: CHANNEL_TYPES.map((type) => ref(`${NAMES[type]}ChannelConfigInput`)),
        },
        ...settingFields(),
      },
      allOf: configByType('Input'),
    },
    ChannelUpdate: {
      type: 'object',
      description:
        "Changes to a channel: any subset of the create's fields, the channel that results judged as a whole. A config of the channel's type is merged into the stored one: a field left out keeps its value (a secret included, as does a secret given masked, as answers show it), null gives it its default. A change of type needs the new type's config whole. Fields the server keeps are read_only_field.",
      additionalProperties: false,
      properties: {
        ...inputFields(),
        config: { type: 'object', description: "The type's settings to change, merged into the stored ones." },
        ...settingFields(),
      },
    },
    Channel: {
      type: 'object',
      description: 'A channel: where people are told of events. Its secrets are masked.',
      required: Object.keys(properties),
      properties,
      allOf: configByType(''),
    },
    ChannelEnvelope: envelope(ref('Channel'), 'One channel, its secrets masked.'),
    ChannelListEnvelope: envelope({ type: 'array', items: ref('Channel') }, 'Channels, ascending by id.'),
    ChannelAttempt: {
      type: 'object',
      description: 'One attempt to send a channel a message.',
      required: Object.keys(attempt),
      properties: attempt,
    },
    ChannelAttemptListEnvelope: envelope(
      { type: 'array', items: ref('ChannelAttempt') },
      "A channel's delivery attempts, newest first.",
    ),
  };
}
