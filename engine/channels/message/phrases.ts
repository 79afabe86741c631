/**
 * The phrases a message's title counts its items by (docs/notifications.md, "Grouping"): `200
 * devices down`, `3 heartbeats down, escalated`. Singular and plural.
 */
import type { RecordKind } from './describe-record.ts';

/** The title's phrase for each sort of item: singular and plural. */
export type Phrase = readonly [string, string];

/** What an event says happened, by its type. */
export function eventPhrase(type: string, kind: RecordKind): Phrase {
  const device = kind === 'device';
  switch (type) {
    case 'device.down':
      return ['device down', 'devices down'];
    case 'device.up':
      return ['device up again', 'devices up again'];
    case 'heartbeat.down':
      return ['heartbeat down', 'heartbeats down'];
    case 'heartbeat.up':
      return ['heartbeat up again', 'heartbeats up again'];
    case 'blacklist.listed':
      return ['target blacklisted', 'targets blacklisted'];
    case 'blacklist.delisted':
      return ['target delisted', 'targets delisted'];
    case 'device.tls_expiring':
      return ['TLS certificate expiring', 'TLS certificates expiring'];
    case 'device.location_failing':
      return ['device failing from a location', 'devices failing from a location'];
    case 'device.maintenance_started':
      return ['device in maintenance', 'devices in maintenance'];
    case 'device.maintenance_ended':
      return ['device out of maintenance', 'devices out of maintenance'];
    default:
      if (type.endsWith('.paused'))
        return device ? ['device paused', 'devices paused'] : ['monitor paused', 'monitors paused'];
      if (type.endsWith('.resumed')) {
        return device ? ['device resumed', 'devices resumed'] : ['monitor resumed', 'monitors resumed'];
      }
      return ['event', 'events'];
  }
}

/** A reminder's phrase: the incident is still open. */
export function stillPhrase(kind: RecordKind): Phrase {
  if (kind === 'device') return ['device still down', 'devices still down'];
  if (kind === 'heartbeat') return ['heartbeat still down', 'heartbeats still down'];
  return ['target still listed', 'targets still listed'];
}

/** An escalation's phrase: the incident has been open unacknowledged for the channel's delay. */
export function escalatedPhrase(kind: RecordKind): Phrase {
  if (kind === 'device') return ['device down, escalated', 'devices down, escalated'];
  if (kind === 'heartbeat') return ['heartbeat down, escalated', 'heartbeats down, escalated'];
  return ['target listed, escalated', 'targets listed, escalated'];
}
