import type { OwnedStatusPage } from '../records/index.ts';
import type { RecordChanged } from '../store/record-changes.ts';
import type { StatusPageAddress } from '../store/status-page-store.ts';
import type { Store } from '../store/store.ts';
import { readStatusSource } from './status-source.ts';
import { buildStatusView, type StatusView } from './status-view.ts';

// What a process keeps of its status pages between requests (docs/status-pages.md, "Caching and
// conditional requests"): the pages by address and what each shows (its view), each until a
// change the store tells of (Store.watchChanges) touches it, or the clock alone changes it
// (the view's validUntil; figures that grow with time, at most `figuresMaxAgeMs` old). While the
// store cannot tell of changes (none told, or not hearing them), nothing is kept.

/** A view as kept: `serial` names it, so the answers written from it (status-answers.ts) go with it. */
export interface KeptView {
  readonly view: StatusView;
  readonly serial: number;
  /** Whether it was kept from an earlier request rather than read for this one. */
  readonly kept: boolean;
}

interface Entry {
  view: StatusView;
  serial: number;
  /** The generation it was read under (see #generation). */
  generation: string;
  until: number;
  /** What keptView answers with it, made once. */
  shown: KeptView;
}

export interface StatusKeeperOptions {
  /** How long figures that move with time alone (availability with downtime in it, response times) may be kept. */
  figuresMaxAgeMs: number;
  /** How many pages' views are kept at most, the one used longest ago out first. */
  maxPages: number;
}

/**
 * Whether what `view` shows changes with the clock between its day turns: percentages with
 * downtime in them, a device down or in maintenance now (its minutes grow), response times.
 */
function figuresMove(view: StatusView): boolean {
  return (
    view.page.show_response_times ||
    view.components.some(
      (c) =>
        (c.availability !== null && c.availability < 100) ||
        (c.kind !== 'blacklist_monitor' && c.status !== 'operational' && c.status !== 'not_monitored'),
    )
  );
}

export class StatusKeeper {
  readonly #store: Store;
  readonly #options: StatusKeeperOptions;
  readonly #unwatch: (() => void) | undefined;
  #live = false;
  /** Moves when everything kept goes: hearing lost or regained, a maintenance window changed, a write here. */
  #epoch = 0;
  /** `#generation` of a page never changed in this epoch, made once. */
  #epochGeneration: string | undefined;
  #serial = 0;
  readonly #pageGenerations = new Map<number, number>();
  readonly #pagesOfDevice = new Map<number, Set<number>>();
  readonly #pagesOfMonitor = new Map<number, Set<number>>();
  readonly #pagesOfHeartbeat = new Map<number, Set<number>>();
  readonly #views = new Map<number, Entry>();
  /** The view last moved to the end of #views. */
  #lastUsed: Entry | undefined;
  readonly #reading = new Map<number, { generation: string; read: Promise<Entry> }>();
  /** Moves with every page changed: an address found before may now be another page's, or none. */
  #addressEpoch = 0;
  readonly #addresses = new Map<string, OwnedStatusPage>();

  constructor(store: Store, options: StatusKeeperOptions) {
    this.#store = store;
    this.#options = options;
    this.#unwatch = store.watchChanges?.({
      changed: (change) => this.#changed(change),
      hearing: (live) => {
        this.#live = live;
        this.#forgetAll();
      },
    });
  }

  /** Everything kept goes, and what is read until now is not kept: a write by this process. */
  forgetAll(): void {
    this.#forgetAll();
  }

  close(): void {
    this.#unwatch?.();
    this.#live = false;
    this.#forgetAll();
  }

  /** The public page at `address`, as `Store.findPublicStatusPage`, kept while no page changes. */
  async findPage(address: StatusPageAddress): Promise<OwnedStatusPage | undefined> {
    const key = 'slug' in address ? `s:${address.slug}` : `h:${address.hostname}`;
    const kept = this.#live ? this.#addresses.get(key) : undefined;
    if (kept !== undefined) return kept;
    return this.#findPage(address, key);
  }

  /**
   * The public page at `address` when it is kept, without waiting: a request for a kept page's
   * kept answer takes no turn of the event loop's queue (findPage, undefined: ask findPage).
   */
  keptPage(address: StatusPageAddress): OwnedStatusPage | undefined {
    if (!this.#live) return undefined;
    return this.#addresses.get('slug' in address ? `s:${address.slug}` : `h:${address.hostname}`);
  }

  async #findPage(address: StatusPageAddress, key: string): Promise<OwnedStatusPage | undefined> {
    const epoch = `${this.#epoch}.${this.#addressEpoch}`;
    const page = await this.#store.findPublicStatusPage(address);
    if (page !== undefined && this.#live && epoch === `${this.#epoch}.${this.#addressEpoch}`) {
      if (this.#addresses.size >= this.#options.maxPages * 4) this.#addresses.clear();
      this.#addresses.set(key, page);
    }
    return page;
  }

  /** What `page` shows at `now`: kept when nothing it shows changed since, else read (once for concurrent requests). */
  async view(page: OwnedStatusPage, now: number): Promise<KeptView> {
    if (!this.#live) return { ...(await this.#read(page, now, '')), kept: false };
    return this.keptView(page, now) ?? this.#viewRead(page, now);
  }

  /** What `page` shows at `now` when it is kept, without waiting; undefined: ask `view`. */
  keptView(page: OwnedStatusPage, now: number): KeptView | undefined {
    if (!this.#live) return undefined;
    const kept = this.#views.get(page.id);
    if (kept === undefined || now >= kept.until || now < kept.view.now) return undefined;
    if (kept.generation !== this.#generation(page.id)) return undefined;
    // Used now: last out (it is already when it was the last used).
    if (this.#lastUsed !== kept) {
      this.#views.delete(page.id);
      this.#views.set(page.id, kept);
      this.#lastUsed = kept;
    }
    return kept.shown;
  }

  async #viewRead(page: OwnedStatusPage, now: number): Promise<KeptView> {
    const generation = this.#generation(page.id);
    const reading = this.#reading.get(page.id);
    if (reading !== undefined && reading.generation === generation) {
      const entry = await reading.read;
      if (now < entry.until && now >= entry.view.now) return { view: entry.view, serial: entry.serial, kept: false };
    }
    this.#follow(page);
    const read = this.#read(page, now, generation);
    this.#reading.set(page.id, { generation, read });
    try {
      const entry = await read;
      if (entry.generation === this.#generation(page.id)) this.#keep(page.id, entry);
      return { view: entry.view, serial: entry.serial, kept: false };
    } finally {
      if (this.#reading.get(page.id)?.read === read) this.#reading.delete(page.id);
    }
  }

  async #read(page: OwnedStatusPage, now: number, generation: string): Promise<Entry> {
    const view = buildStatusView(await readStatusSource(this.#store, page, now), now);
    const until = figuresMove(view) ? Math.min(view.validUntil, now + this.#options.figuresMaxAgeMs) : view.validUntil;
    const serial = ++this.#serial;
    return { view, serial, generation, until, shown: { view, serial, kept: true } };
  }

  #keep(pageId: number, entry: Entry): void {
    this.#views.delete(pageId);
    this.#views.set(pageId, entry);
    this.#lastUsed = entry;
    while (this.#views.size > this.#options.maxPages) {
      const oldest = this.#views.keys().next().value!;
      this.#views.delete(oldest);
      this.#unfollow(oldest);
    }
  }

  #generation(pageId: number): string {
    const page = this.#pageGenerations.get(pageId) ?? 0;
    // Of a page never changed in this epoch (most, most of the time), one string made once.
    if (page === 0) return (this.#epochGeneration ??= `${this.#epoch}.0`);
    return `${this.#epoch}.${page}`;
  }

  /** The records `page` shows, so a change of one of them moves the page's generation. */
  #follow(page: OwnedStatusPage): void {
    this.#unfollow(page.id);
    for (const component of page.components) {
      if (component.device_id !== undefined) addTo(this.#pagesOfDevice, component.device_id, page.id);
      if (component.blacklist_monitor_id !== undefined)
        addTo(this.#pagesOfMonitor, component.blacklist_monitor_id, page.id);
      if (component.heartbeat_id !== undefined) addTo(this.#pagesOfHeartbeat, component.heartbeat_id, page.id);
    }
  }

  #unfollow(pageId: number): void {
    for (const index of [this.#pagesOfDevice, this.#pagesOfMonitor, this.#pagesOfHeartbeat]) {
      for (const [id, pages] of index) {
        if (pages.delete(pageId) && pages.size === 0) index.delete(id);
      }
    }
  }

  #changed(change: RecordChanged): void {
    switch (change.kind) {
      case 'status_page':
        this.#addressEpoch++;
        this.#addresses.clear();
        this.#moved(change.id);
        return;
      case 'device':
        for (const pageId of this.#pagesOfDevice.get(change.id) ?? []) this.#moved(pageId);
        return;
      case 'blacklist_monitor':
        for (const pageId of this.#pagesOfMonitor.get(change.id) ?? []) this.#moved(pageId);
        return;
      case 'maintenance_window':
        // Which components a window covers is the window's to say (all of a user's devices, say):
        // rare enough to let every page go.
        this.#forgetAll();
        return;
      case 'heartbeat':
        for (const pageId of this.#pagesOfHeartbeat.get(change.id) ?? []) this.#moved(pageId);
        return;
    }
  }

  #moved(pageId: number): void {
    this.#pageGenerations.set(pageId, (this.#pageGenerations.get(pageId) ?? 0) + 1);
    this.#views.delete(pageId);
  }

  #forgetAll(): void {
    this.#epoch++;
    this.#epochGeneration = undefined;
    this.#addressEpoch++;
    this.#addresses.clear();
    this.#views.clear();
    this.#pageGenerations.clear();
    this.#pagesOfDevice.clear();
    this.#pagesOfMonitor.clear();
    this.#pagesOfHeartbeat.clear();
  }
}

function addTo(index: Map<number, Set<number>>, id: number, pageId: number): void {
  let pages = index.get(id);
  if (pages === undefined) index.set(id, (pages = new Set()));
  pages.add(pageId);
}
