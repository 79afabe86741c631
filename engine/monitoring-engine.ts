import { boundedLogger } from './bounded-logger.ts';
import { PolicyRefusals } from './devices/policy-refusals.ts';
import { createDnsblResolver } from './dnsbl/resolver.ts';
import { DnsHealth } from './dnsbl/dns-health.ts';
import { blacklistKind, deviceKind, hasLocationChecks, locationKind } from './kinds.ts';
import { createGuardedConnector } from './net/guarded-connector.ts';
import { createCanaryResolver, ResolverCanary } from './net/resolver-canary.ts';
import { systemLookup } from './net/system-lookup.ts';
import { contextTrusting } from './net/trusted-context.ts';
import { resolveEngineOptions, type MonitoringEngineOptions } from './options.ts';
import { CheckSummary } from './scheduler/check-summary.ts';
import { KindRunner, type Runner, type RunnerSettings } from './scheduler/kind-runner.ts';
import { pruneResults, pruneWebhookAttempts } from './scheduler/retention.ts';
import { pruneReports, rollUpHours, rollupGraceMs, ROLLUP_INTERVAL_MS } from './scheduler/report-upkeep.ts';
import { Slots } from './scheduler/slots.ts';
import { createWebhookDispatcher } from './webhooks/dispatcher.ts';
import { createHeartbeat } from './scheduler/heartbeat.ts';
import { syncMaintenance } from './maintenance/maintenance-sync.ts';

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

/** How often a worker writes its summary line (docs/operations.md, "Logs"). */
const SUMMARY_INTERVAL_MS = 60_000;

/** Finished checks waiting to be written, per write batch, beyond which claiming waits. */
const UNWRITTEN_BATCHES = 4;

/**
 * The monitoring engine (docs/engine.md, "The monitoring engine"): workers that claim due
 * records under a lease, check them with bounded concurrency and record the outcomes in batches.
 */
export function createMonitoringEngine(options: MonitoringEngineOptions): MonitoringEngine {
  const resolved = resolveEngineOptions(options);
  const { clock } = resolved;
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
  /** One info line per minute per worker: what it checked, what failed, how late it started checks. */
  const summarize = (nowMs: number) => {
    if (nowMs - summary.since < SUMMARY_INTERVAL_MS) return;
    const line = summary.take(nowMs);
    const said = `${line.failed} found failing, ${line.ours} failed on this worker's side, ${line.lost} lost`;
    logger.info?.(`checked ${line.checks} records in ${line.period_s} s: ${said}`, {
      worker_id: resolved.workerId,
      ...line,
    });
  };

  const defaultResolver =
    resolved.resolver === undefined ? createDnsblResolver(resolved.dnsServers, resolved.dnsTimeoutMs) : undefined;
  const servers =
    resolved.dnsServers.length > 0 ? resolved.dnsServers : (defaultResolver?.getServers() ?? ['(injected resolver)']);
  // One view of the resolver for DNSBL lookups and device name lookups alike.
  const health = new DnsHealth(servers.join(', '), logger, clock);
  // The canary asks the servers the engine's own lookups go to, so it serves only those: a lookup
  // or resolver of a host's own is asked nothing else (and a test's never reaches a real server).
  const canary =
    resolved.lookup === undefined || resolved.resolver === undefined
      ? new ResolverCanary(createCanaryResolver(resolved.dnsServers, resolved.dnsTimeoutMs), health)
      : undefined;
  const dnsbl = {
    resolver: resolved.resolver ?? defaultResolver!,
    health,
    ...(resolved.resolver === undefined ? { canary } : {}),
    retryDelayS: resolved.retryDelayS,
    clock,
    zones: { ip: resolved.dnsblZones, domain: resolved.dnsblDomainZones },
    zoneInfo: resolved.dnsblZoneInfo,
    dnsTimeoutMs: resolved.dnsTimeoutMs,
    queriesPerCheck: resolved.dnsQueriesPerCheck,
    random: resolved.random,
  };
  const connectorOptions = {
    lookup: resolved.lookup ?? systemLookup(resolved.dnsServers, resolved.dnsTimeoutMs),
    allowPrivateTargets: resolved.allowPrivateTargets,
    lookupTimeoutMs: resolved.dnsTimeoutMs,
    resolverHealth: health,
    ...(resolved.lookup === undefined ? { resolverCanary: canary } : {}),
  };
  const connector = createGuardedConnector(connectorOptions);
  // Probes leave from the location's own address when told; webhooks go out as the host routes them.
  const probeConnector =
    resolved.probeSourceAddress === undefined
      ? connector
      : createGuardedConnector({ ...connectorOptions, localAddress: resolved.probeSourceAddress });
  const heartbeat = createHeartbeat(resolved, logger);
  // Deliveries run in their own loop with their own bound, so a slow endpoint never holds a check.
  const webhooks = createWebhookDispatcher({
    store: resolved.store,
    connector,
    clock,
    logger,
    workerId: resolved.workerId,
    pollIntervalMs: resolved.pollIntervalMs,
    ...(resolved.metrics.delivery === undefined ? {} : { observe: resolved.metrics.delivery.bind(resolved.metrics) }),
    ...(resolved.trustedCa.length > 0 ? { tls: { secureContext: contextTrusting(resolved.trustedCa) } } : {}),
  });
  const refusals = new PolicyRefusals(logger, resolved.allowPrivateTargets);
  const runners: Runner[] = [
    new KindRunner(blacklistKind(resolved, dnsbl), settings),
    new KindRunner(deviceKind(resolved, resolved.deviceCheck, probeConnector, refusals), settings),
  ];
  // Devices with check_locations, on a store that schedules them per location.
  const store = resolved.store;
  if (hasLocationChecks(store))
    runners.push(new KindRunner(locationKind(resolved, store, probeConnector, refusals), settings));

  resolved.metrics.gauges?.({
    checksInFlight: () => slots.used,
    leasesHeld: (kind) => runners.reduce((sum, runner) => sum + (runner.kind === kind ? runner.held : 0), 0),
    resolverUp: () => !health.down,
  });

  const maxUnwritten = UNWRITTEN_BATCHES * resolved.writeBatchSize;
  // A claim waits until a quarter of the slots (or a batch) is open: claiming one record each time
  // one check ends would cost a store round trip per check. The worker claims that much ahead of
  // its free slots, so that the checks claimed last wait for a slot while the next claim is out
  // and the slots stay full (docs/engine.md, "Scheduling").
  const claimAtFree = Math.max(1, Math.min(resolved.batchSize, Math.ceil(resolved.concurrency / 4)));
  const open = () => slots.free + claimAtFree - slots.queued;
  const hasRoom = (runner: { unwritten: number }) => open() >= claimAtFree && runner.unwritten < maxUnwritten;
  // The checks just started run up to their first wait before the next claim is sized: those that
  // need no I/O (a refused target, an injected resolver) end there, and the claim then fills the
  // slots they freed instead of going out for the quarter claimed ahead alone.
  const checksStarted = () => new Promise<void>((resolve) => setImmediate(resolve));

  let started = false;
  let stopping = false;
  let looping: Promise<void> | undefined;
  let wakeSleep: (() => void) | undefined;
  let lastSweepMs = Number.NEGATIVE_INFINITY;
  let sweeping: Promise<unknown> | undefined;

  /** Runs one expiry, logging what it deleted, or its failure (the next sweep tries again). */
  const expire = (what: string, hours: number, prune: (stop: () => boolean) => Promise<number>) =>
    prune(() => stopping).then(
      (deleted) => {
        if (deleted > 0) logger.info?.(`deleted ${deleted} ${what} older than ${hours} hours`, { deleted });
        return deleted;
      },
      (error: unknown) => {
        logger.error?.(`deleting old ${what} failed; the next sweep tries again`, error);
        return 0;
      },
    );

  // Webhook attempts follow the result retention: they report on deliveries as results on checks.
  const sweep = async (nowMs: number): Promise<{ results: number; reports: number }> => {
    lastSweepMs = nowMs;
    const {
      store,
      resultRetentionHours: hours,
      reportRetentionHours: reportHours,
      retentionBatchSize: batch,
    } = resolved;
    const results = await expire('check results', hours, (stop) => pruneResults(store, nowMs, hours, batch, stop));
    await expire('webhook attempts', hours, (stop) => pruneWebhookAttempts(store, nowMs, hours, batch, stop));
    const reports = await expire('report rows', reportHours, (stop) =>
      pruneReports(store, nowMs, reportHours, batch, stop),
    );
    return { results, reports };
  };

  // Finished hours are rolled up a grace after they end, so that the last write of a check
  // claimed in the hour has landed (report-upkeep.ts); every worker asks, and the store rolls
  // each hour once.
  const graceMs = rollupGraceMs(resolved.leaseMs, resolved.writeDelayMs);
  let lastRollupMs = Number.NEGATIVE_INFINITY;
  let rollingUp: Promise<number> | undefined;
  let rollupsFailing = false;
  const rollUp = (nowMs: number): Promise<number> => {
    lastRollupMs = nowMs;
    return rollUpHours(resolved.store, nowMs, graceMs).then(
      (rolled) => {
        if (rollupsFailing) logger.info?.('rolling up finished hours works again');
        rollupsFailing = false;
        return rolled;
      },
      (error: unknown) => {
        // Once per streak, as for claims: the store is asked every minute.
        if (!rollupsFailing) logger.error?.('rolling up finished hours failed; trying again every minute', error);
        rollupsFailing = true;
        return 0;
      },
    );
  };

  const finishInFlight = async () => {
    await slots.waitUntil(() => slots.used === 0);
    await Promise.all(runners.map((runner) => runner.drain()));
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeSleep = undefined;
        resolve();
      }
      wakeSleep = done;
    });

  async function loop(): Promise<void> {
    let turn = 0;
    let claimsFailing = false;
    // While the worker is busy, an empty claim of this location's pairs is not repeated before the
    // engine's clock has moved one poll interval on (docs/engine.md, "Locations"): a worker whose
    // devices have no check_locations would otherwise pay a claim per turn for nothing.
    let locationsQuietUntil = Number.NEGATIVE_INFINITY;
    let wasBusy = false;
    while (!stopping) {
      const now = clock.now();
      summarize(now);
      if (sweeping === undefined && now - lastSweepMs >= resolved.retentionSweepMs) {
        sweeping = sweep(now).finally(() => (sweeping = undefined));
      }
      if (rollingUp === undefined && now - lastRollupMs >= ROLLUP_INTERVAL_MS) {
        rollingUp = rollUp(now).finally(() => (rollingUp = undefined));
      }
      let busy = false;
      try {
        // Before the claims, so a device whose window began is claimed in maintenance.
        await syncMaintenance(resolved.store, now);
        // Kinds take turns at going first, so a backlog of one cannot starve the other.
        for (let i = 0; i < runners.length && !stopping; i++) {
          const runner = runners[(turn + i) % runners.length]!;
          const locations = runner.name === 'device location';
          if (locations && wasBusy && clock.now() < locationsQuietUntil) continue;
          await slots.waitUntil(() => stopping || hasRoom(runner));
          if (stopping) break;
          const limit = Math.min(resolved.batchSize, open());
          const claimed = await runner.claimAndStart(limit);
          if (claimed === limit) busy = true;
          if (locations)
            locationsQuietUntil = claimed === 0 ? clock.now() + resolved.pollIntervalMs : Number.NEGATIVE_INFINITY;
          await checksStarted();
        }
        if (claimsFailing) {
          claimsFailing = false;
          logger.info?.('claiming due checks works again');
        }
      } catch (error) {
        // Once per streak: a database that is away for an hour must not write a stack a second.
        if (!claimsFailing)
          logger.error?.('claiming due checks failed; trying again every poll interval until it works', error);
        claimsFailing = true;
        busy = false;
      }
      turn++;
      wasBusy = busy;
      if (!busy && !stopping) await sleep(resolved.pollIntervalMs);
    }
    await finishInFlight();
    await Promise.all([sweeping, rollingUp]);
  }

  return {
    start() {
      if (started) return;
      started = true;
      stopping = false;
      looping = loop();
      heartbeat.start();
      webhooks.start();
    },

    async stop() {
      if (!started) return;
      stopping = true;
      wakeSleep?.();
      slots.wake();
      await Promise.all([looping, webhooks.stop(), heartbeat.stop()]);
      logger.close();
      started = false;
    },

    async runOnce() {
      if (started) throw new Error('runOnce() cannot run while the engine is started');
      const before = { ...tally };
      await heartbeat.beat();
      const now = clock.now();
      const pruning = sweep(now);
      const rolling = rollUp(now);
      try {
        await syncMaintenance(resolved.store, now);
        for (const runner of runners) {
          for (;;) {
            await slots.waitUntil(() => hasRoom(runner));
            const limit = Math.min(resolved.batchSize, open());
            // Due by the start of the run, and no later: a run always ends.
            const claimed = await runner.claimAndStart(limit, now);
            await checksStarted();
            if (claimed < limit) break;
          }
        }
      } finally {
        await finishInFlight();
      }
      // After the checks, so the events they wrote are delivered in the same run.
      await webhooks.runOnce();
      summarize(clock.now());
      return {
        claimed: tally.claimed - before.claimed,
        written: tally.written - before.written,
        fenced: tally.fenced - before.fenced,
        failed: tally.failed - before.failed + tally.crashed - before.crashed,
        pruned: (await Promise.all([pruning, rolling]))[0].results,
      };
    },
  };
}
