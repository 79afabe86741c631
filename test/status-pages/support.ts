/** What the status page suites share: records and pages made through the API, checks written as the engine does. */
import assert from 'node:assert/strict';
import type { CreatedApiKey } from '../../core/admin/key-admin.ts';
import type { DeviceStatus, Notice, StatusPage } from '../../core/index.ts';
import type { TestApi } from '../../core/testing/index.ts';
import { dnsbl, mustRecord, recordBlacklistCheck, recordDeviceCheck, service } from '../api/checks.ts';
import { assertSuccess } from '../api/helpers.ts';

let made = 0;
/** A slug no other test of the run has. */
export const newSlug = () => `page-${++made}-${process.pid}`;

export async function newDevice(t: TestApi, key: CreatedApiKey, name = `d${++made}.acme.example.org`): Promise<number> {
  const body = { target_type: 'domain', target_value: name, service_type: 'ssh' };
  return assertSuccess(await t.request<{ id: number }>('/v1/devices/create', { method: 'POST', key, body }), 201).id;
}

export async function newMonitor(
  t: TestApi,
  key: CreatedApiKey,
  name = `m${++made}.acme.example.org`,
): Promise<number> {
  const body = { target_type: 'domain', target_value: name };
  return assertSuccess(
    await t.request<{ id: number }>('/v1/blacklist-monitors/create', { method: 'POST', key, body }),
    201,
  ).id;
}

export async function newPage(t: TestApi, key: CreatedApiKey, body: Record<string, unknown>): Promise<StatusPage> {
  const page = { slug: newSlug(), title: 'Acme', ...body };
  return assertSuccess(
    await t.request<StatusPage>('/v1/status-pages/create', { method: 'POST', key, body: page }),
    201,
  );
}

export async function newNotice(t: TestApi, key: CreatedApiKey, body: Record<string, unknown>): Promise<Notice> {
  const notice = { title: 'Notice', impact: 'minor', status: 'investigating', message: 'Looking.', ...body };
  return assertSuccess(
    await t.request<Notice>('/v1/status-pages/notices/create', { method: 'POST', key, body: notice }),
    201,
  );
}

/** A device check at the clock's now, written as the engine writes one, that leaves the device `status`. */
export async function checkDevice(t: TestApi, id: number, status: DeviceStatus): Promise<void> {
  const at = new Date(t.clock.now()).toISOString();
  const results = [service(at, status === 'down' || status === 'validating' ? null : 'SSH-2.0-OpenSSH')];
  await mustRecord(recordDeviceCheck(t.store, id, { checked_at: at, status, results }));
}

/** A blacklist check at the clock's now: listed on `zones`, or clean. */
export async function checkMonitor(t: TestApi, id: number, zones: string[]): Promise<void> {
  const at = new Date(t.clock.now()).toISOString();
  const listed = zones.length > 0;
  const listings = zones.map((zone) => ({
    zone,
    answer: '127.0.0.2',
    meaning: null,
    policy: false,
    delist_url: null,
    since: at,
  }));
  await mustRecord(
    recordBlacklistCheck(t.store, id, {
      checked_at: at,
      last_status: listed ? 'listed' : 'clean',
      listed_on: zones,
      results: zones.map((zone) => dnsbl(at, zone, true)),
      listings,
    }),
  );
}

/** A public answer through the API, without a key: its status, headers and text. */
export async function publicGet(t: TestApi, path: string, headers: Record<string, string> = {}) {
  const res = await t.request(path, { headers });
  return { status: res.status, headers: res.headers, text: res.text };
}

/** summary.json of a page, parsed. */
export async function summary(t: TestApi, slug: string): Promise<Summary> {
  const res = await publicGet(t, `/status/${slug}/summary.json`);
  assert.equal(res.status, 200, res.text);
  return JSON.parse(res.text) as Summary;
}

export interface Summary {
  page: { id: string; name: string; url: string; time_zone: string; updated_at: string };
  status: { indicator: string; description: string };
  components: { id: string; name: string; status: string; group_name: string | null; updated_at: string }[];
  incidents: {
    id: string;
    name: string;
    status: string;
    impact: string;
    incident_updates: { status: string; body: string; created_at: string }[];
    components: { name: string }[];
  }[];
  scheduled_maintenances: { name: string; status: string; scheduled_for: string; scheduled_until: string }[];
}
