/**
 * What the channel tests share: a valid create body of each type, the secrets in them (which no
 * answer may show), and a channel sender that really sends its test message to a channel's URL
 * on loopback, as the engine's does, so a test sees what was sent and the answer it got.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import {
  MemoryStore,
  type ChannelEndpoint,
  type ChannelSender,
  type ChannelType,
  type ManualClock,
  type Store,
  type WebhookTestResult,
} from '../../core/index.ts';
import { createMonitoringEngine, type MonitoringEngineOptions, type MonitoringEngine } from '../../engine/index.ts';
import type { FakeService } from '../support/fakes/fake-service.ts';
import { startFakePagerDuty } from '../support/fakes/pagerduty.ts';
import { startFakeSlack } from '../support/fakes/slack.ts';
import type { OpenedStore, StoreFactory } from '../support/stores.ts';
import { LOOPBACK } from './message-fixtures.ts';

export const SECRETS = {
  slack: 'https://hooks.slack.com/services/T000/B000/SlackSecretValue1234',
  discord: 'https://discord.com/api/webhooks/123/DiscordSecretValue5678',
  teams: 'https://prod-00.westeurope.logic.azure.com/workflows/abc/invoke?sig=TeamsSecretValue9012',
  telegram: '123456789:AAEhBOweik6ad9r_TelegramSecretValue',
  pagerduty: 'R0uTiNgKeyPagerDutySecretValue32',
  ntfy: 'tk_NtfySecretValue3456',
} as const;

/** A create body of each type, its config holding the secret above. */
export function channelBody(type: ChannelType, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const configs: Record<ChannelType, Record<string, unknown>> = {
    email: { to: ['ops@example.com', 'oncall@example.org'] },
    slack: { webhook_url: SECRETS.slack },
    discord: { webhook_url: SECRETS.discord },
    teams: { webhook_url: SECRETS.teams },
    telegram: { bot_token: SECRETS.telegram, chat_id: -1001234567890 },
    pagerduty: { routing_key: SECRETS.pagerduty },
    ntfy: { server_url: 'https://ntfy.sh', topic: 'ops-alerts', token: SECRETS.ntfy },
  };
  return { name: `${type} alerts`, type, config: configs[type], ...overrides };
}

/** The part of each secret an answer must never show: everything but its last four characters. */
export const HIDDEN = Object.values(SECRETS).map((secret) => secret.slice(0, -4));

/** One field of a channel's config, whatever its type. */
export const configField = (channel: { config: object } | undefined, name: string): unknown =>
  (channel?.config as Record<string, unknown> | undefined)?.[name];

/** The masked form answers show of a secret. */
export const masked = (secret: string) => `…${secret.slice(-4)}`;

/** Whether an answer's text shows any secret (or the bulk of one). */
export function showsSecret(text: string): string | undefined {
  return HIDDEN.find((hidden) => text.includes(hidden) || text.includes(JSON.stringify(hidden).slice(1, -1)));
}

/**
 * A channel sender whose test POSTs a small JSON message to the channel's `webhook_url` (slack,
 * discord, teams) and reports the endpoint's answer as the engine's sender does. Other types
 * fail with `unsupported` (their senders are the engine's).
 */
export function loopbackSender(email: boolean, now: () => string): ChannelSender & { handed: ChannelEndpoint[] } {
  const handed: ChannelEndpoint[] = [];
  return {
    email,
    handed,
    async test(channel) {
      handed.push(structuredClone(channel));
      const started = performance.now();
      const result = (fields: Partial<WebhookTestResult>): WebhookTestResult => ({
        delivered: false,
        http_status: null,
        error: null,
        duration_ms: Math.round(performance.now() - started),
        attempted_at: now(),
        ...fields,
      });
      const url = (channel.config as { webhook_url?: string }).webhook_url;
      if (url === undefined) return result({ error: 'unsupported' });
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: `Test message from monitoring: ${channel.name}` }),
        });
        await response.arrayBuffer();
        const delivered = response.status >= 200 && response.status < 300;
        return result({ delivered, http_status: response.status, error: delivered ? null : `http_${response.status}` });
      } catch (error) {
        return result({ error: (error as { cause?: { code?: string } }).cause?.code ?? 'network_error' });
      }
    },
  };
}

/** An endpoint on 127.0.0.1 that records each body and answers `status`. */
export async function startEndpoint(
  status: () => number,
): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(status()).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook/EndpointSecretValue7777`,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An SSH server on 127.0.0.1 that greets while `up` and drops every connection while not. */
export async function startSwitchableSsh(): Promise<{ port: number; up: boolean; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const state = { port: 0, up: false, close: async () => {} };
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (state.up) socket.end('SSH-2.0-OpenSSH_9.6\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return state;
}

/**
 * An engine that checks devices on 127.0.0.1 (every name answers loopback, no DNSBL zone answers)
 * and calls a device down at its first failure: what the channel tests drive with their clock.
 */
export function loopbackEngine(
  options: Pick<MonitoringEngineOptions, 'store' | 'clock'> & Partial<MonitoringEngineOptions>,
): MonitoringEngine {
  return createMonitoringEngine({
    resolver: { resolve4: async () => [] },
    lookup: LOOPBACK,
    allowPrivateTargets: true,
    failuresBeforeDown: 1,
    ...options,
  });
}

/** What a channel test on a real engine stands on (`openChannelScene`). */
export interface ChannelScene {
  store: Store;
  userId: number;
  ssh: Awaited<ReturnType<typeof startSwitchableSsh>>;
  slack: FakeService;
  pagerduty: FakeService;
  /** Stops the servers and removes the store. */
  close(): Promise<void>;
}

/**
 * A store of `factory`'s kind (the memory store on `clock`), a user created at the clock's time,
 * an SSH server that can be switched off, and the Slack and PagerDuty fakes.
 */
export async function openChannelScene(factory: StoreFactory, clock: ManualClock): Promise<ChannelScene> {
  const opened: OpenedStore =
    factory.name === 'memory' ? { store: new MemoryStore({ clock }), cleanup: async () => {} } : await factory.open();
  const { store } = opened;
  const userId = (await store.createUser({ name: null, created_at: new Date(clock.now()).toISOString() })).id;
  const [ssh, slack, pagerduty] = await Promise.all([startSwitchableSsh(), startFakeSlack(), startFakePagerDuty()]);
  return {
    store,
    userId,
    ssh,
    slack,
    pagerduty,
    async close() {
      await Promise.all([ssh.close(), slack.close(), pagerduty.close()]);
      await opened.cleanup();
    },
  };
}
