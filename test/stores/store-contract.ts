import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ApiKey, NewApiKey, User } from '../../core/records/index.ts';
import { MissingTableError } from '../../core/store/store.ts';
import type { Store } from '../../core/store/store.ts';
import { channelsContract } from './channels-contract.ts';
import { claimsContract } from './claims-contract.ts';
import { heartbeatsContract } from './heartbeats-contract.ts';
import type { ContractContext, OpenedStore } from './contract-context.ts';
import { ALL, at, createdOf, MAX_ID, ipMonitor, sshDevice, T0, webDevice } from './records.ts';
import { reportsContract } from './reports-contract.ts';
import { responseRangesContract } from './response-ranges-contract.ts';
import { resultsContract } from './results-contract.ts';
import { statusPagesContract } from './status-pages-contract.ts';

function newKey(userId: number, overrides: Partial<NewApiKey> = {}): NewApiKey {
  return {
    user_id: userId,
    name: 'deploy',
    scopes: ['read', 'write'],
    allowed_ips: ['203.0.113.0/24', '2001:db8::/32'],
    rate_limit: { limit: 5, windowSeconds: 60 },
    created_at: T0,
    expires_at: at(60 * 24),
    token_hash: randomBytes(32).toString('hex'),
    ...overrides,
  };
}

function assertNoHash(key: ApiKey | undefined): void {
  assert.ok(key !== undefined);
  assert.equal('token_hash' in key, false);
}

/**
 * The behaviour every Store must show, run against each implementation. `open` gives a store
 * over a migrated schema; `openUnmigrated`, for stores that have a schema, one over none.
 */
export function storeContract(
  name: string,
  open: () => Promise<OpenedStore>,
  options: { openUnmigrated?: () => Promise<OpenedStore> } = {},
): void {
  describe(`${name} meets the Store contract`, () => {
    let opened: OpenedStore;
    let store: Store;
    let users = 0;
    beforeEach(async () => {
      opened = await open();
      store = opened.store;
    });
    afterEach(() => opened.cleanup());
    const newUser = (): Promise<User> => store.createUser({ name: `user ${++users}`, created_at: T0 });
    const context: ContractContext = { store: () => store, newUser, events: () => opened.events };

    describe('users', () => {
      it('creates users with increasing ids and gets them back', async () => {
        const a = await newUser();
        const b = await store.createUser({ name: null, created_at: at(5) });
        assert.ok(Number.isSafeInteger(a.id) && a.id > 0 && b.id > a.id);
        assert.deepEqual(b, { id: b.id, name: null, created_at: at(5) });
        assert.deepEqual(await store.getUser(a.id), a);
        assert.equal(await store.getUser(MAX_ID), undefined);
      });
    });

    describe('API keys', () => {
      it('creates a key and finds it by hash, by id and by user, never showing the hash', async () => {
        const user = await newUser();
        const input = newKey(user.id);
        const key = await store.createApiKey(input);
        const { token_hash: _hash, ...fields } = input;
        assert.deepEqual(key, { ...fields, id: key.id, revoked_at: null, last_used_at: null });
        for (const found of [await store.findApiKeyByHash(input.token_hash), await store.getApiKey(key.id)]) {
          assertNoHash(found);
          assert.deepEqual(found, key);
        }
        const [listed] = await store.listApiKeys(user.id);
        assertNoHash(listed);
        assert.equal(await store.findApiKeyByHash('0'.repeat(64)), undefined);
        assert.equal(await store.getApiKey(MAX_ID), undefined);
      });

      it('keeps nulls and single scopes as they are', async () => {
        const user = await newUser();
        const sparse = { name: null, scopes: ['read'], allowed_ips: [], rate_limit: null, expires_at: null } as const;
        const key = await store.createApiKey(newKey(user.id, { ...sparse, scopes: ['read'], allowed_ips: [] }));
        assert.deepEqual(await store.getApiKey(key.id), { ...key, ...sparse });
      });

      it('refuses a key for a user that does not exist', async () => {
        await assert.rejects(store.createApiKey(newKey(MAX_ID)));
      });

      it("lists only the user's keys, in ascending id order", async () => {
        const [alice, bob] = [await newUser(), await newUser()];
        const first = await store.createApiKey(newKey(alice.id));
        await store.createApiKey(newKey(bob.id));
        const second = await store.createApiKey(newKey(alice.id, { name: 'second' }));
        assert.deepEqual(await store.listApiKeys(alice.id), [first, second]);
        assert.deepEqual(await store.listApiKeys((await newUser()).id), []);
      });

      it('revokes a key once only', async () => {
        const key = await store.createApiKey(newKey((await newUser()).id));
        assert.equal(await store.revokeApiKey(key.id, at(10)), true);
        assert.equal(await store.revokeApiKey(key.id, at(20)), false);
        assert.equal((await store.getApiKey(key.id))?.revoked_at, at(10));
        assert.equal(await store.revokeApiKey(MAX_ID, at(10)), false);
      });

      it('records key usage in batches, only ever moving it forward', async () => {
        const user = await newUser();
        const [a, b] = [await store.createApiKey(newKey(user.id)), await store.createApiKey(newKey(user.id))];
        await store.recordKeyUsage(new Map());
        await store.recordKeyUsage(
          new Map([
            [a.id, at(30)],
            [b.id, at(5)],
            [MAX_ID, at(1)],
          ]),
        );
        await store.recordKeyUsage(
          new Map([
            [a.id, at(10)],
            [b.id, at(6)],
          ]),
        );
        assert.equal((await store.getApiKey(a.id))?.last_used_at, at(30));
        assert.equal((await store.getApiKey(b.id))?.last_used_at, at(6));
        // Later by less than a second: compared as times, to the millisecond.
        await store.recordKeyUsage(new Map([[a.id, '2026-11-22T07:30:00.001Z']]));
        assert.equal((await store.getApiKey(a.id))?.last_used_at, '2026-11-22T07:30:00.001Z');
      });
    });

    describe('devices', () => {
      it('round-trips every field with its exact type, nulls included', async () => {
        const user = await newUser();
        const web = createdOf(await store.createDevice(user.id, webDevice()));
        const ssh = createdOf(await store.createDevice(user.id, sshDevice()));
        assert.deepEqual(web, { id: web.id, ...webDevice() });
        assert.deepEqual(ssh, { id: ssh.id, ...sshDevice() });
        assert.deepEqual(await store.listDevices(user.id, ALL), [web, ssh]);
      });

      it('answers a duplicate identity with the id of the existing device', async () => {
        const user = await newUser();
        const web = createdOf(await store.createDevice(user.id, webDevice()));
        assert.deepEqual(
          await store.createDevice(user.id, webDevice({ location: 'elsewhere', is_enabled: true, created_at: at(9) })),
          { duplicateOf: web.id },
        );
        // A null scheme is one value for the rule, though SQL NULLs are distinct in an index.
        const ssh = createdOf(await store.createDevice(user.id, sshDevice()));
        assert.deepEqual(await store.createDevice(user.id, sshDevice()), { duplicateOf: ssh.id });
        assert.equal((await store.listDevices(user.id, ALL)).length, 2);
      });

      it('tells apart devices differing in any identity field', async () => {
        const [alice, bob] = [await newUser(), await newUser()];
        createdOf(await store.createDevice(alice.id, webDevice()));
        createdOf(await store.createDevice(bob.id, webDevice()));
        createdOf(await store.createDevice(alice.id, webDevice({ port: 8443 })));
        createdOf(await store.createDevice(alice.id, webDevice({ scheme: 'http' })));
        createdOf(await store.createDevice(alice.id, webDevice({ scheme: null })));
        createdOf(await store.createDevice(alice.id, webDevice({ service_type: 'tcp' })));
        createdOf(await store.createDevice(alice.id, webDevice({ target_value: 'www.example.com' })));
        createdOf(await store.createDevice(alice.id, webDevice({ target_type: 'ip', target_value: '93.184.216.34' })));
        assert.equal((await store.listDevices(alice.id, ALL)).length, 7);
      });

      it("lists only the user's devices, in keyset pages of ascending id", async () => {
        const [alice, bob] = [await newUser(), await newUser()];
        const mine = [];
        for (let port = 1; port <= 5; port++) {
          mine.push(createdOf(await store.createDevice(alice.id, sshDevice({ port }))));
          await store.createDevice(bob.id, sshDevice({ port }));
        }
        assert.deepEqual(await store.listDevices(alice.id, ALL), mine);
        assert.deepEqual(await store.listDevices(alice.id, { afterId: 0, limit: 2 }), mine.slice(0, 2));
        assert.deepEqual(await store.listDevices(alice.id, { afterId: mine[1]!.id, limit: 2 }), mine.slice(2, 4));
        assert.deepEqual(await store.listDevices(alice.id, { afterId: mine[3]!.id, limit: 2 }), mine.slice(4));
        assert.deepEqual(await store.listDevices(alice.id, { afterId: 0, limit: MAX_ID }), mine);
        assert.deepEqual(await store.listDevices(alice.id, { afterId: MAX_ID, limit: 10 }), []);
      });

      it("deletes only the owner's device, once", async () => {
        const [alice, bob] = [await newUser(), await newUser()];
        const device = createdOf(await store.createDevice(alice.id, webDevice()));
        assert.equal(await store.deleteDevice(bob.id, device.id), false);
        assert.deepEqual(await store.listDevices(alice.id, ALL), [device]);
        assert.equal(await store.deleteDevice(alice.id, device.id), true);
        assert.equal(await store.deleteDevice(alice.id, device.id), false);
        assert.equal(await store.deleteDevice(alice.id, MAX_ID), false);
        assert.deepEqual(await store.listDevices(alice.id, ALL), []);
        // Once deleted, the same identity may be created again.
        createdOf(await store.createDevice(alice.id, webDevice()));
      });

      it('never reuses the id of a deleted newest device', async () => {
        const user = await newUser();
        const newest = createdOf(await store.createDevice(user.id, sshDevice({ port: 1 })));
        assert.equal(await store.deleteDevice(user.id, newest.id), true);
        const next = createdOf(await store.createDevice(user.id, sshDevice({ port: 2 })));
        assert.ok(next.id > newest.id, `id ${next.id} reused after deleting ${newest.id}`);
      });

      it('gives twenty concurrent identical creates one record', async () => {
        const user = await newUser();
        const results = await Promise.all(Array.from({ length: 20 }, () => store.createDevice(user.id, webDevice())));
        const created = results.flatMap((r) => ('created' in r ? [r.created] : []));
        assert.equal(created.length, 1);
        assert.deepEqual(
          results.filter((r) => 'duplicateOf' in r),
          Array(19).fill({ duplicateOf: created[0]!.id }),
        );
      });
    });

    describe('blacklist monitors', () => {
      it('round-trips every field and answers duplicates with the existing id', async () => {
        const [alice, bob] = [await newUser(), await newUser()];
        const checked = ipMonitor({
          last_status: 'listed',
          last_checked_at: at(3),
          listed_on: ['zen.spamhaus.org', 'b.barracudacentral.org'],
        });
        const monitor = createdOf(await store.createBlacklistMonitor(alice.id, checked));
        assert.deepEqual(monitor, { id: monitor.id, ...checked });
        const again = await store.createBlacklistMonitor(alice.id, ipMonitor({ is_enabled: false }));
        assert.deepEqual(again, { duplicateOf: monitor.id });
        const domain = ipMonitor({ target_type: 'domain', target_value: 'example.com', is_enabled: false });
        const other = createdOf(await store.createBlacklistMonitor(alice.id, domain));
        assert.deepEqual(other, { id: other.id, ...domain });
        createdOf(await store.createBlacklistMonitor(alice.id, ipMonitor({ target_value: '8.8.4.4' })));
        createdOf(await store.createBlacklistMonitor(bob.id, ipMonitor()));
        const listed = await store.listBlacklistMonitors(alice.id, ALL);
        assert.deepEqual(listed.slice(0, 2), [monitor, other]);
      });

      it("lists only the user's monitors, in keyset pages, and deletes only the owner's, once", async () => {
        const [alice, bob] = [await newUser(), await newUser()];
        const mine = [];
        for (const value of ['1.1.1.1', '1.0.0.1', '9.9.9.9']) {
          await store.createBlacklistMonitor(bob.id, ipMonitor({ target_value: value }));
          mine.push(createdOf(await store.createBlacklistMonitor(alice.id, ipMonitor({ target_value: value }))));
        }
        assert.deepEqual(await store.listBlacklistMonitors(alice.id, ALL), mine);
        assert.deepEqual(await store.listBlacklistMonitors(alice.id, { afterId: mine[0]!.id, limit: 1 }), [mine[1]]);
        assert.deepEqual(await store.listBlacklistMonitors(alice.id, { afterId: MAX_ID, limit: 1 }), []);
        assert.equal(await store.deleteBlacklistMonitor(bob.id, mine[2]!.id), false);
        assert.equal(await store.deleteBlacklistMonitor(alice.id, mine[2]!.id), true);
        assert.equal(await store.deleteBlacklistMonitor(alice.id, mine[2]!.id), false);
        assert.equal(await store.deleteBlacklistMonitor(alice.id, MAX_ID), false);
        const next = createdOf(await store.createBlacklistMonitor(alice.id, ipMonitor({ target_value: '4.4.4.4' })));
        assert.ok(next.id > mine[2]!.id, 'the id of the deleted newest monitor was reused');
        assert.deepEqual(await store.listBlacklistMonitors(alice.id, ALL), [...mine.slice(0, 2), next]);
      });

      it('answers a create with a promise whatever the record: a failure rejects, never throws', async () => {
        const alice = await newUser();
        // A timestamp the SQL stores cannot write (the memory store keeps it as given): whichever
        // way it goes, it must go the way the Store's promise says, so callers' .catch sees it.
        const creates = [
          () => store.createDevice(alice.id, webDevice({ created_at: 'not a time' })),
          () => store.createBlacklistMonitor(alice.id, ipMonitor({ created_at: 'not a time' })),
        ];
        for (const create of creates) {
          let pending: Promise<unknown> | undefined;
          assert.doesNotThrow(() => {
            pending = create();
          });
          assert.ok(pending instanceof Promise);
          await pending.catch(() => undefined);
        }
      });

      it('gives twenty concurrent identical creates one record', async () => {
        const user = await newUser();
        const creates = Array.from({ length: 20 }, () => store.createBlacklistMonitor(user.id, ipMonitor()));
        const results = await Promise.all(creates);
        const created = results.flatMap((r) => ('created' in r ? [r.created] : []));
        assert.equal(created.length, 1);
        assert.deepEqual(
          results.filter((r) => 'duplicateOf' in r),
          Array(19).fill({ duplicateOf: created[0]!.id }),
        );
      });
    });

    claimsContract(context);
    channelsContract(context);
    resultsContract(context);
    reportsContract(context);
    responseRangesContract(context);
    statusPagesContract(context);
    heartbeatsContract(context);

    const { openUnmigrated } = options;
    const skip = !openUnmigrated && 'this store has no schema';
    it('throws MissingTableError over a schema that was never migrated', { skip }, async () => {
      if (!openUnmigrated) return;
      const bare = await openUnmigrated();
      try {
        await assert.rejects(bare.store.listDevices(1, ALL), MissingTableError);
        await assert.rejects(bare.store.listBlacklistMonitors(1, ALL), MissingTableError);
        await assert.rejects(bare.store.createUser({ name: null, created_at: T0 }), MissingTableError);
        await assert.rejects(bare.store.findApiKeyByHash('0'.repeat(64)), MissingTableError);
        await assert.rejects(bare.store.createDevice(1, webDevice()), MissingTableError);
      } finally {
        await bare.cleanup();
      }
    });
  });
}
