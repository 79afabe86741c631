/**
 * The records the API stores and returns, one file a resource. Field names are the wire names of
 * docs/contract.md §6 and §7, so a record can be serialised as it is.
 */
export * from './common.ts';
export * from './access.ts';
export * from './devices.ts';
export * from './blacklist-monitors.ts';
export * from './check-results.ts';
export * from './event-types.ts';
export * from './events.ts';
export * from './webhooks.ts';
export * from './channels.ts';
export * from './maintenance-windows.ts';
export * from './workers.ts';
export * from './status-pages.ts';
export * from './heartbeats.ts';
