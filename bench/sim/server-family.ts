// The servers of the "never worse than off" search (issue 21): one plain description (printable,
// shrinkable) of what a third-party server does, and the model that does it in virtual time.
import { VIRTUAL_EPOCH, virtualNow } from './clock';
import { mulberry32 } from './prng';
import type { ServerModel, ServerOutcome, ServerRequest } from './server-model';

export type Algorithm = 'fixed' | 'sliding' | 'token' | 'leaky' | 'concurrency';

export interface LimiterSpec {
  readonly algorithm: Algorithm;
  /** Requests per second it lets through (concurrency: requests in flight at once). */
  readonly rate: number;
  /** The window of a fixed or sliding limiter; its quota is `rate × windowMs / 1000`. */
  readonly windowMs: number;
  /** A token bucket's size, or what a leaky bucket queues beyond its rate (nginx `burst=`). */
  readonly burst: number;
  /** Fixed windows only: from t = 0 on a global tick, or from a client's first hit. */
  readonly aligned: boolean;
}

/**
 * How a limited request is answered and what each response of the limited paths says:
 * - `none`: no header; `retry-after`: seconds; `retry-after-date`: an HTTP date;
 * - `draft-6`: `RateLimit-Limit/-Remaining/-Reset`; `draft-7`: `RateLimit: limit=, remaining=,
 *   reset=`; `draft-8`: `RateLimit: "q";r=;t=`; `x-ratelimit`: delta-seconds reset;
 *   `express-legacy`: epoch-seconds reset with `Date`; `github`: epoch reset and
 *   `X-RateLimit-Resource` (403 with remaining 0, as GitHub's primary limit);
 * the dialects send `Retry-After` on the rejection too, as express-rate-limit does.
 */
export type HeaderStyle =
  | 'none'
  | 'retry-after'
  | 'retry-after-date'
  | 'draft-6'
  | 'draft-7'
  | 'draft-8'
  | 'x-ratelimit'
  | 'express-legacy'
  | 'github';

export interface ServerSpec {
  /** `undefined`: the server has no limiter. */
  readonly limiter?: LimiterSpec | undefined;
  /** Which routes the limiter counts: the first one, the first half, or all of them. */
  readonly mount: 'route' | 'prefix' | 'origin';
  readonly status: 429 | 503;
  readonly headers: HeaderStyle;
  /** The dialects only: `RateLimit-Policy` on each response of the limited routes. */
  readonly policy: boolean;
  /** Random rejections without any header, of any route, at this share of attempts. */
  readonly noise: { readonly ratio: number; readonly status: 429 | 503 };
  readonly outage?:
    | { readonly kind: 'refused' | '503'; readonly atMs: number; readonly forMs: number }
    | undefined;
  /** Time to answer: `baseMs`, or `tailMs` for a `tailRatio` share of attempts. */
  readonly latency: {
    readonly baseMs: number;
    readonly tailMs: number;
    readonly tailRatio: number;
  };
  /** The server's own draws (which attempts the noise and the tail hit). */
  readonly seed: number;
}

/** What the limiter says of one arrival. */
interface Verdict {
  readonly admitted: boolean;
  /** Requests left after this one (the dialects report it). */
  readonly remaining: number;
  /** Milliseconds until a rejected request would be let through, or the window ends. */
  readonly resetMs: number;
  /** Extra time the request waits in the limiter's queue before it is served (leaky bucket). */
  readonly queuedMs: number;
  /** Concurrency only: called when the request is answered. */
  readonly done?: () => void;
}

type Limiter = (now: number) => Verdict;

/** Its quota per window (fixed and sliding): at least one request. */
export const quotaOf = (l: LimiterSpec): number =>
  Math.max(1, Math.floor((l.rate * l.windowMs) / 1000));

function fixedWindow(l: LimiterSpec): Limiter {
  let end = Number.NEGATIVE_INFINITY;
  let count = 0;
  const quota = quotaOf(l);
  return (now) => {
    if (now >= end) {
      end = l.aligned ? (Math.floor(now / l.windowMs) + 1) * l.windowMs : now + l.windowMs;
      count = 0;
    }
    const admitted = count < quota;
    if (admitted) count += 1;
    return { admitted, remaining: quota - count, resetMs: end - now, queuedMs: 0 };
  };
}

function slidingLog(l: LimiterSpec): Limiter {
  const log: number[] = [];
  const quota = quotaOf(l);
  return (now) => {
    while (log.length && (log[0] ?? 0) <= now - l.windowMs) log.shift();
    const admitted = log.length < quota;
    if (admitted) log.push(now);
    const resetMs = (log[0] ?? now) + l.windowMs - now;
    return { admitted, remaining: quota - log.length, resetMs, queuedMs: 0 };
  };
}

function tokenBucket(l: LimiterSpec): Limiter {
  const size = Math.max(1, l.burst);
  let tokens = size;
  let last = 0;
  return (now) => {
    tokens = Math.min(size, tokens + ((now - last) * l.rate) / 1000);
    last = now;
    const admitted = tokens >= 1;
    if (admitted) tokens -= 1;
    const resetMs = tokens >= 1 ? 0 : ((1 - tokens) * 1000) / l.rate;
    return { admitted, remaining: Math.floor(tokens), resetMs, queuedMs: 0 };
  };
}

/** nginx `limit_req rate=R burst=B` without `nodelay` (see `leakyBucketServer`). */
function leakyBucket(l: LimiterSpec): Limiter {
  let excess = 0;
  let last: number | undefined;
  return (now) => {
    const next = last === undefined ? 0 : Math.max(0, excess - (l.rate * (now - last)) / 1000 + 1);
    if (next > l.burst) {
      const resetMs = ((next - l.burst) * 1000) / l.rate;
      return { admitted: false, remaining: 0, resetMs, queuedMs: 0 };
    }
    excess = next;
    last = now;
    const remaining = Math.floor(l.burst - excess);
    return { admitted: true, remaining, resetMs: 0, queuedMs: (excess * 1000) / l.rate };
  };
}

function concurrency(l: LimiterSpec): Limiter {
  const max = Math.max(1, Math.round(l.rate));
  let inFlight = 0;
  return () => {
    if (inFlight >= max) return { admitted: false, remaining: 0, resetMs: 1000, queuedMs: 0 };
    inFlight += 1;
    const done = (): void => {
      inFlight -= 1;
    };
    return { admitted: true, remaining: max - inFlight, resetMs: 0, queuedMs: 0, done };
  };
}

const LIMITERS: Record<Algorithm, (l: LimiterSpec) => Limiter> = {
  fixed: fixedWindow,
  sliding: slidingLog,
  token: tokenBucket,
  leaky: leakyBucket,
  concurrency,
};

/** The route a path belongs to: `/r<k>/…` is route k. */
export const routeIndexOf = (path: string): number => Number(/^\/r(\d+)/.exec(path)?.[1] ?? 0);

/** Whether the limiter counts route `k` of `routes`. */
export function isLimitedRoute(spec: ServerSpec, k: number, routes: number): boolean {
  if (!spec.limiter) return false;
  if (spec.mount === 'route') return k === 0;
  if (spec.mount === 'prefix') return k < Math.ceil(routes / 2);
  return true;
}

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * The `RateLimit-Policy` a limiter announces, if it has one: a quota over a window of whole
 * seconds, no less than it sustains. A window's is its quota and window. A bucket's (token or
 * leaky) is, as Envoy's `max_tokens;w=fill_interval`, its size over the time its rate takes to
 * refill it; or, for a bucket that refills within a second, its rate over a second. A concurrency
 * limit has no period, and announces none.
 */
export function policyOf(
  l: LimiterSpec,
): { readonly quota: number; readonly w: number } | undefined {
  if (l.algorithm === 'concurrency') return undefined;
  if (l.algorithm === 'fixed' || l.algorithm === 'sliding') {
    return { quota: quotaOf(l), w: seconds(l.windowMs) };
  }
  const w = Math.max(1, Math.floor(l.burst / l.rate));
  return { quota: Math.max(l.burst, Math.ceil(l.rate * w)), w };
}

/** What the limit headers say the limit is: the policy's quota when one is announced. */
function limitOf(spec: ServerSpec): number {
  const l = spec.limiter;
  if (!l) return 0;
  const policy = spec.policy ? policyOf(l) : undefined;
  if (policy) return policy.quota;
  if (l.algorithm === 'token' || l.algorithm === 'leaky') return Math.max(1, l.burst);
  if (l.algorithm === 'concurrency') return Math.max(1, Math.round(l.rate));
  return quotaOf(l);
}

/** The headers of one response of a limited route in the spec's style (`Retry-After` not included). */
function dialectHeaders(spec: ServerSpec, v: Verdict, limit: number): Record<string, string> {
  const reset = seconds(v.resetMs);
  const announced = spec.policy && spec.limiter ? policyOf(spec.limiter) : undefined;
  const policy: Record<string, string> = announced
    ? { 'ratelimit-policy': `${announced.quota};w=${announced.w}` }
    : {};
  const epoch = String(Math.ceil((VIRTUAL_EPOCH + virtualNow() + v.resetMs) / 1000));
  switch (spec.headers) {
    case 'draft-6':
      return {
        ...policy,
        'ratelimit-limit': String(limit),
        'ratelimit-remaining': String(v.remaining),
        'ratelimit-reset': String(reset),
      };
    case 'draft-7':
      return { ...policy, ratelimit: `limit=${limit}, remaining=${v.remaining}, reset=${reset}` };
    case 'draft-8':
      return { ...policy, ratelimit: `"q";r=${v.remaining};t=${reset}` };
    case 'x-ratelimit':
      return {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(v.remaining),
        'x-ratelimit-reset': String(reset),
      };
    case 'express-legacy':
    case 'github':
      return {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(v.remaining),
        'x-ratelimit-reset': epoch,
        date: new Date().toUTCString(),
        ...(spec.headers === 'github' ? { 'x-ratelimit-resource': 'core' } : {}),
      };
    default:
      return {};
  }
}

/** The rejection of a limited request: its status and headers. */
function rejection(spec: ServerSpec, v: Verdict, limit: number): ServerOutcome {
  const headers = dialectHeaders(spec, v, limit);
  const wait = seconds(v.resetMs);
  if (spec.headers === 'retry-after-date') {
    // The date of the second the wait ends in, rounded up (an HTTP date has whole seconds).
    const at = Math.ceil((VIRTUAL_EPOCH + virtualNow() + v.resetMs) / 1000) * 1000 + 1000;
    headers['retry-after'] = new Date(at).toUTCString();
  } else if (spec.headers !== 'none') headers['retry-after'] = String(wait);
  // GitHub's primary limit: 403 with nothing remaining.
  const status = spec.headers === 'github' ? 403 : spec.status;
  return { kind: 'response', status, headers };
}

/** A draw in [0, 1) fixed by the call, its attempt and a purpose: the same in both modes. */
function drawOf(seed: number, callId: number, attempt: number, purpose: number): number {
  return mulberry32(
    seed ^ Math.imul(callId + 1, 0x9e3779b1) ^ Math.imul(attempt + 1, 0x85ebca6b) ^ purpose,
  )();
}

const answerAfter = (ms: number, outcome: ServerOutcome): Promise<ServerOutcome> =>
  new Promise((resolve) => setTimeout(() => resolve(outcome), ms));

/** A note of one request the server answered (for invariant d). */
export interface Answered {
  readonly callId: number | undefined;
  readonly arrivedAtMs: number;
  readonly answeredAtMs: number;
  /** Until when (virtual ms) its `Retry-After` asked the caller to wait. */
  readonly retryAfterUntilMs?: number | undefined;
  /** What was asked and answered (for a trace of a case). */
  readonly path: string;
  readonly answer: ServerOutcome;
}

/** The model of `spec` over `routes` routes; `onAnswer` hears of every answer. */
export function familyServer(
  spec: ServerSpec,
  routes: number,
  onAnswer: (note: Answered) => void,
): ServerModel {
  const limiter = spec.limiter ? LIMITERS[spec.limiter.algorithm](spec.limiter) : undefined;
  const limit = limitOf(spec);
  const attempts = new Map<number, number>();
  return {
    async handle(request: ServerRequest) {
      const arrivedAtMs = virtualNow();
      const id = request.callId ?? -1;
      const attempt = attempts.get(id) ?? 0;
      attempts.set(id, attempt + 1);
      const { outcome, delayMs, done } = decide({ spec, request, limiter, limit, routes, attempt });
      const answer = await answerAfter(delayMs, outcome);
      done?.();
      onAnswer({
        callId: request.callId,
        arrivedAtMs,
        answeredAtMs: virtualNow(),
        retryAfterUntilMs: retryAfterUntil(answer),
        path: request.path,
        answer,
      });
      return answer;
    },
  };
}

interface Decision {
  readonly outcome: ServerOutcome;
  readonly delayMs: number;
  readonly done?: (() => void) | undefined;
}

function decide(input: {
  spec: ServerSpec;
  request: ServerRequest;
  limiter: Limiter | undefined;
  limit: number;
  routes: number;
  attempt: number;
}): Decision {
  const { spec, request, limiter, limit, routes, attempt } = input;
  const now = virtualNow();
  const id = request.callId ?? -1;
  const { baseMs, tailMs, tailRatio } = spec.latency;
  const latencyMs = drawOf(spec.seed, id, attempt, 1) < tailRatio ? tailMs : baseMs;
  const outage = spec.outage;
  if (outage && now >= outage.atMs && now < outage.atMs + outage.forMs) {
    if (outage.kind === 'refused') return { outcome: { kind: 'refused' }, delayMs: 1 };
    return { outcome: { kind: 'response', status: 503 }, delayMs: baseMs };
  }
  if (drawOf(spec.seed, id, attempt, 2) < spec.noise.ratio) {
    // A random 429 asks a second's wait where the server speaks a dialect, as one in front of a
    // busy pool does: what the client reads as a limit is no rate of its own.
    const { status } = spec.noise;
    const headers = status === 429 && spec.headers !== 'none' ? { 'retry-after': '1' } : undefined;
    return { outcome: { kind: 'response', status, headers }, delayMs: latencyMs };
  }
  const limited = limiter && isLimitedRoute(spec, routeIndexOf(request.path), routes);
  if (!limited) return { outcome: { kind: 'response', status: 200 }, delayMs: latencyMs };
  const verdict = limiter(now);
  if (!verdict.admitted) return { outcome: rejection(spec, verdict, limit), delayMs: baseMs };
  const headers = dialectHeaders(spec, verdict, limit);
  return {
    outcome: { kind: 'response', status: 200, headers },
    delayMs: verdict.queuedMs + latencyMs,
    done: verdict.done,
  };
}

/** Until when an answer's `Retry-After` asks the caller to wait, in virtual ms. */
function retryAfterUntil(outcome: ServerOutcome): number | undefined {
  if (outcome.kind !== 'response') return undefined;
  const value = outcome.headers?.['retry-after'];
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return virtualNow() + Number(value) * 1000;
  return Date.parse(value) - VIRTUAL_EPOCH;
}
