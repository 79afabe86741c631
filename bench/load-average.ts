import { loadavg } from 'node:os';

/** The machine's one-minute load average, as each figure is printed with it: other work moves the figures. */
export const loadNow = () => `load ${loadavg()[0]!.toFixed(1)}`;
