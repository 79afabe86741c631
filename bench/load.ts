import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  seconds?: number;
  connections?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A new body for every request (creates must not repeat, or they measure 409s). */
  body?: () => string;
  /** Answers with another status are counted as errors and make the figure 0. Default 200. */
  expectStatus?: number;
}

/** Requests per second that were answered with the expected status, over the whole run. */
export async function measure(options: LoadOptions): Promise<number> {
  const expected = options.expectStatus ?? 200;
  let good = 0;
  let bad = 0;
  const makeBody = options.body;
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 32,
    duration: options.seconds ?? 3,
    method: options.method ?? 'GET',
    headers: options.headers,
    requests: [{
      ...(makeBody ? { setupRequest: (request: autocannon.Request) => ({ ...request, body: makeBody() }) } : {}),
      onResponse: (status: number) => {
        if (status === expected) good++;
        else bad++;
      },
    }],
  });
  if (bad > 0 || result.errors > 0) throw new Error(`${options.url}: ${bad} answers were not ${expected}, ${result.errors} errors`);
  return good / (result.duration || options.seconds || 1);
}
