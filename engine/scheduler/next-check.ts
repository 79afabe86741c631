/** How far a next check may move either way, as a share of the interval (docs/engine.md, "Scheduling"). */
export const JITTER = 0.1;

/**
 * When the next check is due: `checkedAt + interval`, moved by up to ±10 % so records created
 * together (a bulk import) spread out instead of being claimed in one lump forever after.
 * `random` is in [0, 1), as Math.random.
 */
export function nextCheckAt(checkedAtMs: number, intervalS: number, random: () => number = Math.random): number {
  const jitter = (random() * 2 - 1) * JITTER;
  return checkedAtMs + Math.round(intervalS * 1000 * (1 + jitter));
}
