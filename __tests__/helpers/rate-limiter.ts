import type http from 'node:http';
import { type Arrival, type LoopbackServer, startServer } from './loopback-server';

/** How a limiter announces its quota on every response (besides the 429 itself). */
export type QuotaHeaders = 'none' | 'draft-7' | 'x-ratelimit' | 'draft-8';

export interface LimiterOptions {
  /** Requests served per window. */
  readonly limit: number;
  readonly windowMs: number;
  /** Send `Retry-After` (whole seconds to the end of the window) with each 429. */
  readonly retryAfter: boolean;
  readonly headers?: QuotaHeaders;
}

export interface Answer {
  readonly at: number;
  /** The window the request fell in, counted from the first request (0-based). */
  readonly window: number;
  readonly status: number;
}

export interface RateLimitedServer extends LoopbackServer {
  readonly answers: Answer[];
  /** 429s per window, from the first request's window. */
  rejectedPerWindow(): number[];
}

/**
 * A fixed-window limiter on 127.0.0.1: `limit` requests per `windowMs` (windows counted from the
 * first request), 429 to the rest, with or without `Retry-After`, and optionally announcing the
 * quota on every response in one of the rate-limit header forms.
 */
export async function startRateLimiter(options: LimiterOptions): Promise<RateLimitedServer> {
  const { limit, windowMs, retryAfter, headers = 'none' } = options;
  const answers: Answer[] = [];
  let origin: number | undefined;
  const served = new Map<number, number>();

  function quotaHeaders(remaining: number, resetSeconds: number): http.OutgoingHttpHeaders {
    switch (headers) {
      case 'draft-7':
        return { RateLimit: `limit=${limit}, remaining=${remaining}, reset=${resetSeconds}` };
      case 'x-ratelimit':
        return {
          'X-RateLimit-Limit': String(limit),
          'X-RateLimit-Remaining': String(remaining),
          'X-RateLimit-Reset': String(resetSeconds),
        };
      case 'draft-8':
        return {
          'RateLimit-Policy': `"default";q=${limit};w=${Math.ceil(windowMs / 1000)}`,
          RateLimit: `"default";r=${remaining};t=${resetSeconds}`,
        };
      default:
        return {};
    }
  }

  const server = await startServer((arrival: Arrival, res) => {
    origin ??= arrival.at;
    const window = Math.floor((arrival.at - origin) / windowMs);
    const windowEnd = origin + (window + 1) * windowMs;
    // Whole seconds, rounded up: a client that waits this long finds the next window open.
    const resetSeconds = Math.max(1, Math.ceil((windowEnd - arrival.at) / 1000));
    const used = served.get(window) ?? 0;
    if (used < limit) {
      served.set(window, used + 1);
      answers.push({ at: arrival.at, window, status: 200 });
      res.writeHead(200, quotaHeaders(limit - used - 1, resetSeconds)).end('ok');
      return;
    }
    answers.push({ at: arrival.at, window, status: 429 });
    res
      .writeHead(429, {
        ...quotaHeaders(0, resetSeconds),
        ...(retryAfter ? { 'Retry-After': String(resetSeconds) } : {}),
      })
      .end();
  });

  return {
    ...server,
    answers,
    rejectedPerWindow() {
      const last = answers.reduce((max, a) => Math.max(max, a.window), 0);
      const counts = new Array<number>(last + 1).fill(0);
      for (const a of answers) if (a.status === 429) counts[a.window]!++;
      return counts;
    },
  };
}
