import * as v from 'valibot';
import type { DnsblZoneLists } from '../dnsbl/zones.ts';
import type { ErrorDetail } from '../http/api-error.ts';
import type { NewBlacklistMonitor } from '../records/index.ts';
import { normalizeTarget } from '../targets/normalize-target.ts';
import { detail, type FieldHints } from './details.ts';
import { flag, integer, oneOf, optional, text } from './field-schemas.ts';
import { notifyEntries, notifyFields, notifyHints } from './notify-fields.ts';
import { failIfAny, parseFields } from './parse-fields.ts';
import type { TargetOptions } from './device-input.ts';

export const blacklistMonitorSchema = v.object(
  {
    target_type: oneOf(['domain', 'ip'] as const),
    target_value: text(253),
    is_enabled: optional(flag()),
    check_interval_s: optional(integer(300, 86400)),
    zones: optional(
      v.pipe(v.array(text(253), 'invalid_type'), v.minLength(1, 'invalid_value'), v.maxLength(100, 'invalid_value')),
    ),
    count_policy_listings: optional(flag()),
    ...notifyEntries,
  },
  'invalid_type',
);

export const blacklistMonitorHints: FieldHints = {
  target_type: "'domain' or 'ip'",
  target_value: 'a public domain name or IP address of at most 253 characters',
  is_enabled: 'true, false, 0 or 1',
  check_interval_s: 'an integer from 300 to 86400 (seconds)',
  zones: "a non-empty array of the installation's DNSBL zone names for the target's type",
  count_policy_listings: 'true, false, 0 or 1',
  ...notifyHints,
};

/** What a monitor's create is judged against besides the target policy. */
export interface BlacklistMonitorOptions extends TargetOptions {
  /** The zones the operator configured: a monitor's `zones` must be among those of its target type. */
  dnsblZones: DnsblZoneLists;
}

/**
 * The zones a create names, lower-cased, without repeats and sorted, or the detail naming the
 * first that this installation does not ask for the target's type.
 */
function chosenZones(
  names: readonly string[],
  configured: readonly string[],
  targetType: 'domain' | 'ip',
): string[] | ErrorDetail {
  const known = new Set(configured);
  const chosen = new Set<string>();
  for (const name of names) {
    const zone = name.trim().toLowerCase().replace(/\.$/, '');
    if (!known.has(zone)) {
      const kind = targetType === 'ip' ? 'IP' : 'domain';
      return {
        field: 'zones',
        code: 'invalid_value',
        message:
          `zones names ${JSON.stringify(name)}, which is not one of this installation's DNSBL zones ` +
          `for ${kind} targets (${configured.join(', ') || 'none'}).`,
      };
    }
    chosen.add(zone);
  }
  return [...chosen].sort();
}

/** A create-monitor body as the record to store, or a 400 listing every problem. */
export function parseBlacklistMonitorInput(
  input: Record<string, unknown>,
  options: BlacklistMonitorOptions,
  createdAt: string,
): NewBlacklistMonitor {
  const { fields: f, details } = parseFields(blacklistMonitorSchema, input, blacklistMonitorHints);
  let targetValue = '';
  if (f.target_type != null && f.target_value != null) {
    const target = normalizeTarget(f.target_type, f.target_value, options);
    if ('problem' in target) details.push(detail('target_value', target.problem, blacklistMonitorHints));
    else targetValue = target.value;
  }
  let zones: string[] | null = null;
  if (f.zones != null && f.target_type != null) {
    const chosen = chosenZones(f.zones, options.dnsblZones[f.target_type], f.target_type);
    if (Array.isArray(chosen)) zones = chosen;
    else details.push(chosen);
  }
  failIfAny(details);
  return {
    target_type: f.target_type!,
    target_value: targetValue,
    is_enabled: f.is_enabled ?? true,
    last_status: null,
    last_checked_at: null,
    listed_on: [],
    created_at: createdAt,
    check_interval_s: f.check_interval_s ?? 3600,
    failed_zones: [],
    zones,
    count_policy_listings: f.count_policy_listings ?? false,
    listings: [],
    rdns: null,
    ...notifyFields(f),
  };
}
