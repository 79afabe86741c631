import { readFileSync } from 'node:fs';

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/**
 * Fetches a whole list, reading it as it streams, while sampling the server's resident memory:
 * the growth over its level before the request is what the list cost the server.
 */
export async function streamedList(
  url: string,
  token: string,
  serverPid: number,
): Promise<{ records: number; ms: number; rssGrowth: number }> {
  const before = rssBytes(serverPid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(serverPid))), 10);
  const started = performance.now();
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    const ms = performance.now() - started;
    const records = (JSON.parse(text) as { data: unknown[] }).data.length;
    return { records, ms, rssGrowth: Math.max(0, peak - before) };
  } finally {
    clearInterval(sampler);
  }
}
