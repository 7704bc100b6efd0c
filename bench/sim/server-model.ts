import { VIRTUAL_EPOCH, virtualNow } from './clock';

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

/** What the server is told of a request. */
export interface ServerRequest {
  /** The request path, without the query. */
  readonly path: string;
  /** The call it belongs to (the bench's `x-bench-call` header), if the request carried one. */
  readonly callId?: number;
}

/**
 * A scripted server: `handle` is called when a request arrives and settles when it answers.
 * Models that do not route by path ignore the request.
 */
export interface ServerModel {
  handle(request: ServerRequest): Promise<ServerOutcome>;
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

/** Where a fixed window's boundaries fall. */
export type WindowStart =
  /** Windows of `windowMs` from t = 0 (0, windowMs, 2·windowMs, …): a limiter on a global tick. */
  | 'aligned'
  /**
   * A window opens at the first arrival after the last one ended and lasts `windowMs`, as
   * express-rate-limit's MemoryStore keeps a client's `resetTime`: boundaries fall on no whole
   * second in particular.
   */
  | 'first-hit';

/** One arrival as a fixed-window counter saw it. */
interface WindowArrival {
  /** This arrival's rank in its window, from 1. */
  readonly arrival: number;
  /** When the window ends, in virtual ms. */
  readonly resetAtMs: number;
  /** Whole seconds until the window ends, at least 1, as Retry-After and reset headers say it. */
  readonly resetSeconds: number;
}

/** Counts arrivals in fixed windows of `windowMs`, as a fixed-window rate limiter does. */
function fixedWindow(windowMs: number, start: WindowStart = 'aligned'): () => WindowArrival {
  let windowEndMs = Number.NEGATIVE_INFINITY;
  let arrivals = 0;
  return () => {
    const now = virtualNow();
    if (now >= windowEndMs) {
      windowEndMs =
        start === 'aligned' ? (Math.floor(now / windowMs) + 1) * windowMs : now + windowMs;
      arrivals = 0;
    }
    arrivals += 1;
    const resetSeconds = Math.max(1, Math.ceil((windowEndMs - now) / 1000));
    return { arrival: arrivals, resetAtMs: windowEndMs, resetSeconds };
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

/** A healthy, unlimited dependency: 200 to everything, in `latencyMs`. */
export function healthyServer(latencyMs: number): ServerModel {
  return alwaysFailingServer(200, latencyMs);
}

/**
 * Routes each request by its path to the model of that path, so that one origin can have a
 * broken route, a limited one and healthy ones. Several paths may share one model (an API-wide
 * limiter). A path with no model is answered 404 in `unknownLatencyMs`.
 */
export function routedServer(
  routes: Readonly<Record<string, ServerModel>>,
  unknownLatencyMs = 1,
): ServerModel {
  return {
    handle(request) {
      const model = routes[request.path];
      return model
        ? model.handle(request)
        : answerAfter(unknownLatencyMs, { kind: 'response', status: 404 });
    },
  };
}

export interface LeakyBucketOptions {
  /** The drain rate (nginx `rate=`), requests per second. */
  readonly ratePerSecond: number;
  /** Requests queued beyond the rate before rejecting (nginx `burst=`). */
  readonly burst: number;
  /** Time to answer once the request leaves the queue; a rejection takes as long. */
  readonly latencyMs: number;
  /** The status of a rejected request: nginx's default `limit_req_status` is 503; 429 is common. */
  readonly rejectStatus: number;
}

/**
 * nginx `limit_req zone=… rate=R burst=B` WITHOUT `nodelay`, for one key (ngx_http_limit_req_module):
 * `excess` (in requests) drains at R per second; each arrival computes
 * `excess' = max(0, excess − R·elapsed + 1)`. If `excess' > B` the request is rejected at once
 * (state unchanged, no Retry-After); otherwise `excess = excess'` and the request is delayed
 * `excess / R` seconds before it is served (the first request into an empty bucket: no delay).
 * So a burst of N requests gets 1 + B through, spaced 1/R apart, and the rest rejected.
 */
export function leakyBucketServer(options: LeakyBucketOptions): ServerModel {
  let excess = 0;
  let lastMs: number | undefined;
  return {
    handle() {
      const now = virtualNow();
      const next =
        lastMs === undefined
          ? 0
          : Math.max(0, excess - (options.ratePerSecond * (now - lastMs)) / 1000 + 1);
      if (next > options.burst) {
        return answerAfter(options.latencyMs, { kind: 'response', status: options.rejectStatus });
      }
      excess = next;
      lastMs = now;
      const queuedMs = (excess * 1000) / options.ratePerSecond;
      return answerAfter(queuedMs + options.latencyMs, { kind: 'response', status: 200 });
    },
  };
}

/**
 * `inner` behind an ingress that takes one request every `gapMs`, first come first served: a
 * slow network, or a server that accepts one connection at a time. A burst reaches `inner`
 * spread out, long after it was sent.
 */
export function slowIngress(inner: ServerModel, gapMs: number): ServerModel {
  let free = 0;
  return {
    async handle(request) {
      const at = Math.max(virtualNow(), free);
      free = at + gapMs;
      if (at > virtualNow()) await new Promise((resolve) => setTimeout(resolve, at - virtualNow()));
      return inner.handle(request);
    },
  };
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

/**
 * A dependency that answers `status` (503 unless said; no Retry-After, no other header) to a
 * random share of requests, 200 otherwise.
 */
export function randomFailureServer(options: {
  readonly failureRatio: number;
  readonly latencyMs: number;
  /** The server's own seeded draw, independent of the contestants' jitter. */
  readonly random: () => number;
  /** The status of a failed request: 503 (the default), or 429 for a limiter that trips at random. */
  readonly status?: number;
}): ServerModel {
  const failure = options.status ?? 503;
  return {
    handle: () =>
      answerAfter(options.latencyMs, {
        kind: 'response',
        status: options.random() < options.failureRatio ? failure : 200,
      }),
  };
}

/**
 * How a quota server spells its rate-limit headers:
 * - `draft-7`: `RateLimit: limit=L, remaining=R, reset=S` (S = whole seconds until the window ends);
 * - `x-ratelimit`: `X-RateLimit-Limit/-Remaining/-Reset`, the reset in delta seconds S;
 * - `express-legacy`: express-rate-limit's `legacyHeaders: true` exactly: `X-RateLimit-Limit`,
 *   `X-RateLimit-Remaining`, `X-RateLimit-Reset` = the window's end in epoch SECONDS rounded up
 *   (`Math.ceil(resetTime / 1000)`), and a `Date` header (`new Date().toUTCString()`: the server's
 *   wall clock, truncated to the whole second);
 * - `express-draft-7`: express-rate-limit's `standardHeaders: 'draft-7'` exactly:
 *   `RateLimit-Policy: L;w=W` and `RateLimit: limit=L, remaining=R, reset=S`.
 * The wall clock is the simulation's virtual one (`Date` is faked), shared by client and server.
 */
export type RateLimitHeaderStyle = 'draft-7' | 'x-ratelimit' | 'express-legacy' | 'express-draft-7';

export interface QuotaOptions {
  /** Requests allowed per window. */
  readonly limit: number;
  readonly windowMs: number;
  readonly latencyMs: number;
  readonly style: RateLimitHeaderStyle;
  /** Where windows start: on a global tick from t = 0 (the default) or at a client's first hit. */
  readonly windowStart?: WindowStart;
}

/** The rate-limit headers of one response, as express-rate-limit writes them. */
function rateLimitHeaders(
  options: QuotaOptions,
  remaining: number,
  window: WindowArrival,
): Record<string, string> {
  const { limit, style } = options;
  const { resetSeconds } = window;
  switch (style) {
    case 'draft-7':
      return { ratelimit: `limit=${limit}, remaining=${remaining}, reset=${resetSeconds}` };
    case 'express-draft-7':
      return {
        'ratelimit-policy': `${limit};w=${Math.ceil(options.windowMs / 1000)}`,
        ratelimit: `limit=${limit}, remaining=${remaining}, reset=${resetSeconds}`,
      };
    case 'x-ratelimit':
      return {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(resetSeconds),
      };
    case 'express-legacy':
      return {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(remaining),
        date: new Date().toUTCString(),
        'x-ratelimit-reset': String(Math.ceil((VIRTUAL_EPOCH + window.resetAtMs) / 1000)),
      };
  }
}

/**
 * A fixed-window rate limiter that says where the quota stands on every response, 200 and 429
 * alike (as express-rate-limit does): the limit, what is left after this request, and when the
 * window ends. A request past the limit is answered 429 with `Retry-After` (whole seconds until
 * the window ends, at least 1) too, as express-rate-limit does with either kind of header.
 */
export function quotaServer(options: QuotaOptions): ServerModel {
  const arrive = fixedWindow(options.windowMs, options.windowStart);
  return {
    handle() {
      const window = arrive();
      const hits = window.arrival;
      const remaining = Math.max(0, options.limit - hits);
      const headers = rateLimitHeaders(options, remaining, window);
      if (hits <= options.limit) {
        return answerAfter(options.latencyMs, { kind: 'response', status: 200, headers });
      }
      return answerAfter(options.latencyMs, {
        kind: 'response',
        status: 429,
        headers: { ...headers, 'retry-after': String(window.resetSeconds) },
      });
    },
  };
}
