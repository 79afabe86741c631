/**
 * The median of a list of figures (the mean of the middle two for an even count): what every
 * comparison of rounds reports (bench/api/compare.ts, bench/engine-pairs.ts), so that one slow or
 * fast round on a shared machine does not move it.
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
