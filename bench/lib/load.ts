/**
 * One load run with autocannon: keep-alive connections, one request in flight per connection,
 * for a fixed number of requests or a fixed time. Every response time is kept, so the
 * percentiles are exact rather than autocannon's fixed buckets (which have no p95).
 */
import autocannon from "autocannon";

export interface HttpRequestSpec {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

/** Stop after `amount` requests, or after `seconds`. */
export type LoadLimit = { amount: number } | { seconds: number };

export interface LoadResult {
  /** Response times in ms, one per completed request. */
  latencies: number[];
  /** Completed requests per second over the run. */
  throughput: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/**
 * Runs `specs` (one request, or several on the same origin that each connection sends in
 * turn, for a mixed load) over `connections` connections.
 */
export function runLoad(
  specs: HttpRequestSpec | HttpRequestSpec[],
  connections: number,
  limit: LoadLimit,
): Promise<LoadResult> {
  const list = Array.isArray(specs) ? specs : [specs];
  const first = list[0];
  const origin = new URL(first.url).origin;
  if (list.some((spec) => new URL(spec.url).origin !== origin)) {
    throw new Error("runLoad: a mixed load must target one origin");
  }
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const started = performance.now();
    const instance = autocannon(
      {
        url: list.length === 1 ? first.url : origin,
        method: first.method,
        headers: first.headers,
        body: first.body,
        requests:
          list.length === 1
            ? undefined
            : list.map((spec) => {
                const url = new URL(spec.url);
                return {
                  method: spec.method,
                  path: url.pathname + url.search,
                  headers: spec.headers,
                  body: spec.body,
                };
              }),
        connections,
        pipelining: 1,
        timeout: 30,
        ...("amount" in limit ? { amount: limit.amount } : { duration: limit.seconds }),
      },
      (error, result) => {
        if (error) return reject(error);
        const seconds = (performance.now() - started) / 1000;
        resolve({
          latencies,
          throughput: latencies.length / seconds,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
        });
      },
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
    });
  });
}
