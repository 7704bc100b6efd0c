import { parseDuration } from './duration';
import { decimal, serverNowOf, serverWait } from './retry-after';

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
  /**
   * The id of the quota the response counts against, as the server names it (Discord's
   * `X-RateLimit-Bucket`, GitHub's `X-RateLimit-Resource`): routes whose responses name the same
   * bucket share that quota.
   */
  readonly bucket?: string;
}

/** Reads a response header by its lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

// A reset this large is a Unix time in seconds (GitHub's and X's form), not delta-seconds; one
// past 1e12 is a Unix time in milliseconds.
const EPOCH_SECONDS = 1e9;
const EPOCH_MS = 1e12;

const whole = (text: string | undefined): number | undefined =>
  text !== undefined && /^\s*\d+\s*$/.test(text) ? Number(text) : undefined;

/**
 * A count: `n`, or Shopify's `used/size` (a bucket of `size`), of which what is left or, with
 * `size`, its size.
 */
function count(text: string | undefined, size?: boolean): number | undefined {
  const [, a, b] = /^\s*(\d+)(?:\/(\d+))?\s*$/.exec(text ?? '') ?? [];
  if (a === undefined) return undefined;
  return b === undefined ? +a : size ? +b : Math.max(0, +b - +a);
}

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
 * How a dialect writes its reset: milliseconds from now (unbounded; `readRateLimit` bounds it),
 * `serverNow` the server's clock; `undefined` when the text is not valid.
 */
type Reset = (text: string, serverNow: () => number) => number | undefined;

/** Seconds, fractions allowed (Discord's `X-RateLimit-Reset-After: 1.234`). */
const seconds: Reset = (text) => (decimal(text) ?? Number.NaN) * 1000;
/** Seconds, or a Unix time (in seconds, or in milliseconds) when the number is large enough. */
const epoch: Reset = (text, serverNow) => {
  const n = decimal(text) ?? Number.NaN;
  return n < EPOCH_SECONDS ? n * 1000 : (n < EPOCH_MS ? n * 1000 : n) - serverNow();
};
/** OpenAI's durations: `6m0s`. */
const duration: Reset = (text) => parseDuration(text);
/** Anthropic's RFC 3339 time: `2026-11-30T12:00:30Z`. */
const rfc3339: Reset = (text, serverNow) =>
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(text)
    ? Date.parse(text.toUpperCase()) - serverNow()
    : undefined;
/** Shopify's `used/size`: a leaky bucket that drains its size every 20 s is empty again in `used / size × 20 s`. */
const drain: Reset = (text) => {
  const [, used, size] = /^(\d+)\/(\d+)$/.exec(text) ?? [];
  return (Number(used) * 20_000) / Number(size);
};

/**
 * A dialect of separate rate-limit headers: the names (lower case) of those it sends, `''` for
 * one it does not, and how its reset is written (delta-seconds if not said). `shared` names a
 * header that says the quota is one policy of the API, shared by every route of the origin;
 * `bucket`, one whose value is the id of the quota the response counts against.
 */
type Dialect = readonly [
  remaining: string,
  reset: string,
  limit: string,
  format?: Reset,
  shared?: string,
  bucket?: string,
];

const X = 'x-ratelimit-';
const ANTHROPIC = 'anthropic-ratelimit-';
const SHOPIFY = 'x-shopify-shop-api-call-limit';

/**
 * The dialects read after the IETF `RateLimit` field. The quota with least left wins, with its
 * reset and limit (a quota of requests and one of tokens: the spent one holds); a field it does
 * not say is the first other dialect's that does. Reading a new dialect is adding its entry here.
 */
const DIALECTS: readonly Dialect[] = [
  // Early IETF drafts (express-rate-limit's `draft-6`).
  ['ratelimit-remaining', 'ratelimit-reset', 'ratelimit-limit'],
  // Discord's: the reset in seconds from now, and the bucket its routes share.
  [`${X}remaining`, `${X}reset-after`, `${X}limit`, seconds, '', `${X}bucket`],
  // GitHub's and most APIs'; GitHub names the quota's policy in `X-RateLimit-Resource`.
  [`${X}remaining`, `${X}reset`, `${X}limit`, epoch, `${X}resource`, `${X}resource`],
  // X's (Twitter's).
  ['x-rate-limit-remaining', 'x-rate-limit-reset', 'x-rate-limit-limit', epoch],
  // OpenAI's (and Azure OpenAI's) and Anthropic's, of requests and of tokens.
  ...['requests', 'tokens'].flatMap((of): Dialect[] => [
    [`${X}remaining-${of}`, `${X}reset-${of}`, `${X}limit-${of}`, duration],
    [`${ANTHROPIC}${of}-remaining`, `${ANTHROPIC}${of}-reset`, `${ANTHROPIC}${of}-limit`, rfc3339],
  ]),
  // Shopify's leaky bucket: `32/40`.
  [SHOPIFY, SHOPIFY, SHOPIFY, drain],
];

/**
 * Whether a header (its lower-case name) is one a rate limit is read from: `RateLimit`,
 * `RateLimit-Policy` and the dialects'. A response with none of them announces no rate limit.
 */
export const isRateLimitHeader = (name: string): boolean =>
  /ratelimit|rate-limit|call-limit/.test(name);

/**
 * The rate limit a response announces: the IETF `RateLimit` field (drafts 7 and 8+) with its
 * `RateLimit-Policy`, then each dialect of `DIALECTS`. Malformed values are ignored, and a reset
 * past a day; `undefined` when the response says neither what is left nor when the quota resets.
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
  let shared = named !== undefined;
  let bucket: string | undefined;
  const serverNow = (): number => serverNowOf(header('date'), now, true);
  for (const [left, resets, quota, format = seconds, sharing = '', id = ''] of DIALECTS) {
    const text = header(resets);
    const ms = serverWait(text === undefined ? undefined : format(text.trim(), serverNow));
    const r = count(header(left));
    if (r !== undefined && r < (remaining ?? Infinity)) {
      remaining = r;
      resetMs = ms;
      limit = count(header(quota), true);
    } else {
      resetMs ??= ms;
      limit ??= count(header(quota), true);
    }
    shared ||= header(sharing) !== undefined;
    bucket ??= header(id);
  }
  resetMs = serverWait(resetMs);
  return remaining === undefined && resetMs === undefined
    ? undefined
    : {
        remaining,
        resetMs,
        limit,
        periodMs: period && period * 1000,
        shared: shared || undefined,
        bucket,
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
