/** One device's kept days: each day's points as JSON, by day number (days since the epoch, UTC). */
interface DeviceDays {
  days: Map<number, string>;
  /** What its days count against the bound (see `ClosedDayCache.cost`). */
  size: number;
}

/** What a kept day costs beyond its JSON: its map slot, its key and the string's own header. */
const DAY_OVERHEAD = 64;

/** Devices kept at most. */
export const CLOSED_DAY_DEVICES = 10_000;
/** All kept days together, in UTF-16 code units (about bytes for this JSON) plus each day's overhead. */
export const CLOSED_DAY_BYTES = 32 * 1024 * 1024;

/**
 * The response-time series' closed UTC days, per device, as the JSON of their points: the points of
 * a day written by `JSON.stringify` and joined by commas, '' for a day without points. A closed day
 * is one whose daily rollup rows are final (ReportStore.closedSeriesDays): rolled up once, it never
 * changes, so an entry needs no invalidation. Whether a kept day may still be answered (the device
 * is still the caller's, the retention has not removed the day) is the caller's to ask the store
 * on every request. Bounded in devices and in size; the device used longest ago goes first.
 */
export class ClosedDayCache {
  readonly #devices = new Map<number, DeviceDays>();
  #size = 0;
  readonly #maxDevices: number;
  readonly #maxBytes: number;

  constructor(maxDevices = CLOSED_DAY_DEVICES, maxBytes = CLOSED_DAY_BYTES) {
    this.#maxDevices = maxDevices;
    this.#maxBytes = maxBytes;
  }

  /** What the kept days count against the size bound. */
  get size(): number {
    return this.#size;
  }

  /** What keeping `json` as a day costs. */
  static cost(json: string): number {
    return json.length + DAY_OVERHEAD;
  }

  /** The device's kept days, marking it used; undefined when none is kept. */
  days(deviceId: number): ReadonlyMap<number, string> | undefined {
    const entry = this.#devices.get(deviceId);
    if (entry === undefined) return undefined;
    // A Map keeps insertion order: moved to the end, the device is the last to go.
    this.#devices.delete(deviceId);
    this.#devices.set(deviceId, entry);
    return entry.days;
  }

  /** Keeps the device's day number `day`, unless it cannot fit beside the device's other days. */
  set(deviceId: number, day: number, json: string): void {
    const cost = ClosedDayCache.cost(json);
    const entry = this.#devices.get(deviceId) ?? { days: new Map<number, string>(), size: 0 };
    this.#devices.delete(deviceId);
    const old = entry.days.get(day);
    if (old !== undefined) {
      entry.days.delete(day);
      entry.size -= ClosedDayCache.cost(old);
      this.#size -= ClosedDayCache.cost(old);
    }
    if (entry.size + cost <= this.#maxBytes) {
      // Other devices go, the one used longest ago first, until the day and the device fit.
      for (const [id, other] of this.#devices) {
        if (this.#size + cost <= this.#maxBytes && this.#devices.size < this.#maxDevices) break;
        this.#devices.delete(id);
        this.#size -= other.size;
      }
      entry.days.set(day, json);
      entry.size += cost;
      this.#size += cost;
    }
    if (entry.days.size > 0) this.#devices.set(deviceId, entry);
  }
}
