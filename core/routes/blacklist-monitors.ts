import { parseBlacklistMonitorInput } from '../validation/blacklist-monitor-input.ts';
import { resourceRoutes } from './resource-routes.ts';

/**
 * GET /blacklist-monitors, POST /blacklist-monitors/create, DELETE /blacklist-monitors/delete (docs/contract.md
 * §6.2-§6.4).
 */
export const blacklistMonitorRoutes = resourceRoutes({
  parse: parseBlacklistMonitorInput,
  list: (store, userId, page) => store.listBlacklistMonitors(userId, page),
  create: (store, userId, monitor) => store.createBlacklistMonitor(userId, monitor),
  remove: (store, userId, id) => store.deleteBlacklistMonitor(userId, id),
  duplicate: 'duplicate_blacklist_monitor',
  notFound: 'blacklist_monitor_not_found',
});
