import * as v from 'valibot';
import type { NewBlacklistMonitor } from '../records.ts';
import { normalizeTarget } from '../targets/normalize-target.ts';
import { detail, type FieldHints } from './details.ts';
import { flag, integer, oneOf, optional, text } from './field-schemas.ts';
import { failIfAny, parseFields } from './parse-fields.ts';
import type { TargetOptions } from './device-input.ts';

export const blacklistMonitorSchema = v.object(
  {
    target_type: oneOf(['domain', 'ip'] as const),
    target_value: text(253),
    is_enabled: optional(flag()),
    check_interval_s: optional(integer(300, 86400)),
  },
  'invalid_type',
);

export const blacklistMonitorHints: FieldHints = {
  target_type: "'domain' or 'ip'",
  target_value: 'a public domain name or IP address of at most 253 characters',
  is_enabled: 'true, false, 0 or 1',
  check_interval_s: 'an integer from 300 to 86400 (seconds)',
};

/** A create-monitor body as the record to store, or a 400 listing every problem. */
export function parseBlacklistMonitorInput(
  input: Record<string, unknown>,
  options: TargetOptions,
  createdAt: string,
): NewBlacklistMonitor {
  const { fields: f, details } = parseFields(blacklistMonitorSchema, input, blacklistMonitorHints);
  let targetValue = '';
  if (f.target_type != null && f.target_value != null) {
    const target = normalizeTarget(f.target_type, f.target_value, options);
    if ('problem' in target) details.push(detail('target_value', target.problem, blacklistMonitorHints));
    else targetValue = target.value;
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
  };
}
