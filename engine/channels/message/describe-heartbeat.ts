/**
 * What a message says of a heartbeat (docs/notifications.md, "Messages"): what it waits for, and
 * why it is down: the deadline it missed, the failure or exit status the job reported, the run
 * that took too long or ended too soon, and the start of the last ping's body.
 */
import type { Heartbeat, HeartbeatEventFields } from '../../../core/internal.ts';
import { formatDuration, formatTime, oneLine } from './text.ts';

/** A heartbeat as an event carries it; the event's fields read defensively (an older event lacks some). */
export type HeartbeatData = Heartbeat & Partial<HeartbeatEventFields>;

/** A heartbeat's event data: only heartbeats have a grace period. */
export function isHeartbeatData(data: object): boolean {
  return 'grace_s' in data && 'status_since' in data;
}

/** What it waits for: `every 1 h`, `cron 0 3 * * * Europe/Berlin`. */
export function heartbeatSchedule(heartbeat: HeartbeatData): string {
  if (heartbeat.schedule !== null) return `cron ${heartbeat.schedule} ${heartbeat.time_zone}`;
  return `every ${formatDuration((heartbeat.period_s ?? 0) * 1000)}`;
}

/** A heartbeat without a name: `heartbeat 12 (every 1 h)`. */
export function heartbeatTarget(heartbeat: HeartbeatData): string {
  return `heartbeat ${heartbeat.id} (${heartbeatSchedule(heartbeat)})`;
}

/** What the heartbeat is: down, and the cause in a few words after it. */
export function heartbeatDownWhat(heartbeat: HeartbeatData): string {
  switch (heartbeat.cause) {
    case 'late':
      return 'is down (no ping by its deadline)';
    case 'failed':
      return 'is down (the job reported a failure)';
    case 'exit_status':
      return typeof heartbeat.exit_status === 'number'
        ? `is down (the job exited with status ${heartbeat.exit_status})`
        : 'is down (the job exited with a non-zero status)';
    case 'ran_too_long':
      return 'is down (its run did not end in time)';
    case 'ran_too_short':
      return 'is down (its run ended too soon)';
    default:
      return 'is down';
  }
}

/**
 * Why it is down, as lines of text: the cause with its figures, when it last pinged, and the start
 * of the last ping's body (control characters as spaces; each kind escapes the text its way).
 */
export function heartbeatWhy(heartbeat: HeartbeatData): string[] {
  const lines: string[] = [];
  const grace = formatDuration(heartbeat.grace_s * 1000);
  const lastPing = heartbeat.last_ping_at === null ? null : formatTime(heartbeat.last_ping_at);
  switch (heartbeat.cause) {
    case 'late':
      lines.push(
        `expected ${heartbeatSchedule(heartbeat)} with ${grace} of grace; nothing by ${formatTime(heartbeat.status_since)}`,
      );
      break;
    case 'failed':
      lines.push(`the job pinged /fail${lastPing === null ? '' : ` at ${lastPing}`}`);
      break;
    case 'exit_status':
      lines.push(
        `the job reported exit status ${typeof heartbeat.exit_status === 'number' ? heartbeat.exit_status : '(non-zero)'}${lastPing === null ? '' : ` at ${lastPing}`}`,
      );
      break;
    case 'ran_too_long': {
      const limit = formatDuration((heartbeat.max_runtime_s ?? heartbeat.grace_s) * 1000);
      lines.push(`a run started with /start did not end within ${limit}, by ${formatTime(heartbeat.status_since)}`);
      break;
    }
    case 'ran_too_short': {
      const took = heartbeat.last_duration_ms === null ? 'less' : formatDuration(heartbeat.last_duration_ms);
      const least = formatDuration((heartbeat.min_runtime_s ?? 0) * 1000);
      lines.push(`its run took ${took}, shorter than its minimum of ${least}`);
      break;
    }
    default:
      break;
  }
  // A failure's line says when it came already.
  const reported = heartbeat.cause === 'failed' || heartbeat.cause === 'exit_status';
  if (lastPing !== null && !reported) lines.push(`last ping at ${lastPing}`);
  const body = heartbeat.last_ping_body;
  if (typeof body === 'string' && body.trim() !== '') lines.push(`last ping's body: ${oneLine(body).trim()}`);
  return lines;
}
