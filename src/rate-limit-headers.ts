import { serverNowOf, serverWait } from './retry-after';

/** What a response's rate-limit headers say: requests left, and when the quota resets. */
export interface RateLimit {
  readonly remaining?: number;
  /** Milliseconds until the quota resets. */
  readonly resetMs?: number;
  /** Requests the quota allows per period, when the response says. */
  readonly limit?: number;
  /** The quota's period in milliseconds, when the response says (`RateLimit-Policy`'s `w`). */
  readonly periodMs?: number;
  /**
   * The headers name the limit as one policy of the API (`RateLimit-Policy`, GitHub's
   * `X-RateLimit-Resource`): it is shared by every route of the origin.
   */
  readonly shared?: boolean;
}

/** Reads a response header by its lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

// A reset this large is a Unix time in seconds (GitHub's and X's form), not delta-seconds; one
// past 1e12 is a Unix time in milliseconds.
const EPOCH_SECONDS = 1e9;
const EPOCH_MS = 1e12;

const whole = (text: string | undefined): number | undefined =>
  text !== undefined && /^\s*\d+\s*$/.test(text) ? Number(text) : undefined;

/** `remaining` and `reset` of the IETF `RateLimit` field, in either combined shape. */
function fromRateLimitField(field: string): { remaining?: number; reset?: number } {
  // Draft 7: `limit=100, remaining=0, reset=30`.
  const dictionary = /(?:^|[,;\s])remaining=(\d+)/.exec(field);
  if (dictionary) {
    const reset = /(?:^|[,;\s])reset=(\d+)/.exec(field);
    return { remaining: Number(dictionary[1]), ...(reset ? { reset: Number(reset[1]) } : {}) };
  }
  // Draft 8 and later: `"default";r=0;t=30, "daily";r=900;t=3600`: the policy with least left.
  let best: { remaining?: number; reset?: number } = {};
  for (const item of field.split(',')) {
    const r = /;\s*r=(\d+)/.exec(item);
    if (!r) continue;
    const t = /;\s*t=(\d+)/.exec(item);
    const remaining = Number(r[1]);
    if (best.remaining === undefined || remaining < best.remaining) {
      best = { remaining, ...(t ? { reset: Number(t[1]) } : {}) };
    }
  }
  return best;
}

/**
 * The rate limit a response announces, from `RateLimit` (IETF drafts 7 and 8+),
 * `RateLimit-Remaining` / `RateLimit-Reset`, or `X-RateLimit-Remaining` / `X-RateLimit-Reset`
 * (delta-seconds, or epoch seconds measured against the response's `Date`). Malformed values
 * are ignored; `undefined` when the response says nothing.
 */
export function readRateLimit(header: HeaderReader, now: number): RateLimit | undefined {
  const field = header('ratelimit');
  const combined = field === undefined ? {} : fromRateLimitField(field);
  const remaining =
    combined.remaining ??
    whole(header('ratelimit-remaining')) ??
    whole(header('x-ratelimit-remaining'));
  let reset = combined.reset ?? whole(header('ratelimit-reset'));
  let resetMs = reset === undefined ? undefined : reset * 1000;
  if (resetMs === undefined) {
    reset = whole(header('x-ratelimit-reset') ?? header('x-rate-limit-reset'));
    if (reset !== undefined && reset >= EPOCH_SECONDS) {
      const at = reset >= EPOCH_MS ? reset : reset * 1000;
      resetMs = at - serverNowOf(header('date'), now, true);
    } else if (reset !== undefined) resetMs = reset * 1000;
  }
  if (resetMs !== undefined) resetMs = serverWait(resetMs);
  if (remaining === undefined && resetMs === undefined) return undefined;
  // The quota itself: `limit=` (draft 7), `q=` or a bare number in `RateLimit-Policy`, or the
  // separate `*-Limit` headers; its period from the policy's `w=`.
  const named = header('ratelimit-policy');
  const policy = named ?? '';
  const limit =
    whole(/(?:^|[,;\s])limit=(\d+)/.exec(field ?? '')?.[1]) ??
    whole(/(?:;\s*q=|^)(\d+)/.exec(policy)?.[1]) ??
    whole(header('ratelimit-limit')) ??
    whole(header('x-ratelimit-limit'));
  const period = whole(/;\s*w=(\d+)/.exec(policy)?.[1]);
  return {
    ...(remaining === undefined ? {} : { remaining }),
    ...(resetMs === undefined ? {} : { resetMs }),
    ...(limit === undefined ? {} : { limit }),
    ...(period === undefined ? {} : { periodMs: period * 1000 }),
    ...(named !== undefined || header('x-ratelimit-resource') !== undefined
      ? { shared: true }
      : {}),
  };
}

/**
 * GitHub's rate limits answer 403 with nothing remaining (primary) or with a `Retry-After`
 * (secondary): that is a 429.
 */
export function throttleStatus(
  status: number,
  rateLimit: RateLimit | undefined,
  retryAfter?: string,
): number {
  return status === 403 && (rateLimit?.remaining === 0 || retryAfter) ? 429 : status;
}
