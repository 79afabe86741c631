/**
 * Every migration the package ships, in the order they apply: the store tests assert what a
 * migration run applied against this list (or the part of it after a starting point), so a new
 * migration is one line here.
 */
export const MIGRATION_NAMES: readonly string[] = [
  '0001_initial',
  '0002_safe_ids',
  '0003_engine',
  '0004_webhooks',
  '0005_change_marker',
  '0006_manage',
  '0007_operations',
  '0008_dnsbl_listings',
  '0010_locations',
  '0011_reports',
  '0012_timeline_totals',
  '0013_recheck_state',
  '0014_channels',
  '0015_heartbeats',
  '0016_status_pages',
  '0017_notifications',
  '0018_acknowledgements',
  '0019_heartbeat_channels',
  '0020_record_changes',
  '0021_notification_reach',
];

/** The migrations from `first` on, as a database migrated up to the one before it applies them. */
export function migrationsFrom(first: string): string[] {
  return MIGRATION_NAMES.slice(MIGRATION_NAMES.indexOf(first));
}
