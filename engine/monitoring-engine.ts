import { boundedLogger } from './bounded-logger.ts';
import { channelMessages } from './channels/channel-service.ts';
import { PolicyRefusals } from './devices/policy-refusals.ts';
import { heartbeatKind } from './heartbeats/late-heartbeat.ts';
import { blacklistKind, deviceKind, hasLocationChecks, locationKind } from './kinds.ts';
import { syncMaintenance } from './maintenance/maintenance-sync.ts';
import { contextTrusting } from './net/trusted-context.ts';
import { resolveEngineOptions, type MonitoringEngineOptions } from './options.ts';
import { outbound } from './outbound.ts';
import { heartbeat } from './periodic/heartbeat.ts';
import { retentionSweep } from './periodic/retention.ts';
import { rollups } from './periodic/rollups.ts';
import { CheckSummary } from './scheduler/check-summary.ts';
import { claimLoop } from './scheduler/claim-loop.ts';
import { KindRunner, type Runner, type RunnerSettings } from './scheduler/kind-runner.ts';
import { Slots } from './scheduler/slots.ts';
import { summaryLine } from './scheduler/summary-line.ts';
import type { EngineService } from './service.ts';
import { createWebhookDispatcher } from './webhooks/dispatcher.ts';

export interface MonitoringEngine {
  /** Checks what is due, again and again, until `stop()`. Calling it while started does nothing. */
  start(): void;
  /** Stops claiming, lets the checks in flight finish and writes them; resolves when done. */
  stop(): Promise<void>;
  /**
   * Claims and checks everything due now, writes it, rolls up finished hours, prunes old results
   * and report rows; resolves when done.
   */
  runOnce(): Promise<EngineRunSummary>;
}

/** What one `runOnce()` did. */
export interface EngineRunSummary {
  claimed: number;
  /** Checks written. */
  written: number;
  /** Checks the store refused because their lease had been taken away (disabled, deleted, expired). */
  fenced: number;
  /** Checks lost to a failed write or a check that threw; their records are checked again later. */
  failed: number;
  /** Old results deleted. */
  pruned: number;
}

/**
 * The monitoring engine (docs/engine.md, "The monitoring engine"): workers that claim due
 * records under a lease, check them with bounded concurrency and record the outcomes in batches.
 * It only wires its services (service.ts): the claim loop, the webhook dispatcher, the heartbeat
 * and the periodic jobs of `periodic/`.
 */
export function createMonitoringEngine(options: MonitoringEngineOptions): MonitoringEngine {
  const resolved = resolveEngineOptions(options);
  const { clock, store } = resolved;
  const logger = boundedLogger(resolved.logger, clock);
  const slots = new Slots(resolved.concurrency);
  const tally: RunnerSettings['tally'] = { claimed: 0, written: 0, fenced: 0, failed: 0, crashed: 0 };
  const summary = new CheckSummary(clock.now());
  const settings: RunnerSettings = {
    owner: resolved.workerId,
    clock,
    leaseMs: resolved.leaseMs,
    writeBatchSize: resolved.writeBatchSize,
    writeDelayMs: resolved.writeDelayMs,
    slots,
    logger,
    tally,
    summary,
    metrics: resolved.metrics,
  };
  const { health, dnsbl, connector, probeConnector } = outbound(resolved, logger);
  const refusals = new PolicyRefusals(logger, resolved.allowPrivateTargets);
  const runners: Runner[] = [
    new KindRunner(blacklistKind(resolved, dnsbl), settings),
    new KindRunner(deviceKind(resolved, resolved.deviceCheck, probeConnector, refusals), settings),
  ];
  // Devices with check_locations, on a store that schedules them per location.
  if (hasLocationChecks(store))
    runners.push(new KindRunner(locationKind(resolved, store, probeConnector, refusals), settings));
  // Heartbeats past their deadline (docs/heartbeats.md, "Lateness"), on a store that keeps them.
  const { claimLateHeartbeats, recordLateHeartbeats } = store;
  if (claimLateHeartbeats !== undefined && recordLateHeartbeats !== undefined) {
    const heartbeats = {
      claimLateHeartbeats: claimLateHeartbeats.bind(store),
      recordLateHeartbeats: recordLateHeartbeats.bind(store),
    };
    runners.push(new KindRunner(heartbeatKind(heartbeats, clock), settings));
  }
  resolved.metrics.gauges?.({
    checksInFlight: () => slots.used,
    leasesHeld: (kind) => runners.reduce((sum, runner) => sum + (runner.kind === kind ? runner.held : 0), 0),
    resolverUp: () => !health.down,
  });

  const summarize = summaryLine(summary, logger, resolved.workerId);
  // Before the claims, so a device whose window began is claimed in maintenance.
  const beforeClaims = (nowMs: number) => syncMaintenance(store, nowMs);
  const claims = claimLoop({ resolved, runners, slots, logger, beforeClaims, everyTurn: summarize });
  const beat = heartbeat(resolved, logger);
  // Deliveries run in their own loop with their own bound, so a slow endpoint never holds a check.
  const webhooks: EngineService = {
    name: 'webhook deliveries',
    ...createWebhookDispatcher({
      store,
      connector,
      clock,
      logger,
      workerId: resolved.workerId,
      pollIntervalMs: resolved.pollIntervalMs,
      ...(resolved.metrics.delivery === undefined ? {} : { observe: resolved.metrics.delivery.bind(resolved.metrics) }),
      ...(resolved.trustedCa.length > 0 ? { tls: { secureContext: contextTrusting(resolved.trustedCa) } } : {}),
    }),
  };
  const retention = retentionSweep(resolved, logger);
  // The periodic jobs, each a file of periodic/: a new one is one line here (service.ts).
  const jobs: EngineService[] = [retention, rollups(resolved, logger)];
  // Channels' messages, beside the webhooks and as they are: their own loop and bound. First in
  // runOnce(), so a channel.disabled event they write reaches the webhooks in the same run.
  const channels = channelMessages(resolved, logger);
  const deliveries = channels === undefined ? [webhooks] : [channels, webhooks];
  const services = [...jobs, claims, beat, ...deliveries];

  let started = false;
  return {
    start() {
      if (started) return;
      started = true;
      for (const service of services) service.start();
    },

    async stop() {
      if (!started) return;
      await Promise.all(services.map((service) => service.stop()));
      logger.close();
      started = false;
    },

    async runOnce() {
      if (started) throw new Error('runOnce() cannot run while the engine is started');
      const before = { ...tally, pruned: retention.deletedResults };
      await beat.runOnce(clock.now());
      const now = clock.now();
      const upkeep = Promise.all(jobs.map((job) => job.runOnce(now)));
      await claims.runOnce(now);
      // After the checks, so the events they wrote are delivered in the same run.
      for (const service of deliveries) await service.runOnce(now);
      summarize(clock.now());
      await upkeep;
      return {
        claimed: tally.claimed - before.claimed,
        written: tally.written - before.written,
        fenced: tally.fenced - before.fenced,
        failed: tally.failed - before.failed + tally.crashed - before.crashed,
        pruned: retention.deletedResults - before.pruned,
      };
    },
  };
}
