import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  seconds?: number;
  connections?: number;
  method?: 'GET' | 'POST' | 'PATCH';
  /** A new path (and query) for every request, e.g. to spread changes over many records. */
  path?: () => string;
  headers?: Record<string, string>;
  /** A new body for every request (creates must not repeat, or they measure 409s). */
  body?: () => string;
  /** Answers with another status are counted as errors and make the figure 0. Default 200. */
  expectStatus?: number;
  /** How often autocannon looks at the clock (its default 1000 ms): a run ends on the first look
   *  after `seconds`. The smoke run looks often, so its runs of a fraction of a second last that. */
  tickMs?: number;
  /** Ends the run after this many requests instead of after `seconds` (the smoke run's few). */
  requests?: number;
}

export interface Measured {
  /** Requests answered with the expected status, per second of the whole run. */
  perSecond: number;
  /** How many were answered: autocannon stops on its next one-second tick, so a run of 1.5 s
   *  lasts about 2, and `perSecond × seconds` would undercount the work done. */
  requests: number;
}

/** Loads one URL for about `seconds` and counts the answers with the expected status. */
export async function measure(options: LoadOptions): Promise<Measured> {
  const expected = options.expectStatus ?? 200;
  let good = 0;
  let bad = 0;
  const makeBody = options.body;
  const makePath = options.path;
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 32,
    duration: options.seconds ?? 3,
    method: options.method ?? 'GET',
    headers: options.headers,
    ...(options.tickMs === undefined ? {} : { sampleInt: options.tickMs }),
    ...(options.requests === undefined ? {} : { amount: options.requests }),
    requests: [
      {
        ...(makeBody || makePath
          ? {
              setupRequest: (request: autocannon.Request) => ({
                ...request,
                ...(makeBody ? { body: makeBody() } : {}),
                ...(makePath ? { path: makePath() } : {}),
              }),
            }
          : {}),
        onResponse: (status: number) => {
          if (status === expected) good++;
          else bad++;
        },
      },
    ],
  });
  if (bad > 0 || result.errors > 0)
    throw new Error(`${options.url}: ${bad} answers were not ${expected}, ${result.errors} errors`);
  return { perSecond: good / (result.duration || options.seconds || 1), requests: good };
}
