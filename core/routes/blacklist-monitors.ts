import type { BlacklistMonitor, NewBlacklistMonitor } from '../records/index.ts';
import {
  blacklistMonitorHints,
  blacklistMonitorSchema,
  parseBlacklistMonitorInput,
} from '../validation/blacklist-monitor-input.ts';
import { parsePatch } from '../validation/patch-input.ts';
import { changedFields, changeEvents, effectOf, type ChangeRules } from './record-change.ts';
import { refuseForeignChannels } from './channel-ids.ts';
import { resourceRoutes } from './resource-routes.ts';

const FIELDS = Object.keys(blacklistMonitorSchema.entries);

const RULES: ChangeRules = {
  unchecked: new Set(['is_enabled', 'check_interval_s', 'name', 'channel_ids']),
  events: { paused: 'blacklist_monitor.paused', resumed: 'blacklist_monitor.resumed' },
};

/**
 * GET /blacklist-monitors, POST .../create, GET .../get, PATCH .../update, DELETE .../delete
 * (docs/contract.md §6.2-§6.4 and "Changing a record").
 */
export const blacklistMonitorRoutes = resourceRoutes<BlacklistMonitor, NewBlacklistMonitor>({
  parse: parseBlacklistMonitorInput,
  list: (store, userId, page) => store.listBlacklistMonitors(userId, page),
  create: (store, userId, monitor) => store.createBlacklistMonitor(userId, monitor),
  remove: (store, userId, id) => store.deleteBlacklistMonitor(userId, id),
  get: (store, userId, id) => store.getBlacklistMonitor(userId, id),
  prepare(from, body, options, at) {
    const to = parsePatch<BlacklistMonitor, NewBlacklistMonitor>(
      {
        schema: blacklistMonitorSchema,
        hints: blacklistMonitorHints,
        parse: (input) => parseBlacklistMonitorInput(input, options, from.created_at),
      },
      from,
      body,
    );
    const changed = changedFields(from, to, FIELDS);
    if (changed.length === 0) return { change: null };
    const effect = effectOf(RULES, from, to, changed);
    const events = changeEvents(RULES, from, { to, fields: FIELDS }, effect, at);
    return { change: { to, fields: FIELDS, effect, at, events } };
  },
  refuse: refuseForeignChannels,
  update: (store, userId, id, change) => store.updateBlacklistMonitor(userId, id, change),
  duplicate: 'duplicate_blacklist_monitor',
  kind: 'blacklist_monitor',
  notFound: 'blacklist_monitor_not_found',
});
