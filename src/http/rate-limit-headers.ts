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
   * The id of the quota the response counts against, when the headers name one: a bucket or
   * resource header of the dialect (GitHub's `X-RateLimit-Resource`), else the text of
   * `RateLimit-Policy`. It says nothing of other routes by itself (every draft-7 limiter sends
   * its policy, mounted on one route or on all): routes share a quota when they announce the
   * same id.
   */
  readonly bucket?: string;
}

/** Reads a response header by its lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

// A reset this large is a Unix time in seconds (GitHub's and X's form), not delta-seconds; one
// past 1e12 is a Unix time in milliseconds.
const EPOCH_SECONDS = 1e9;
const EPOCH_MS = 1e12;

const MAX_BUCKET_ID = 100;

const whole = (text: string | undefined): number | undefined =>
  text !== undefined && /^\s*\d+\s*$/.test(text) ? Number(text) : undefined;

/** `remaining` and `reset` of the IETF `RateLimit` field, in either combined shape. */
function fromRateLimitField(field: string): { remaining?: number; reset?: number } {
  // Draft 7: `limit=100, remaining=0, reset=30`.
  const dictionary = /(?:^|[,;\s])remaining=(\d+)/.exec(field);
  if (dictionary) {
    return {
      remaining: Number(dictionary[1]),
      reset: whole(/(?:^|[,;\s])reset=(\d+)/.exec(field)?.[1]),
    };
  }
  // Draft 8 and later: `"default";r=0;t=30, "daily";r=900;t=3600`: the policy with least left.
  let best: { remaining?: number; reset?: number } = {};
  for (const item of field.split(',')) {
    const r = /;\s*r=(\d+)/.exec(item);
    if (!r) continue;
    const remaining = Number(r[1]);
    if (best.remaining === undefined || remaining < best.remaining) {
      best = { remaining, reset: whole(/;\s*t=(\d+)/.exec(item)?.[1]) };
    }
  }
  return best;
}

/**
 * A dialect of separate rate-limit headers: the names (lower case) of those it sends, `''` for
 * one it does not. Its reset is delta-seconds; with `epoch`, a number large enough to be a Unix
 * time (in seconds, or in milliseconds) is one, measured against the response's `Date`.
 * `bucket` names a header that carries the quota's id: routes that announce the same id share it.
 */
type Dialect = readonly [
  remaining: string,
  reset: string,
  limit: string,
  epoch?: boolean,
  bucket?: string,
];

/**
 * The dialects read after the IETF `RateLimit` field, in the order they are believed, field by
 * field: the first that says a field wins. Reading a new dialect is adding its entry here.
 */
const DIALECTS: readonly Dialect[] = [
  // Early IETF drafts (express-rate-limit's `draft-6`).
  ['ratelimit-remaining', 'ratelimit-reset', 'ratelimit-limit'],
  // GitHub's and most APIs'; GitHub names the quota's policy in `X-RateLimit-Resource`.
  ['x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-limit', true, 'x-ratelimit-resource'],
  // X's (Twitter's) reset.
  ['', 'x-rate-limit-reset', '', true],
];

/**
 * The name of every header a rate limit is read from: `RateLimit`, `RateLimit-Policy` and the
 * dialects' (with their `''` and `true`, which no header name equals). A response with none of
 * them announces no rate limit.
 */
export const RATE_LIMIT_HEADERS: ReadonlySet<unknown> = new Set([
  'ratelimit',
  'ratelimit-policy',
  ...DIALECTS.flat(),
]);

/**
 * The rate limit a response announces: the IETF `RateLimit` field (drafts 7 and 8+) with its
 * `RateLimit-Policy`, then each dialect of `DIALECTS`. Malformed values are ignored; `undefined`
 * when the response says neither what is left nor when the quota resets.
 */
export function readRateLimit(header: HeaderReader, now: number): RateLimit | undefined {
  const field = header('ratelimit');
  const named = header('ratelimit-policy');
  const policy = named ?? '';
  let { remaining, reset } = field === undefined ? {} : fromRateLimitField(field);
  let resetMs = reset && reset * 1000;
  // The quota itself: `limit=` (draft 7), `q=` or a bare number in the policy; its period, the
  // policy's `w=`.
  let limit =
    whole(/(?:^|[,;\s])limit=(\d+)/.exec(field ?? '')?.[1]) ??
    whole(/(?:;\s*q=|^)(\d+)/.exec(policy)?.[1]);
  const period = whole(/;\s*w=(\d+)/.exec(policy)?.[1]);
  let bucket: string | undefined;
  for (const [left, resets, quota, epoch, id] of DIALECTS) {
    remaining ??= whole(header(left));
    limit ??= whole(header(quota));
    reset = resetMs === undefined ? whole(header(resets)) : undefined;
    if (reset !== undefined && epoch && reset >= EPOCH_SECONDS) {
      resetMs = (reset >= EPOCH_MS ? reset : reset * 1000) - serverNowOf(header('date'), now, true);
    } else resetMs ??= reset && reset * 1000;
    bucket ??= header(id ?? '')?.trim() || undefined;
  }
  resetMs = resetMs === undefined ? undefined : serverWait(resetMs);
  return remaining === undefined && resetMs === undefined
    ? undefined
    : {
        ...{ remaining, resetMs, limit, periodMs: period && period * 1000 },
        // An id is compared, never obeyed: bounded, so that a hostile one costs nothing to keep.
        bucket: (bucket ?? (policy.trim() || undefined))?.slice(0, MAX_BUCKET_ID),
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
