import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewNotice, NewStatusPage, Notice, StatusPage } from '../../core/records/index.ts';
import { totalsOfTimeline } from '../../core/reports/timeline-totals.ts';
import type { RecordChange } from '../../core/store/store.ts';
import type { ContractContext } from './contract-context.ts';
import { ALL, at, createdOf, MAX_ID, ipMonitor, T0 } from './records.ts';
import { check, newDevice, t, useDay } from './reports-contract.ts';

// Status pages and their notices through the store's surface (docs/status-pages.md): the
// resources, the unique slugs and hostnames across users, the public look-ups, and the reads a
// page is built from.

let slugs = 0;

export function newPage(overrides: Partial<NewStatusPage> = {}): NewStatusPage {
  return {
    slug: `page-${++slugs}-${process.pid}`,
    title: 'Acme "status" <ok> ✓',
    description: 'Line one\nline two',
    components: [
      { name: 'Web', group: 'Front', device_id: 1 },
      { name: 'Mail reputation', group: null, blacklist_monitor_id: 2 },
    ],
    history_days: 90,
    time_zone: 'Europe/Berlin',
    show_response_times: true,
    show_targets: false,
    hostname: null,
    is_public: true,
    created_at: T0,
    updated_at: T0,
    ...overrides,
  };
}

export function newNotice(statusPageId: number, overrides: Partial<NewNotice> = {}): NewNotice {
  return {
    status_page_id: statusPageId,
    title: 'Slow checkouts',
    impact: 'minor',
    status: 'investigating',
    component_indexes: [0],
    updates: [{ status: 'investigating', message: 'Looking into it.\nMore soon.', at: T0 }],
    created_at: T0,
    updated_at: T0,
    resolved_at: null,
    ...overrides,
  };
}

function change<T>(from: T, to: T, fields: string[], reapply?: RecordChange<T, T>['reapply']): RecordChange<T, T> {
  return { from, to, fields, effect: 'none', at: at(5), events: [], ...(reapply ? { reapply } : {}) };
}

const created = (result: { created: StatusPage } | { conflict: string }): StatusPage => {
  assert.ok('created' in result, JSON.stringify(result));
  return result.created;
};

export function statusPagesContract(ctx: ContractContext): void {
  describe('status pages', () => {
    it('creates, reads, lists and deletes a page, each field as given', async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const input = newPage({ hostname: 'status.example.com' });
      const page = created(await store.createStatusPage(alice.id, input));
      assert.ok(Number.isSafeInteger(page.id) && page.id > 0);
      assert.deepEqual(page, { ...input, id: page.id });
      assert.deepEqual(await store.getStatusPage(alice.id, page.id), page);
      assert.equal(await store.getStatusPage(bob.id, page.id), undefined);
      const second = created(await store.createStatusPage(alice.id, newPage()));
      assert.deepEqual(
        (await store.listStatusPages(alice.id, ALL)).map((p) => p.id),
        [page.id, second.id],
      );
      assert.deepEqual(await store.listStatusPages(alice.id, { afterId: page.id, limit: 1 }), [second]);
      assert.deepEqual(await store.listStatusPages(bob.id, ALL), []);
      assert.equal(await store.deleteStatusPage(bob.id, page.id), false);
      assert.equal(await store.deleteStatusPage(alice.id, page.id), true);
      assert.equal(await store.deleteStatusPage(alice.id, page.id), false);
      assert.equal(await store.getStatusPage(alice.id, page.id), undefined);
      assert.equal(await store.getStatusPage(alice.id, MAX_ID), undefined);
    });

    it('holds slugs and hostnames unique across users, and names the field another page holds', async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const first = created(await store.createStatusPage(alice.id, newPage({ hostname: 'status.example.org' })));
      assert.deepEqual(await store.createStatusPage(bob.id, newPage({ slug: first.slug })), { conflict: 'slug' });
      assert.deepEqual(await store.createStatusPage(bob.id, newPage({ hostname: 'status.example.org' })), {
        conflict: 'hostname',
      });
      // No hostname is no hostname: any number of pages have none.
      created(await store.createStatusPage(bob.id, newPage()));
      created(await store.createStatusPage(bob.id, newPage()));
      // Two creates of one slug at once: one page.
      const slug = newPage().slug;
      const results = await Promise.all([
        store.createStatusPage(alice.id, newPage({ slug })),
        store.createStatusPage(bob.id, newPage({ slug })),
      ]);
      assert.deepEqual(results.map((r) => ('created' in r ? 'created' : r.conflict)).sort(), ['created', 'slug']);
      // Deleted, its slug is free again.
      assert.equal(await store.deleteStatusPage(alice.id, first.id), true);
      created(await store.createStatusPage(bob.id, newPage({ slug: first.slug, hostname: 'status.example.org' })));
    });

    it('changes a page by compare-and-set, judging the change again when the page moved', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const page = created(await store.createStatusPage(user.id, newPage()));
      const other = created(await store.createStatusPage(user.id, newPage({ hostname: 'a.example.net' })));
      const renamed: StatusPage = { ...page, title: 'Renamed', updated_at: at(5) };
      const done = await store.updateStatusPage(user.id, page.id, change(page, renamed, ['title', 'updated_at']));
      assert.deepEqual(done, { updated: renamed });
      // Judged against the page as it was: not written; judged again against it as it is.
      const stale: StatusPage = { ...page, description: 'x', updated_at: at(6) };
      assert.deepEqual(await store.updateStatusPage(user.id, page.id, change(page, stale, ['title', 'description'])), {
        stale: true,
      });
      const again = await store.updateStatusPage(
        user.id,
        page.id,
        change(page, stale, ['title', 'description'], (current) => ({
          ...change(current, { ...current, description: 'x' }, ['title', 'description']),
        })),
      );
      assert.deepEqual(again, { updated: { ...renamed, description: 'x' } });
      const clash: StatusPage = { ...renamed, description: 'x', slug: other.slug, hostname: 'a.example.net' };
      assert.deepEqual(
        await store.updateStatusPage(user.id, page.id, change({ ...renamed, description: 'x' }, clash, ['slug'])),
        { conflict: 'slug' },
      );
      const current = (await store.getStatusPage(user.id, page.id))!;
      assert.deepEqual(
        await store.updateStatusPage(
          user.id,
          page.id,
          change(current, { ...current, hostname: 'a.example.net' }, ['hostname']),
        ),
        { conflict: 'hostname' },
      );
      assert.equal(
        await store.updateStatusPage((await ctx.newUser()).id, page.id, change(current, current, ['title'])),
        undefined,
      );
    });

    it('finds a public page by slug or hostname, with its owner, and a private one not at all', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const page = created(await store.createStatusPage(user.id, newPage({ hostname: 'status.example.io' })));
      const owned = { ...page, user_id: user.id };
      assert.deepEqual(await store.findPublicStatusPage({ slug: page.slug }), owned);
      assert.deepEqual(await store.findPublicStatusPage({ hostname: 'status.example.io' }), owned);
      assert.equal(await store.findPublicStatusPage({ slug: 'no-such-page' }), undefined);
      assert.equal(await store.findPublicStatusPage({ hostname: 'other.example.io' }), undefined);
      const hidden = { ...page, is_public: false, updated_at: at(1) };
      await store.updateStatusPage(user.id, page.id, change(page, hidden, ['is_public', 'updated_at']));
      assert.equal(await store.findPublicStatusPage({ slug: page.slug }), undefined);
      assert.equal(await store.findPublicStatusPage({ hostname: 'status.example.io' }), undefined);
    });

    it("reads a page's records, the user's only, each kind ascending by id", async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      useDay(40);
      const devices = [await newDevice(store, alice.id, 'b.example.com'), await newDevice(store, alice.id)];
      const foreign = await newDevice(store, bob.id, 'c.example.com');
      const monitor = createdOf(await store.createBlacklistMonitor(alice.id, ipMonitor()));
      const records = await store.componentRecords(alice.id, {
        device_ids: [devices[1]!.id, foreign.id, devices[0]!.id, devices[1]!.id, MAX_ID],
        blacklist_monitor_ids: [monitor.id],
      });
      assert.deepEqual(records, { devices: [devices[0], devices[1]], blacklist_monitors: [monitor] });
      assert.deepEqual(await store.componentRecords(bob.id, { device_ids: [], blacklist_monitor_ids: [monitor.id] }), {
        devices: [],
        blacklist_monitors: [],
      });
    });

    it('reads timelines from which the same totals as the availability report follow', async () => {
      useDay(41);
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const device = await newDevice(store, alice.id);
      const quiet = await newDevice(store, alice.id, 'quiet.example.com');
      await check(store, device.id, 0, 'up');
      await check(store, device.id, 60, 'down');
      await check(store, device.id, 70, 'up');
      await check(store, device.id, 200, 'down');
      const range = { from: t(65), to: t(300) };
      const timelines = await store.statusTimelines(alice.id, [quiet.id, device.id, MAX_ID], range);
      assert.deepEqual(
        timelines.map((tl) => tl.device_id),
        [device.id, quiet.id].sort((a, b) => a - b),
      );
      const timeline = timelines.find((tl) => tl.device_id === device.id)!;
      // The change in force at the start, then those inside the range.
      assert.deepEqual(
        timeline.changes.map((c) => [c.status, c.at]),
        [
          ['down', t(60)],
          ['up', t(70)],
          ['down', t(200)],
        ],
      );
      const changes = timeline.changes.map((c) => ({ status: c.status, at: Date.parse(c.at) }));
      for (const [from, to] of [
        [65, 300],
        [65, 71],
        [100, 250],
      ] as const) {
        assert.deepEqual(
          totalsOfTimeline(changes, Date.parse(t(from)), Date.parse(t(to))),
          await store.deviceStatusTotals(alice.id, device.id, { from: t(from), to: t(to) }),
          `${from}-${to}`,
        );
      }
      assert.deepEqual(await store.statusTimelines(bob.id, [device.id], range), []);
      assert.deepEqual(await store.statusTimelines(alice.id, [], range), []);
    });
  });

  describe('status page notices', () => {
    it("creates, lists, reads and deletes notices on the user's own pages only", async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const page = created(await store.createStatusPage(alice.id, newPage()));
      const notice = await store.createNotice(alice.id, newNotice(page.id));
      assert.ok(notice !== undefined);
      assert.deepEqual(notice, { ...newNotice(page.id), id: notice.id });
      assert.equal(await store.createNotice(bob.id, newNotice(page.id)), undefined);
      assert.equal(await store.createNotice(alice.id, newNotice(MAX_ID)), undefined);
      const second = (await store.createNotice(alice.id, newNotice(page.id, { title: 'Second' })))!;
      assert.deepEqual(await store.listNotices(alice.id, page.id, ALL), [notice, second]);
      assert.deepEqual(await store.listNotices(alice.id, page.id, { afterId: notice.id, limit: 10 }), [second]);
      assert.equal(await store.listNotices(bob.id, page.id, ALL), undefined);
      assert.deepEqual(await store.getNotice(alice.id, notice.id), notice);
      assert.equal(await store.getNotice(bob.id, notice.id), undefined);
      assert.equal(await store.deleteNotice(bob.id, notice.id), false);
      assert.equal(await store.deleteNotice(alice.id, notice.id), true);
      assert.equal(await store.getNotice(alice.id, notice.id), undefined);
      // A page's notices go with it.
      assert.equal(await store.deleteStatusPage(alice.id, page.id), true);
      assert.equal(await store.getNotice(alice.id, second.id), undefined);
    });

    it('appends updates by compare-and-set: two at once both land', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const page = created(await store.createStatusPage(user.id, newPage()));
      const notice = (await store.createNotice(user.id, newNotice(page.id)))!;
      const append = (message: string, minute: number) => (current: Notice) => {
        const update = { status: 'identified' as const, message, at: at(minute) };
        const to = { ...current, status: update.status, updates: [...current.updates, update], updated_at: at(minute) };
        return change(current, to, ['status', 'updates', 'updated_at']);
      };
      const [a, b] = [append('first', 1), append('second', 2)];
      const results = await Promise.all([
        store.updateNotice(user.id, notice.id, { ...a(notice), reapply: a }),
        store.updateNotice(user.id, notice.id, { ...b(notice), reapply: b }),
      ]);
      assert.ok(results.every((r) => r !== undefined && 'updated' in r));
      const after = (await store.getNotice(user.id, notice.id))!;
      assert.deepEqual(after.updates.map((u) => u.message).sort(), ['Looking into it.\nMore soon.', 'first', 'second']);
      assert.equal(await store.updateNotice((await ctx.newUser()).id, notice.id, a(after)), undefined);
    });

    it('answers the notices a reader may see: open ones and those changed since, newest first', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const page = created(await store.createStatusPage(user.id, newPage()));
      const other = created(await store.createStatusPage(user.id, newPage()));
      const old = (await store.createNotice(
        user.id,
        newNotice(page.id, { status: 'resolved', resolved_at: at(-3000), updated_at: at(-3000) }),
      ))!;
      const open = (await store.createNotice(user.id, newNotice(page.id, { updated_at: at(-4000) })))!;
      const recent = (await store.createNotice(
        user.id,
        newNotice(page.id, { status: 'resolved', resolved_at: at(-10), updated_at: at(-10) }),
      ))!;
      await store.createNotice(user.id, newNotice(other.id));
      assert.deepEqual(
        (await store.recentNotices(page.id, at(-60), 10)).map((n) => n.id),
        [recent.id, open.id],
      );
      assert.deepEqual(
        (await store.recentNotices(page.id, at(-5000), 10)).map((n) => n.id),
        [recent.id, open.id, old.id],
      );
      assert.deepEqual(
        (await store.recentNotices(page.id, at(-5000), 1)).map((n) => n.id),
        [recent.id],
      );
    });
  });
}
