/** One device's kept days: each day's points as JSON, by day number (days since the epoch, UTC). */
interface DeviceDays {
  days: Map<number, string>;
  /**
   * The days [first, end) last answered together, joined by commas as one JSON text: a range asked
   * again (a dashboard's) costs no joining, and its text is one string already.
   */
  run: { first: number; end: number; json: string } | undefined;
  /** What its days and its run count against the bound (see `ClosedDayCache.cost`). */
  size: number;
}

/** What a kept text costs beyond its length: its map slot, its key and the string's own header. */
const DAY_OVERHEAD = 64;

/** Devices kept at most. */
export const CLOSED_DAY_DEVICES = 10_000;
/** All kept texts together, in UTF-16 code units (about bytes for this JSON) plus each one's overhead. */
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

  /** What the kept texts count against the size bound. */
  get size(): number {
    return this.#size;
  }

  /** What keeping `json` costs. */
  static cost(json: string): number {
    return json.length + DAY_OVERHEAD;
  }

  /** The device's entry, marked used: a Map keeps insertion order, and the last is the last to go. */
  #use(deviceId: number): DeviceDays | undefined {
    const entry = this.#devices.get(deviceId);
    if (entry === undefined) return undefined;
    this.#devices.delete(deviceId);
    this.#devices.set(deviceId, entry);
    return entry;
  }

  /** The device's kept days, marking it used; undefined when none is kept. */
  days(deviceId: number): ReadonlyMap<number, string> | undefined {
    return this.#use(deviceId)?.days;
  }

  /** The JSON of the days [first, end) as `setRun` kept it, marking the device used. */
  run(deviceId: number, first: number, end: number): string | undefined {
    const run = this.#use(deviceId)?.run;
    return run !== undefined && run.first === first && run.end === end ? run.json : undefined;
  }

  /** Keeps the device's day number `day`, unless it cannot fit beside the device's other texts. */
  set(deviceId: number, day: number, json: string): void {
    const entry = this.#take(deviceId);
    const old = entry.days.get(day);
    if (old !== undefined) {
      entry.days.delete(day);
      this.#count(entry, -ClosedDayCache.cost(old));
    }
    if (this.#makeRoom(entry, ClosedDayCache.cost(json))) {
      entry.days.set(day, json);
      this.#count(entry, ClosedDayCache.cost(json));
    }
    this.#put(deviceId, entry);
  }

  /** Keeps `json` as the device's days [first, end) joined, in place of the run it kept before. */
  setRun(deviceId: number, first: number, end: number, json: string): void {
    const entry = this.#take(deviceId);
    if (entry.run !== undefined) this.#count(entry, -ClosedDayCache.cost(entry.run.json));
    entry.run = undefined;
    if (this.#makeRoom(entry, ClosedDayCache.cost(json))) {
      entry.run = { first, end, json };
      this.#count(entry, ClosedDayCache.cost(json));
    }
    this.#put(deviceId, entry);
  }

  /** The device's entry, out of the map until `#put` puts it back as the one used last. */
  #take(deviceId: number): DeviceDays {
    const entry = this.#devices.get(deviceId);
    this.#devices.delete(deviceId);
    return entry ?? { days: new Map(), run: undefined, size: 0 };
  }

  #put(deviceId: number, entry: DeviceDays): void {
    if (entry.days.size > 0 || entry.run !== undefined) this.#devices.set(deviceId, entry);
  }

  #count(entry: DeviceDays, cost: number): void {
    entry.size += cost;
    this.#size += cost;
  }

  /**
   * Makes room for `cost` more of `entry` (taken out of the map): other devices go, the one used
   * longest ago first, until it fits and the device count allows it. False, and nothing goes, when
   * it cannot fit beside the entry's own texts.
   */
  #makeRoom(entry: DeviceDays, cost: number): boolean {
    if (entry.size + cost > this.#maxBytes) return false;
    for (const [id, other] of this.#devices) {
      if (this.#size + cost <= this.#maxBytes && this.#devices.size < this.#maxDevices) break;
      this.#devices.delete(id);
      this.#size -= other.size;
    }
    return true;
  }
}
