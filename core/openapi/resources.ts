/**
 * The resources whose create, list, get, update and delete routes the OpenAPI document describes
 * alike (operations.ts drafts them): their names, tags and the errors of their own.
 */
import type { ApiError } from '../http/api-error.ts';
import { errors } from '../http/errors.ts';

export interface Resource {
  /** Path segment, e.g. `devices`. */
  path: string;
  /** Name in operation ids and schema names, e.g. `Device`. */
  name: string;
  plural: string;
  /** Human noun, e.g. `device`. */
  noun: string;
  tag: string;
  notFound: ApiError;
  /** Absent for a resource without duplicates. */
  duplicate?: ApiError;
  /** The create answer's envelope when it differs from `${name}Envelope`. */
  createdEnvelope?: string;
  /** Whether the engine checks it, so it has a results route. */
  checked?: boolean;
  /** The 400s its create and update may answer besides the input's form and fields. */
  refusals?: ApiError[];
}

export const RESOURCES: Resource[] = [
  {
    path: 'devices',
    name: 'Device',
    plural: 'Devices',
    noun: 'device',
    tag: 'devices',
    notFound: errors.notFound('device_not_found'),
    duplicate: errors.duplicate('duplicate_device', 42),
    checked: true,
  },
  {
    path: 'blacklist-monitors',
    name: 'BlacklistMonitor',
    plural: 'BlacklistMonitors',
    noun: 'blacklist monitor',
    tag: 'blacklist-monitors',
    notFound: errors.notFound('blacklist_monitor_not_found'),
    duplicate: errors.duplicate('duplicate_blacklist_monitor', 42),
    checked: true,
  },
  {
    path: 'maintenance-windows',
    name: 'MaintenanceWindow',
    plural: 'MaintenanceWindows',
    noun: 'maintenance window',
    tag: 'maintenance-windows',
    notFound: errors.notFound('maintenance_window_not_found'),
  },
  {
    path: 'heartbeats',
    name: 'Heartbeat',
    plural: 'Heartbeats',
    noun: 'heartbeat',
    tag: 'heartbeats',
    notFound: errors.notFound('heartbeat_not_found'),
  },
  {
    path: 'webhooks',
    name: 'Webhook',
    plural: 'Webhooks',
    noun: 'webhook',
    tag: 'webhooks',
    notFound: errors.notFound('webhook_not_found'),
    duplicate: errors.duplicate('duplicate_webhook', 42),
    createdEnvelope: 'CreatedWebhookEnvelope',
  },
  {
    path: 'channels',
    name: 'Channel',
    plural: 'Channels',
    noun: 'channel',
    tag: 'channels',
    notFound: errors.notFound('channel_not_found'),
    refusals: [errors.emailUnavailable()],
  },
];
