import { virtualNow } from './clock';

/** How the simulated server answers one request. */
export type ServerOutcome =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly headers?: Record<string, string>;
    }
  /** The TCP connection was refused: nothing was served (axios code ECONNREFUSED). */
  | { readonly kind: 'refused' }
  /** The server dropped the open connection mid-request (axios code ECONNRESET). */
  | { readonly kind: 'reset' };

/** A scripted server: `handle` is called when a request arrives and settles when it answers. */
export interface ServerModel {
  handle(): Promise<ServerOutcome>;
}

function answerAfter(ms: number, outcome: ServerOutcome): Promise<ServerOutcome> {
  return new Promise((resolve) => setTimeout(() => resolve(outcome), ms));
}

export interface WindowedCapacityOptions {
  /** Requests admitted per window; the rest are rejected. */
  readonly capacity: number;
  readonly windowMs: number;
  /** Time to answer, admitted or not. */
  readonly latencyMs: number;
  /** The status of a rejected request (503 overloaded, 429 rate-limited). */
  readonly rejectStatus: number;
  /** Send `Retry-After` (whole seconds until the next window, at least 1) with rejections. */
  readonly sendRetryAfter: boolean;
}

/** Counts arrivals in fixed windows of `windowMs`, as a fixed-window rate limiter does. */
function fixedWindow(windowMs: number): () => { arrival: number; resetSeconds: number } {
  let currentWindow = -1;
  let arrivals = 0;
  return () => {
    const now = virtualNow();
    const window = Math.floor(now / windowMs);
    if (window !== currentWindow) {
      currentWindow = window;
      arrivals = 0;
    }
    arrivals += 1;
    // Whole seconds until the next window, at least 1, as Retry-After and reset headers say it.
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
    return { arrival: arrivals, resetSeconds };
  };
}

/**
 * A server (or rate limiter) that admits the first `capacity` requests of each fixed window,
 * counted at arrival, and rejects the rest.
 */
export function windowedCapacityServer(options: WindowedCapacityOptions): ServerModel {
  const arrive = fixedWindow(options.windowMs);
  return {
    handle() {
      const { arrival, resetSeconds } = arrive();
      if (arrival <= options.capacity) {
        return answerAfter(options.latencyMs, { kind: 'response', status: 200 });
      }
      const headers = options.sendRetryAfter ? { 'retry-after': String(resetSeconds) } : undefined;
      return answerAfter(options.latencyMs, {
        kind: 'response',
        status: options.rejectStatus,
        ...(headers ? { headers } : {}),
      });
    },
  };
}

/** A dependency that answers every request with `status`. */
export function alwaysFailingServer(status: number, latencyMs: number): ServerModel {
  return { handle: () => answerAfter(latencyMs, { kind: 'response', status }) };
}

export interface FailoverOptions {
  readonly latencyMs: number;
  /** When the server goes away: every open connection is reset. */
  readonly downAtMs: number;
  /** When it accepts connections again. */
  readonly upAtMs: number;
  /** How long a refused connection takes to fail. */
  readonly refuseAfterMs: number;
}

/**
 * A healthy server that, at `downAtMs`, resets every open connection and refuses new ones
 * until `upAtMs`.
 */
export function failoverServer(options: FailoverOptions): ServerModel {
  const open = new Set<(outcome: ServerOutcome) => void>();
  setTimeout(() => {
    for (const answer of open) answer({ kind: 'reset' });
    open.clear();
  }, options.downAtMs - virtualNow());
  return {
    handle() {
      const now = virtualNow();
      if (now >= options.downAtMs && now < options.upAtMs) {
        return answerAfter(options.refuseAfterMs, { kind: 'refused' });
      }
      return new Promise((resolve) => {
        const answer = (outcome: ServerOutcome): void => {
          clearTimeout(timer);
          open.delete(answer);
          resolve(outcome);
        };
        const timer = setTimeout(
          () => answer({ kind: 'response', status: 200 }),
          options.latencyMs,
        );
        open.add(answer);
      });
    },
  };
}

/** A dependency that answers 503 (no Retry-After) to a random share of requests, 200 otherwise. */
export function randomFailureServer(options: {
  readonly failureRatio: number;
  readonly latencyMs: number;
  /** The server's own seeded draw, independent of the contestants' jitter. */
  readonly random: () => number;
}): ServerModel {
  return {
    handle: () =>
      answerAfter(options.latencyMs, {
        kind: 'response',
        status: options.random() < options.failureRatio ? 503 : 200,
      }),
  };
}

/** How a quota server spells its rate-limit headers. */
export type RateLimitHeaderStyle = 'draft-7' | 'x-ratelimit';

export interface QuotaOptions {
  /** Requests allowed per window. */
  readonly limit: number;
  readonly windowMs: number;
  readonly latencyMs: number;
  readonly style: RateLimitHeaderStyle;
}

/** The rate-limit headers of one response, as express-rate-limit writes them. */
function rateLimitHeaders(
  style: RateLimitHeaderStyle,
  limit: number,
  remaining: number,
  resetSeconds: number,
): Record<string, string> {
  return style === 'draft-7'
    ? { ratelimit: `limit=${limit}, remaining=${remaining}, reset=${resetSeconds}` }
    : {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(resetSeconds),
      };
}

/**
 * A fixed-window rate limiter that says where the quota stands on every response, 200 and 429
 * alike (as express-rate-limit does): the limit, what is left after this request, and the whole
 * seconds until the window ends. A request past the limit is answered 429 with Retry-After too.
 */
export function quotaServer(options: QuotaOptions): ServerModel {
  const arrive = fixedWindow(options.windowMs);
  return {
    handle() {
      const { arrival: hits, resetSeconds } = arrive();
      const remaining = Math.max(0, options.limit - hits);
      const headers = rateLimitHeaders(options.style, options.limit, remaining, resetSeconds);
      if (hits <= options.limit) {
        return answerAfter(options.latencyMs, { kind: 'response', status: 200, headers });
      }
      return answerAfter(options.latencyMs, {
        kind: 'response',
        status: 429,
        headers: { ...headers, 'retry-after': String(resetSeconds) },
      });
    },
  };
}
