// A fixed-bucket histogram of response times, good for a p95 within 5 % (docs/engine.md,
// "Reports"): one bucket per millisecond below EXACT_BELOW, then buckets 4 % wide. A quantile
// read from it is the bucket's geometric middle, at most about 2 % from any value in the bucket,
// and it is kept within the true minimum and maximum. Histograms are sparse (index → count), so
// a steady endpoint's hour holds a handful of buckets, and they add up exactly when merged.

/** Below this many milliseconds every millisecond is its own bucket. */
const EXACT_BELOW = 32;
const RATIO = 1.04;
const LOG_RATIO = Math.log(RATIO);

/** The bucket a response time (whole milliseconds, ≥ 0) falls in. */
export function bucketOf(ms: number): number {
  if (ms < EXACT_BELOW) return Math.max(0, Math.floor(ms));
  return EXACT_BELOW + Math.floor(Math.log(ms / EXACT_BELOW) / LOG_RATIO);
}

/** A value that stands for bucket `index`: the millisecond itself, or the bucket's geometric middle. */
function representative(index: number): number {
  if (index < EXACT_BELOW) return index;
  return EXACT_BELOW * RATIO ** (index - EXACT_BELOW + 0.5);
}

/** Adds `source`'s counts into `target`. */
export function addHistogram(target: Record<number, number>, source: Readonly<Record<number, number>>): void {
  for (const key in source) {
    const index = Number(key);
    target[index] = (target[index] ?? 0) + source[index]!;
  }
}

/**
 * The `q` quantile (0 < q ≤ 1, nearest rank) of the values a histogram counted, in whole
 * milliseconds, kept within [min, max]; null for an empty histogram.
 */
export function quantile(
  histogram: Readonly<Record<number, number>>,
  q: number,
  min: number,
  max: number,
): number | null {
  const indexes = Object.keys(histogram)
    .map(Number)
    .sort((a, b) => a - b);
  let total = 0;
  for (const index of indexes) total += histogram[index]!;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const index of indexes) {
    seen += histogram[index]!;
    if (seen >= rank) return Math.round(Math.min(max, Math.max(min, representative(index))));
  }
  return max;
}
