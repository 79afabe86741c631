/**
 * Every name each public entry point exports (package.json "exports"), types included. Each one is
 * a promise to users under semantic versioning, so adding or removing one must be a decision made
 * here, in the same change, and said in CHANGELOG.md; and each is documented, in backticks, in
 * docs/embedding.md or docs/configuration.md.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../support/root.ts';
import { exportedNames } from './exported-names.ts';

const PUBLIC_NAMES: Record<string, string[]> = {
  '.': [
    'ApiKey',
    'ApiRequest',
    'ApiResponse',
    'ApiResponseBody',
    'BlacklistCheckOutcome',
    'BlacklistMonitor',
    'BlacklistStatus',
    'CheckResult',
    'CheckResultBase',
    'ClaimRequest',
    'Claimed',
    'ClaimedDelivery',
    'ClaimedDevice',
    'ClaimedLocationCheck',
    'Clock',
    'CreateApiKeyInput',
    'CreateResult',
    'CreatedApiKey',
    'CreatedWebhook',
    'DEFAULTS',
    'DEVICE_PROBES',
    'DEVICE_STATUSES',
    'Deleted',
    'DeliveryClaimRequest',
    'DeliveryLease',
    'DeliveryOutcome',
    'DeliveryState',
    'DetailCode',
    'Device',
    'DeviceCheckOutcome',
    'DeviceLastResults',
    'DeviceLocation',
    'DeviceProbe',
    'DeviceProbeResult',
    'DeviceStatus',
    'DnsblResult',
    'EVENT_TYPES',
    'ErrorDetail',
    'EventData',
    'EventType',
    'HeaderFields',
    'HeaderReader',
    'HttpProbeResult',
    'KeyAdmin',
    'KeyAdminError',
    'Lease',
    'LocationCheckOutcome',
    'LocationCheckWrite',
    'LocationClaimRequest',
    'LocationDecider',
    'LocationSummary',
    'LocationVerdict',
    'Logger',
    'ManualClock',
    'Me',
    'MemoryRateLimiter',
    'MemoryStore',
    'MissingTableError',
    'MonitoredKind',
    'MonitoringApi',
    'MonitoringApiOptions',
    'MonitoringEvent',
    'MonitoringStore',
    'NewApiKey',
    'NewBlacklistMonitor',
    'NewCheckResult',
    'NewDevice',
    'NewDeviceProbeResult',
    'NewDnsblResult',
    'NewMonitoringEvent',
    'NewWebhook',
    'PageRequest',
    'ProbeName',
    'QuorumState',
    'RateLimitDecision',
    'RateLimitPolicy',
    'RateLimitRule',
    'RateLimiter',
    'RecordedCheck',
    'RequestContext',
    'RequestLogEntry',
    'ResultsPage',
    'SCOPES',
    'SERVICE_TYPES',
    'Scheme',
    'Scope',
    'ServiceProbeResult',
    'ServiceType',
    'Store',
    'StoredLocation',
    'TargetType',
    'Timestamp',
    'TlsProbeResult',
    'User',
    'WEBHOOK_DELIVERY_STATUSES',
    'Webhook',
    'WebhookDeliveryStatus',
    'WebhookDeliveryStore',
    'WebhookStore',
    'WorkerHeartbeat',
    'createMonitoringApi',
    'systemClock',
  ],
  './node': ['NodeHandler', 'createNodeHandler'],
  './express': ['ExpressErrorMiddleware', 'ExpressMiddleware', 'monitoringApiMiddleware'],
  './bun': ['BunFetchHandler', 'BunServerLike', 'createBunHandler'],
  './deno': ['DenoServeHandler', 'DenoServeInfo', 'createDenoHandler'],
  './engine': [
    'ConnectRequest',
    'Connection',
    'Connector',
    'DEFAULT_DNSBL_DOMAIN_ZONES',
    'DEFAULT_DNSBL_ZONES',
    'DeviceCheck',
    'DeviceCheckContext',
    'DeviceCheckOptions',
    'DnsblResolver',
    'ENGINE_DEFAULTS',
    'EngineLogger',
    'EngineRunSummary',
    'HostLookup',
    'MonitoringEngine',
    'MonitoringEngineOptions',
    'ProbeFailure',
    'checkDevice',
    'createMonitoringEngine',
  ],
  './kysely': [
    'Database',
    'KyselyStore',
    'KyselyStoreOptions',
    'OpenKyselyStoreOptions',
    'OpenedKyselyStore',
    'POSTGRES_TIMEOUTS',
    'StoreDialect',
    'migrateToLatest',
    'openKyselyStore',
  ],
  './redis': ['RedisRateLimiter', 'RedisRateLimiterOptions', 'RedisUnavailableError', 'createRedisRateLimiter'],
  './testing': ['TestApi', 'TestApiOptions', 'TestBody', 'TestRequestInit', 'TestResponse', 'createTestApi'],
  './client': [
    'AllOptions',
    'AllResultsOptions',
    'BlacklistMonitor',
    'BlacklistMonitorInput',
    'BlacklistStatus',
    'CheckResult',
    'ClientErrorCode',
    'CreatedWebhook',
    'Deleted',
    'DetailCode',
    'Device',
    'DeviceInput',
    'DeviceLastResults',
    'DeviceProbe',
    'DeviceProbeResult',
    'DeviceStatus',
    'DnsblResult',
    'ErrorDetail',
    'EventType',
    'Flag',
    'HttpProbeResult',
    'ListOptions',
    'LocationSummary',
    'Me',
    'MonitoredResourceClient',
    'MonitoringApiError',
    'MonitoringApiErrorInit',
    'MonitoringClient',
    'MonitoringClientOptions',
    'Page',
    'PageCursor',
    'ProbeName',
    'RequestOptions',
    'ResourceClient',
    'ResultCursor',
    'ResultPage',
    'ResultsOptions',
    'RetryOptions',
    'Scheme',
    'Scope',
    'ServiceProbeResult',
    'ServiceType',
    'TargetType',
    'TlsProbeResult',
    'Webhook',
    'WebhookDeliveryStatus',
    'WebhookInput',
    'createMonitoringClient',
    'isApiError',
  ],
};

describe('the public entry points', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { default: string }>;
  };
  const entries = Object.entries(manifest.exports).filter(
    (entry): entry is [string, { default: string }] => typeof entry[1] === 'object',
  );

  it('are the entries listed here', () => {
    assert.deepEqual(entries.map(([entry]) => entry).sort(), Object.keys(PUBLIC_NAMES).sort());
  });

  it('are each documented in docs/embedding.md or docs/configuration.md', () => {
    const docs = ['embedding.md', 'configuration.md']
      .map((name) => readFileSync(join(ROOT, 'docs', name), 'utf8'))
      .join('\n');
    const undocumented = Object.entries(PUBLIC_NAMES).flatMap(([entry, names]) =>
      names.filter((name) => !docs.includes(`\`${name}\``)).map((name) => `${entry}: ${name}`),
    );
    assert.deepEqual(undocumented, []);
  });

  for (const [entry, target] of entries) {
    it(`${entry} exports exactly its listed names`, async () => {
      const source = join(ROOT, target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
      assert.deepEqual(exportedNames(source), PUBLIC_NAMES[entry]);
      // The values among them are what the module really exports at run time.
      const values = Object.keys((await import(source)) as object).sort();
      assert.deepEqual(
        values.filter((name) => !PUBLIC_NAMES[entry]!.includes(name)),
        [],
      );
    });
  }
});
