import type { ResultsPage } from './monitoring-store.ts';
import type {
  CreatedWebhook,
  MonitoringEvent,
  NewWebhook,
  Timestamp,
  Webhook,
  WebhookAttempt,
} from '../records/index.ts';
import type { WebhookEndpoint } from '../webhook-sender.ts';
import type { CreateResult, PageRequest, RecordChange, UpdateResult } from './store-calls.ts';

/**
 * What webhooks need of a store (docs/engine.md, "Events and webhooks"): the v1 resource, and the
 * delivery queue the dispatcher works through. `Store` extends it.
 *
 * The queue holds one delivery per event and endpoint. Events reach it by `fanOutEvents`, which
 * the dispatcher calls before it claims: the engine only writes the outbox, and stays unaware of
 * webhooks. Deliveries to one endpoint go out in event order: only the oldest pending delivery of
 * an endpoint can be claimed, so a later event waits while an earlier one is retried.
 */
export interface WebhookStore extends WebhookDeliveryStore {
  /** Duplicates (same user and url) are decided by the store, as for devices. */
  createWebhook(userId: number, webhook: Omit<CreatedWebhook, 'id'>): Promise<CreateResult<CreatedWebhook>>;
  /** Without secrets, ascending by id. */
  listWebhooks(userId: number, page: PageRequest): Promise<Webhook[]>;
  /** Without its secret; undefined when the webhook does not exist or belongs to another user. */
  getWebhook(userId: number, id: number): Promise<Webhook | undefined>;
  /**
   * Changes a webhook as `updateDevice` changes a device (its effect is always `none`); a
   * `to.secret` replaces the signing secret. The answer carries the secret.
   */
  updateWebhook(
    userId: number,
    id: number,
    change: RecordChange<Webhook, WebhookChange>,
  ): Promise<UpdateResult<CreatedWebhook>>;
  /** False when the webhook does not exist or belongs to another user. Its deliveries go with it. */
  deleteWebhook(userId: number, id: number): Promise<boolean>;
  /**
   * A webhook's delivery attempts, newest first, below `beforeId` when given; undefined when the
   * webhook does not exist or is another user's.
   */
  listWebhookAttempts(userId: number, id: number, page: ResultsPage): Promise<WebhookAttempt[] | undefined>;
  /** A user's webhook with its secret, to sign a test event with; undefined as for a list of attempts. */
  webhookWithSecret(userId: number, id: number): Promise<WebhookEndpoint | undefined>;
}

/** A webhook as a change leaves it: its secret only when the change replaces it. */
export type WebhookChange = Omit<NewWebhook, 'secret'> & { secret?: string };

/** The delivery queue: what the engine's webhook dispatcher needs of a store. */
export interface WebhookDeliveryStore {
  /**
   * Turns outbox events not yet fanned out into deliveries, at most `limit` events: one delivery
   * for each enabled webhook of the event's user that subscribes to its type and existed when the
   * event happened (`created_at` at or before the event's), due at `now`. Idempotent, and safe
   * to call from several workers at once. Answers how many events it handled.
   */
  fanOutEvents(now: Timestamp, limit: number): Promise<number>;

  /**
   * Leases up to `claim.limit` deliveries that are due at `claim.now`, each the oldest pending
   * one of its (enabled) endpoint, and not leased or whose lease ran out. No two concurrent
   * claims get the same delivery.
   */
  claimDeliveries(claim: DeliveryClaimRequest): Promise<ClaimedDelivery[]>;

  /**
   * Writes an attempt's outcome, a row of its attempts, and the endpoint's `last_delivery_*` and
   * `failing_since`, only while `lease` is still the delivery's; false (nothing written) otherwise.
   */
  recordDeliveryAttempt(lease: DeliveryLease, outcome: DeliveryOutcome): Promise<boolean>;

  /**
   * Deletes at most `limit` attempts that ended before `before` (their `attempted_at`), oldest
   * (smallest id) first, and says how many: the engine's retention sweep expires them with the
   * raw results (docs/engine.md, "Scheduling"). A delivery keeps its count of attempts, so the
   * next attempt is numbered as before. Optional: an engine on a store without it keeps every
   * attempt.
   */
  deleteWebhookAttemptsBefore?(before: Timestamp, limit: number): Promise<number>;
}

export interface DeliveryClaimRequest {
  owner: string;
  now: Timestamp;
  limit: number;
  leaseUntil: Timestamp;
}

export interface DeliveryLease {
  /** The delivery's id. */
  id: number;
  /** Unique to one claim. */
  token: string;
  owner: string;
  expires_at: Timestamp;
}

/** What a worker needs to make one attempt. */
export interface ClaimedDelivery {
  lease: DeliveryLease;
  /** Attempts made before this one. */
  attempts: number;
  webhook: { id: number; url: string; secret: string };
  event: Pick<MonitoringEvent, 'id' | 'type' | 'created_at' | 'data'>;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryOutcome {
  /** When the attempt ended. */
  attempted_at: Timestamp;
  /** `delivered`: a 2xx came back. `pending`: retry at `next_attempt_at`. `failed`: given up. */
  state: DeliveryState;
  /** Required when `state` is `pending`. */
  next_attempt_at: Timestamp | null;
  /** The HTTP status answered, if any. */
  response_status: number | null;
  /** Why it failed (`timeout`, `forbidden_address`, `http_500`, `ECONNREFUSED`, ...); null when delivered. */
  error: string | null;
  /** How long the attempt took, connecting included, in whole milliseconds. */
  duration_ms: number;
}
