import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Channel, NewChannel } from '../../core/records/index.ts';
import type { NewChannelAttempt } from '../../core/store/channel-store.ts';
import { channelRecord } from '../support/records.ts';
import type { ContractContext } from './contract-context.ts';
import { newHeartbeat } from './heartbeats-contract.ts';
import { ALL, at, createdOf, MAX_ID, ipMonitor, sshDevice, T0, webDevice } from './records.ts';

export function newChannel(overrides: Partial<NewChannel> = {}): NewChannel {
  return channelRecord(
    'telegram',
    { bot_token: '123456789:AAEhBOweik6ad9r_TelegramSecretValue', chat_id: '-100123' },
    {
      name: 'Ops "room" ✓',
      events: ['device.down', 'device.up', 'channel.disabled'],
      remind_every_s: 3600,
      send_recovery: false,
      created_at: T0,
      ...overrides,
    },
  );
}

function attempt(minutes: number, error: string | null, overrides: Partial<NewChannelAttempt> = {}): NewChannelAttempt {
  return {
    kind: 'events',
    event_ids: [7, 9],
    event_types: ['device.down', 'blacklist.listed'],
    attempt: 1,
    attempted_at: at(minutes),
    http_status: error === null ? 200 : 500,
    error,
    duration_ms: 12,
    ...overrides,
  };
}

/**
 * Channels, which records they serve, and their attempts (core/store/channel-store.ts), through
 * the public store surface.
 */
export function channelsContract(ctx: ContractContext): void {
  describe('channels', () => {
    it("round-trips every field, the config whole, and lists only the user's, in keyset pages", async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const first = await store.createChannel(alice.id, newChannel());
      const email = newChannel({
        name: 'mail',
        type: 'email',
        config: { to: ['a@example.com', 'b@example.org'] },
        is_default: false,
        remind_every_s: null,
        escalate_after_s: 600,
        send_recovery: true,
        is_enabled: false,
        created_at: at(5),
      });
      const second = await store.createChannel(alice.id, email);
      await store.createChannel(bob.id, newChannel());
      assert.deepEqual(first, { id: first.id, ...newChannel() });
      assert.deepEqual(second, { id: second.id, ...email });
      assert.ok(Number.isSafeInteger(first.id) && second.id > first.id);
      assert.deepEqual(await store.listChannels(alice.id, ALL), [first, second]);
      assert.deepEqual(await store.listChannels(alice.id, { afterId: 0, limit: 1 }), [first]);
      assert.deepEqual(await store.listChannels(alice.id, { afterId: first.id, limit: 5 }), [second]);
      assert.deepEqual(await store.getChannel(alice.id, second.id), second);
      assert.equal(await store.getChannel(bob.id, second.id), undefined);
      assert.equal(await store.getChannel(alice.id, MAX_ID), undefined);
    });

    it('changes a channel by compare-and-set, and judges a change again when it changed meanwhile', async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const channel = await store.createChannel(alice.id, newChannel());
      const fields = ['name', 'config', 'events', 'is_enabled'];
      const to = {
        ...newChannel(),
        name: 'renamed',
        config: { ...channel.config, chat_id: '@ops' },
      };
      const change = { from: channel, to, fields, effect: 'none' as const, at: at(1), events: [] };
      assert.equal(await store.updateChannel(bob.id, channel.id, change), undefined, "another user's channel");
      const updated = await store.updateChannel(alice.id, channel.id, change);
      assert.deepEqual(updated, { updated: { ...channel, name: 'renamed', config: to.config } });
      // Read before that change: stale without reapply, judged again with it.
      assert.deepEqual(await store.updateChannel(alice.id, channel.id, { ...change, to: { ...to, name: 'x' } }), {
        stale: true,
      });
      const seen: Channel[] = [];
      const again = await store.updateChannel(alice.id, channel.id, {
        ...change,
        to: { ...to, name: 'late' },
        reapply: (current) => {
          seen.push(current);
          return {
            to: { ...newChannel(), ...current, is_enabled: false },
            fields,
            effect: 'none',
            at: at(2),
            events: [],
          };
        },
      });
      assert.deepEqual(
        seen.map((c) => c.name),
        ['renamed'],
      );
      assert.deepEqual(again, { updated: { ...channel, name: 'renamed', config: to.config, is_enabled: false } });
      assert.deepEqual(await store.getChannel(alice.id, channel.id), {
        ...channel,
        name: 'renamed',
        config: to.config,
        is_enabled: false,
      });
    });

    it("resolves ids: the user's own channels, and those serving a record (null: the default ones)", async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const a = await store.createChannel(alice.id, newChannel());
      const b = await store.createChannel(alice.id, newChannel({ is_default: false }));
      const c = await store.createChannel(alice.id, newChannel({ is_enabled: false }));
      const theirs = await store.createChannel(bob.id, newChannel());
      assert.deepEqual(await store.ownedChannelIds(alice.id, [c.id, theirs.id, a.id, MAX_ID]), [c.id, a.id]);
      assert.deepEqual(await store.ownedChannelIds(alice.id, []), []);
      assert.deepEqual(await store.channelsServing(alice.id, null), [a, c], 'every default channel, disabled ones too');
      assert.deepEqual(await store.channelsServing(alice.id, [b.id, theirs.id, MAX_ID]), [b]);
      assert.deepEqual(await store.channelsServing(alice.id, []), []);
      assert.deepEqual(await store.channelsServing(bob.id, null), [theirs]);
    });

    it("keeps records' name and channel_ids, null when left out, and a delete takes the channel out of every list", async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const a = await store.createChannel(alice.id, newChannel());
      const b = await store.createChannel(alice.id, newChannel());
      const theirs = await store.createChannel(bob.id, newChannel());
      const { name: _name, channel_ids: _ids, ...plain } = sshDevice();
      const bare = createdOf(await store.createDevice(alice.id, plain));
      assert.deepEqual([bare.name, bare.channel_ids], [null, null]);
      // Ids whose digits hold the deleted one's (`b` in `b0` or `1b`) stay: only the id itself goes.
      const lookalikes = [Number(`${b.id}0`), Number(`1${b.id}`)];
      const web = createdOf(
        await store.createDevice(alice.id, webDevice({ channel_ids: [a.id, b.id, ...lookalikes] })),
      );
      const only = createdOf(await store.createDevice(alice.id, webDevice({ port: 8443, channel_ids: [b.id] })));
      const monitor = createdOf(
        await store.createBlacklistMonitor(alice.id, ipMonitor({ name: 'mx', channel_ids: [b.id, a.id] })),
      );
      const bobs = createdOf(await store.createBlacklistMonitor(bob.id, ipMonitor({ channel_ids: [theirs.id] })));
      assert.deepEqual([monitor.name, monitor.channel_ids], ['mx', [b.id, a.id]]);
      assert.equal(await store.deleteChannel(bob.id, b.id), false, "another user's channel");
      assert.equal(await store.deleteChannel(alice.id, b.id), true);
      assert.equal(await store.deleteChannel(alice.id, b.id), false, 'once');
      assert.equal((await store.getDevice(alice.id, web.id))?.channel_ids?.join(), [a.id, ...lookalikes].join());
      assert.deepEqual((await store.getDevice(alice.id, only.id))?.channel_ids, []);
      assert.deepEqual((await store.getDevice(alice.id, bare.id))?.channel_ids, null);
      assert.deepEqual((await store.getBlacklistMonitor(alice.id, monitor.id))?.channel_ids, [a.id]);
      assert.deepEqual((await store.getBlacklistMonitor(bob.id, bobs.id))?.channel_ids, [theirs.id]);
      assert.deepEqual(await store.listChannels(alice.id, ALL), [a]);
      // The rest of each record is as it was.
      assert.deepEqual(await store.getDevice(alice.id, web.id), { ...web, channel_ids: [a.id, ...lookalikes] });
    });

    it("keeps heartbeats' channel_ids, null when left out, and a channel's delete takes it out of theirs", async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const a = await store.createChannel(alice.id, newChannel());
      const b = await store.createChannel(alice.id, newChannel());
      const theirs = await store.createChannel(bob.id, newChannel());
      const { channel_ids: _ids, ...plain } = newHeartbeat();
      const bare = await store.createHeartbeat(alice.id, plain);
      assert.equal(bare.channel_ids, null);
      const lookalikes = [Number(`${b.id}0`), Number(`1${b.id}`)];
      const both = await store.createHeartbeat(alice.id, newHeartbeat({ channel_ids: [a.id, b.id, ...lookalikes] }));
      const only = await store.createHeartbeat(alice.id, newHeartbeat({ channel_ids: [b.id] }));
      const bobs = await store.createHeartbeat(bob.id, newHeartbeat({ channel_ids: [theirs.id] }));
      assert.deepEqual(both.channel_ids, [a.id, b.id, ...lookalikes]);
      assert.deepEqual(await store.getHeartbeat(alice.id, both.id), both);
      assert.equal(await store.deleteChannel(alice.id, b.id), true);
      assert.deepEqual(await store.getHeartbeat(alice.id, both.id), { ...both, channel_ids: [a.id, ...lookalikes] });
      assert.deepEqual((await store.getHeartbeat(alice.id, only.id))?.channel_ids, []);
      assert.equal((await store.getHeartbeat(alice.id, bare.id))?.channel_ids, null);
      assert.deepEqual((await store.getHeartbeat(bob.id, bobs.id))?.channel_ids, [theirs.id]);
    });

    it("records attempts with the channel's last delivery: newest wins, failing_since per run; lists them newest first", async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const channel = await store.createChannel(alice.id, newChannel());
      const other = await store.createChannel(alice.id, newChannel());
      const delivery = async () => {
        const c = await store.getChannel(alice.id, channel.id);
        return [c?.last_delivery_at, c?.last_delivery_status, c?.last_delivery_error, c?.failing_since];
      };
      assert.equal(await store.recordChannelAttempt(channel.id, attempt(1, 'http_500')), true);
      assert.deepEqual(await delivery(), [at(1), 'failing', 'http_500', at(1)]);
      assert.equal(
        await store.recordChannelAttempt(channel.id, attempt(2, 'timeout', { attempt: 2, http_status: null })),
        true,
      );
      assert.deepEqual(await delivery(), [at(2), 'failing', 'timeout', at(1)], 'a run of failures keeps its start');
      // An attempt that ended before the last one is listed, and leaves the channel's fields alone.
      assert.equal(await store.recordChannelAttempt(channel.id, attempt(0, null, { kind: 'reminder' })), true);
      assert.deepEqual(await delivery(), [at(2), 'failing', 'timeout', at(1)]);
      assert.equal(
        await store.recordChannelAttempt(
          channel.id,
          attempt(3, null, { kind: 'acknowledgement', event_ids: [], event_types: [] }),
        ),
        true,
      );
      assert.deepEqual(await delivery(), [at(3), 'delivered', null, null]);
      assert.equal(await store.recordChannelAttempt(other.id, attempt(4, null)), true);
      assert.equal(await store.recordChannelAttempt(MAX_ID, attempt(4, null)), false, 'no such channel');

      const listed = await store.listChannelAttempts(alice.id, channel.id, { limit: 10 });
      assert.ok(listed !== undefined);
      assert.deepEqual(
        listed.map(({ id: _id, ...rest }) => rest),
        [
          attempt(3, null, { kind: 'acknowledgement', event_ids: [], event_types: [] }),
          attempt(0, null, { kind: 'reminder' }),
          attempt(2, 'timeout', { attempt: 2, http_status: null }),
          attempt(1, 'http_500'),
        ],
      );
      assert.ok(
        listed.every((a, i) => i === 0 || a.id < listed[i - 1]!.id),
        'newest (largest id) first',
      );
      assert.deepEqual(
        (await store.listChannelAttempts(alice.id, channel.id, { limit: 2, beforeId: listed[1]!.id }))?.map(
          (a) => a.id,
        ),
        [listed[2]!.id, listed[3]!.id],
      );
      assert.equal(await store.listChannelAttempts(bob.id, channel.id, { limit: 10 }), undefined);
      assert.equal(await store.listChannelAttempts(alice.id, MAX_ID, { limit: 10 }), undefined);

      // Expired attempts go, oldest first, at most `limit` at a time.
      assert.equal(await store.deleteChannelAttemptsBefore?.(at(2), 1), 1);
      assert.equal(await store.deleteChannelAttemptsBefore?.(at(2), 10), 1);
      assert.deepEqual(
        (await store.listChannelAttempts(alice.id, channel.id, { limit: 10 }))?.map((a) => a.attempted_at),
        [at(3), at(2)],
      );
      // A deleted channel's attempts go with it.
      assert.equal(await store.deleteChannel(alice.id, channel.id), true);
      assert.equal(await store.listChannelAttempts(alice.id, channel.id, { limit: 10 }), undefined);
      assert.equal((await store.listChannelAttempts(alice.id, other.id, { limit: 10 }))?.length, 1);
    });
  });
}
