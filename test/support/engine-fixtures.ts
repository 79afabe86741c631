/**
 * What the engine suites share: the memory store, watched as it records (the events it keeps
 * have no reader of their own yet), and records made the way a create makes them.
 */
import {
  MemoryStore,
  type BlacklistCheckOutcome,
  type BlacklistMonitor,
  type DeviceCheckOutcome,
  type NewDevice,
  type NewMonitoringEvent,
  type RecordedCheck,
  type Store,
  type TargetType,
} from '../../core/index.ts';
import { newDevice, newMonitor } from './records.ts';

/** The memory store, keeping the events of every check it wrote and counting its writes. */
export class WatchedStore extends MemoryStore {
  readonly events: NewMonitoringEvent[] = [];
  /** The size of each recordBlacklistChecks call, in order. */
  readonly blacklistWrites: number[] = [];

  override async recordBlacklistChecks(checks: readonly RecordedCheck<BlacklistCheckOutcome>[]): Promise<boolean[]> {
    this.blacklistWrites.push(checks.length);
    const written = await super.recordBlacklistChecks(checks);
    checks.forEach((check, i) => written[i] && this.events.push(...check.outcome.events));
    return written;
  }

  override async recordDeviceChecks(checks: readonly RecordedCheck<DeviceCheckOutcome>[]): Promise<boolean[]> {
    const written = await super.recordDeviceChecks(checks);
    checks.forEach((check, i) => written[i] && this.events.push(...check.outcome.events));
    return written;
  }
}

export async function addMonitor(
  store: Store,
  userId: number,
  target: string,
  at: string,
  fields: {
    target_type?: TargetType;
    check_interval_s?: number;
    is_enabled?: boolean;
    zones?: string[] | null;
    count_policy_listings?: boolean;
  } = {},
): Promise<BlacklistMonitor> {
  const created = await store.createBlacklistMonitor(
    userId,
    newMonitor({
      target_type: fields.target_type ?? (target.includes(':') || /^[0-9.]+$/.test(target) ? 'ip' : 'domain'),
      target_value: target,
      is_enabled: fields.is_enabled ?? true,
      created_at: at,
      check_interval_s: fields.check_interval_s ?? 3600,
      zones: fields.zones ?? null,
      count_policy_listings: fields.count_policy_listings ?? false,
    }),
  );
  if (!('created' in created)) throw new Error(`duplicate monitor ${target}`);
  return created.created;
}

export async function addDevice(
  store: MemoryStore,
  userId: number,
  target: string,
  at: string,
  service: Partial<Pick<NewDevice, 'service_type' | 'port'>> = {},
): Promise<number> {
  const device = newDevice({
    target_value: target,
    service_type: service.service_type ?? 'ssh',
    port: service.port ?? 22,
    created_at: at,
  });
  const created = await store.createDevice(userId, device);
  if (!('created' in created)) throw new Error(`duplicate device ${target}`);
  return created.created.id;
}

/** The one monitor of a user, as the API would list it now. */
export async function monitorOf(store: Store, userId: number, id: number): Promise<BlacklistMonitor> {
  const found = (await store.listBlacklistMonitors(userId, { afterId: 0, limit: 1000 })).find((m) => m.id === id);
  if (found === undefined) throw new Error(`no monitor ${id}`);
  return found;
}

/** A logger that keeps what it is told, for asserting on what an operator would read. */
export function keepingLogger(): {
  lines: { level: 'debug' | 'info' | 'warn' | 'error'; message: string; fields?: Record<string, unknown> }[];
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, error: unknown): void;
} {
  const lines: { level: 'debug' | 'info' | 'warn' | 'error'; message: string; fields?: Record<string, unknown> }[] = [];
  return {
    lines,
    debug: (message, fields) => void lines.push({ level: 'debug', message, fields }),
    info: (message, fields) => void lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => void lines.push({ level: 'warn', message, fields }),
    error: (message, error) => void lines.push({ level: 'error', message, fields: { error: String(error) } }),
  };
}
