import type {
  ChangeListener,
  ComponentIds,
  ComponentRecords,
  NewNotice,
  NewStatusPage,
  Notice,
  OwnedStatusPage,
  PageRequest,
  RecordChange,
  StatusPage,
  StatusPageAddress,
  StatusPageCreateResult,
  StatusPageStore,
  StatusPageUpdateResult,
  Timestamp,
  UpdateResult,
} from '../../../core/index.ts';
import type { StoreContext } from '../store-context.ts';
import { KyselyNotices } from './notice-store.ts';
import { KyselyStatusPages } from './status-page-store.ts';

/**
 * KyselyStore's status pages and notices (docs/status-pages.md): the class it extends, so that its
 * file holds the other parts. Neither is ever in a kept list answer, so no write is counted.
 */
export class StatusPageParts implements StatusPageStore {
  readonly #ctx: StoreContext;
  readonly #statusPages: KyselyStatusPages;
  readonly #notices: KyselyNotices;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
    this.#statusPages = new KyselyStatusPages(ctx.db, ctx.dialect);
    this.#notices = new KyselyNotices(ctx.db, ctx.dialect);
  }

  createStatusPage(userId: number, page: NewStatusPage): Promise<StatusPageCreateResult> {
    return this.#ctx.run(() => this.#statusPages.createStatusPage(userId, page));
  }
  listStatusPages(userId: number, page: PageRequest): Promise<StatusPage[]> {
    return this.#ctx.run(() => this.#statusPages.listStatusPages(userId, page));
  }
  getStatusPage(userId: number, id: number): Promise<StatusPage | undefined> {
    return this.#ctx.run(() => this.#statusPages.getStatusPage(userId, id));
  }
  updateStatusPage(
    userId: number,
    id: number,
    change: RecordChange<StatusPage, NewStatusPage>,
  ): Promise<StatusPageUpdateResult> {
    return this.#ctx.run(() => this.#statusPages.updateStatusPage(userId, id, change));
  }
  deleteStatusPage(userId: number, id: number): Promise<boolean> {
    return this.#ctx.run(() => this.#statusPages.deleteStatusPage(userId, id));
  }
  /** Store.watchChanges: heard on PostgreSQL through its LISTEN connection (store-context.ts). */
  watchChanges(listener: ChangeListener): () => void {
    return this.#ctx.watchChanges(listener);
  }
  findPublicStatusPage(address: StatusPageAddress): Promise<OwnedStatusPage | undefined> {
    return this.#ctx.run(() => this.#statusPages.findPublicStatusPage(address));
  }
  componentRecords(userId: number, ids: ComponentIds): Promise<ComponentRecords> {
    return this.#ctx.run(() => this.#statusPages.componentRecords(userId, ids));
  }
  createNotice(userId: number, notice: NewNotice): Promise<Notice | undefined> {
    return this.#ctx.run(() => this.#notices.createNotice(userId, notice));
  }
  listNotices(userId: number, statusPageId: number, page: PageRequest): Promise<Notice[] | undefined> {
    return this.#ctx.run(() => this.#notices.listNotices(userId, statusPageId, page));
  }
  getNotice(userId: number, id: number): Promise<Notice | undefined> {
    return this.#ctx.run(() => this.#notices.getNotice(userId, id));
  }
  updateNotice(userId: number, id: number, change: RecordChange<Notice, NewNotice>): Promise<UpdateResult<Notice>> {
    return this.#ctx.run(() => this.#notices.updateNotice(userId, id, change));
  }
  deleteNotice(userId: number, id: number): Promise<boolean> {
    return this.#ctx.run(() => this.#notices.deleteNotice(userId, id));
  }
  recentNotices(statusPageId: number, since: Timestamp, limit: number): Promise<Notice[]> {
    return this.#ctx.run(() => this.#notices.recentNotices(statusPageId, since, limit));
  }
}
