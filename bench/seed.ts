import { openKyselyStore } from '../stores/kysely/index.ts';
import { deviceToRow } from '../stores/kysely/rows.ts';
import type { NewDevice } from '../core/index.ts';

/** One user per count, each owning that many devices, inserted in bulk. Returns the user ids. */
export async function seedDevices(databaseUrl: string, counts: number[]): Promise<number[]> {
  const { store, db, dialect } = await openKyselyStore(databaseUrl);
  try {
    const owners: number[] = [];
    for (const count of counts) {
      const user = await store.createUser({ name: `bench-${count}`, created_at: new Date().toISOString() });
      owners.push(user.id);
      await db.transaction().execute(async (trx) => {
        for (let start = 0; start < count; start += 500) {
          const rows = [];
          for (let i = start; i < Math.min(count, start + 500); i++)
            rows.push(deviceToRow(dialect, user.id, benchDevice(`s${user.id}-${i}.example.com`)));
          await trx.insertInto('devices').values(rows).execute();
        }
      });
    }
    return owners;
  } finally {
    await store.close();
  }
}

/** A web device at 60 s with the HTTPS and TLS probes, as every bench seeds them. */
export function benchDevice(target: string): NewDevice {
  return {
    target_type: 'domain',
    target_value: target,
    service_type: 'web',
    scheme: 'https',
    port: 443,
    host_header: null,
    proxy_enabled: false,
    origin_host: null,
    origin_scheme: 'https',
    origin_port: 443,
    check_public_http: false,
    check_public_https: true,
    check_public_tls: true,
    check_origin_http: false,
    check_origin_tls: false,
    expect_status: 200,
    location: 'bench',
    is_enabled: true,
    created_at: new Date().toISOString(),
    check_interval_s: 60,
    check_locations: null,
    quorum: null,
    quorum_state: null,
    locations: null,
    status: 'pending',
    status_since: null,
    last_checked_at: null,
    last_results: {},
  };
}
