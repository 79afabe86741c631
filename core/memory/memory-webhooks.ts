import type { ResultsPage } from '../store/monitoring-store.ts';
import type {
  CreatedWebhook,
  MonitoringEvent,
  NewWebhook,
  Timestamp,
  Webhook,
  WebhookAttempt,
} from '../records/index.ts';
import type { CreateResult, PageRequest, RecordChange, UpdateResult } from '../store/store.ts';
import type { WebhookEndpoint } from '../webhook-sender.ts';
import { MemoryAttempts, recordLastDelivery } from './memory-attempts.ts';
import { changeNow, iso, ms } from './memory-rows.ts';
import type {
  ClaimedDelivery,
  DeliveryClaimRequest,
  DeliveryLease,
  DeliveryOutcome,
  DeliveryState,
  WebhookChange,
  WebhookStore,
} from '../store/webhook-store.ts';

interface StoredWebhook {
  userId: number;
  record: CreatedWebhook;
}

interface Delivery {
  id: number;
  eventId: number;
  webhookId: number;
  attempts: number;
  /** Epoch ms. */
  nextAttemptAt: number;
  state: DeliveryState;
  lease: DeliveryLease | null;
}

function publicWebhook(record: CreatedWebhook): Webhook {
  const { secret: _secret, ...rest } = structuredClone(record);
  return rest;
}

/**
 * The webhooks part of `MemoryStore`: endpoints and their delivery queue, over the store's event
 * outbox (read only). One process, so a plain cursor says which events were fanned out.
 */
export class MemoryWebhooks implements WebhookStore {
  readonly #events: () => readonly MonitoringEvent[];
  readonly #webhooks = new Map<number, StoredWebhook>();
  /** `userId url` → id: the duplicate rule. */
  readonly #index = new Map<string, number>();
  /** In id order, which is event order within an endpoint (events are fanned out in id order). */
  #deliveries: Delivery[] = [];
  /** How many outbox events were fanned out (the outbox only grows). */
  #fannedOut = 0;
  readonly #attempts = new MemoryAttempts<WebhookAttempt>();
  #nextId = { webhook: 1, delivery: 1, lease: 1 };

  constructor(events: () => readonly MonitoringEvent[]) {
    this.#events = events;
  }

  async createWebhook(userId: number, webhook: NewWebhook): Promise<CreateResult<CreatedWebhook>> {
    const identity = `${userId} ${webhook.url}`;
    const existing = this.#index.get(identity);
    if (existing !== undefined) return { duplicateOf: existing };
    const record: CreatedWebhook = { id: this.#nextId.webhook++, ...structuredClone(webhook) };
    this.#webhooks.set(record.id, { userId, record });
    this.#index.set(identity, record.id);
    return { created: structuredClone(record) };
  }

  async listWebhooks(userId: number, req: PageRequest): Promise<Webhook[]> {
    const out: Webhook[] = [];
    for (const [id, row] of this.#webhooks) {
      if (id <= req.afterId || row.userId !== userId) continue;
      out.push(publicWebhook(row.record));
      if (out.length >= req.limit) break;
    }
    return out;
  }

  async getWebhook(userId: number, id: number): Promise<Webhook | undefined> {
    const row = this.#webhooks.get(id);
    return row?.userId === userId ? publicWebhook(row.record) : undefined;
  }

  async updateWebhook(
    userId: number,
    id: number,
    change: RecordChange<Webhook, WebhookChange>,
  ): Promise<UpdateResult<CreatedWebhook>> {
    const row = this.#webhooks.get(id);
    if (!row || row.userId !== userId) return undefined;
    const now = changeNow(publicWebhook(row.record), change);
    if (now === 'stale') return { stale: true };
    if (now === 'unchanged') return { updated: structuredClone(row.record) };
    const { to } = now;
    const next = structuredClone(row.record);
    Object.assign(next, { url: to.url, events: [...to.events], is_enabled: to.is_enabled });
    if (to.secret !== undefined) next.secret = to.secret;
    const holder = this.#index.get(`${userId} ${next.url}`);
    if (holder !== undefined && holder !== id) return { duplicateOf: holder };
    this.#index.delete(`${userId} ${row.record.url}`);
    this.#index.set(`${userId} ${next.url}`, id);
    row.record = next;
    return { updated: structuredClone(next) };
  }

  async deleteWebhook(userId: number, id: number): Promise<boolean> {
    const row = this.#webhooks.get(id);
    if (!row || row.userId !== userId) return false;
    this.#webhooks.delete(id);
    this.#index.delete(`${userId} ${row.record.url}`);
    this.#deliveries = this.#deliveries.filter((d) => d.webhookId !== id);
    this.#attempts.dropOwner(id);
    return true;
  }

  async listWebhookAttempts(userId: number, id: number, page: ResultsPage): Promise<WebhookAttempt[] | undefined> {
    const row = this.#webhooks.get(id);
    if (!row || row.userId !== userId) return undefined;
    return this.#attempts.newest(id, page);
  }

  async deleteWebhookAttemptsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#attempts.deleteBefore(before, limit);
  }

  async webhookWithSecret(userId: number, id: number): Promise<WebhookEndpoint | undefined> {
    const row = this.#webhooks.get(id);
    if (!row || row.userId !== userId) return undefined;
    return { id: row.record.id, url: row.record.url, secret: row.record.secret };
  }

  async fanOutEvents(now: Timestamp, limit: number): Promise<number> {
    const events = this.#events();
    const batch = events.slice(this.#fannedOut, this.#fannedOut + limit);
    for (const event of batch) {
      for (const { userId, record } of this.#webhooks.values()) {
        if (userId !== event.user_id || !record.is_enabled || !record.events.includes(event.type)) continue;
        if (ms(record.created_at) > ms(event.created_at)) continue;
        this.#deliveries.push({
          id: this.#nextId.delivery++,
          eventId: event.id,
          webhookId: record.id,
          attempts: 0,
          nextAttemptAt: ms(now),
          state: 'pending',
          lease: null,
        });
      }
    }
    this.#fannedOut += batch.length;
    return batch.length;
  }

  async claimDeliveries(claim: DeliveryClaimRequest): Promise<ClaimedDelivery[]> {
    const now = ms(claim.now);
    const heads = new Map<number, Delivery>();
    for (const d of this.#deliveries) {
      if (d.state === 'pending' && !heads.has(d.webhookId)) heads.set(d.webhookId, d);
    }
    const due = [...heads.values()].filter(
      (d) =>
        this.#webhooks.get(d.webhookId)?.record.is_enabled === true &&
        d.nextAttemptAt <= now &&
        (d.lease === null || ms(d.lease.expires_at) <= now),
    );
    due.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
    const events = new Map(this.#events().map((e) => [e.id, e]));
    return due.slice(0, claim.limit).map((d) => {
      d.lease = { id: d.id, token: `w${this.#nextId.lease++}`, owner: claim.owner, expires_at: iso(claim.leaseUntil) };
      const { record } = this.#webhooks.get(d.webhookId)!;
      const event = events.get(d.eventId)!;
      return {
        lease: { ...d.lease },
        attempts: d.attempts,
        webhook: { id: record.id, url: record.url, secret: record.secret },
        event: structuredClone({ id: event.id, type: event.type, created_at: event.created_at, data: event.data }),
      };
    });
  }

  async recordDeliveryAttempt(lease: DeliveryLease, outcome: DeliveryOutcome): Promise<boolean> {
    const d = this.#deliveries.find((x) => x.id === lease.id);
    if (!d || d.lease === null || d.lease.token !== lease.token || d.state !== 'pending') return false;
    d.attempts++;
    d.state = outcome.state;
    d.lease = null;
    if (outcome.state === 'pending') d.nextAttemptAt = ms(outcome.next_attempt_at ?? outcome.attempted_at);
    const webhook = this.#webhooks.get(d.webhookId)?.record;
    const at = iso(outcome.attempted_at);
    const event = this.#events().find((e) => e.id === d.eventId);
    this.#attempts.add(d.webhookId, {
      event_id: d.eventId,
      event_type: event!.type,
      attempt: d.attempts,
      attempted_at: at,
      http_status: outcome.response_status,
      error: outcome.error,
      duration_ms: outcome.duration_ms,
    });
    // Attempts of one endpoint are sequential, but a worker whose lease was taken may still
    // finish late: the newest attempt wins.
    if (webhook) recordLastDelivery(webhook, at, outcome.error, outcome.state === 'delivered');
    return true;
  }
}
