import { decimal, serverNowOf, serverWait } from './retry-after';

/** What a response's rate-limit headers say: requests left, and when the quota resets. */
export interface RateLimit {
  readonly remaining?: number;
  /**
   * Milliseconds until the quota resets, unbounded: past a day it is no wait to hold an origin
   * for (`serverWait` bounds it there), but a call it throttled is not retried sooner.
   */
  readonly resetMs?: number;
  /** Requests the quota allows per period, when the response says. */
  readonly limit?: number;
  /** The quota's period in milliseconds, when the response says (`RateLimit-Policy`'s `w`). */
  readonly periodMs?: number;
  /**
   * The id of the quota the response counts against, when the headers name one: a bucket or
   * resource header of the dialect (Discord's `X-RateLimit-Bucket`, GitHub's
   * `X-RateLimit-Resource`), else the text of `RateLimit-Policy`. It says nothing of other routes
   * by itself (every draft-7 limiter sends its policy, mounted on one route or on all): routes
   * share a quota when they announce the same id.
   */
  readonly bucket?: string;
}

/** Reads a response header by its lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

/**
 * A count: a whole number, else `undefined` (as `decimal`, no text is no number). A count that
 * is not there is never the least (`undefined < n` is false).
 */
const count = (text: string | undefined): number | undefined =>
  /^\s*\d+\s*$/.test(text as string) ? Number(text) : undefined;

/**
 * A dialect of separate rate-limit headers: their names (lower case), `*` standing for
 * `remaining`, `reset` (or `resetWord`) and `limit`. `bucket` names a header whose value is the
 * id of the quota the response counts against: routes that announce the same id share it.
 */
type Dialect = readonly [names: string, bucket?: string, resetWord?: string];

/**
 * The dialects read after the IETF `RateLimit` field. The quota with least left wins, with its
 * reset and limit (a quota of requests and one of tokens: the spent one holds); a field it does
 * not say is the first other dialect's that does. Reading a new dialect is adding its entry here.
 */
const DIALECTS: readonly Dialect[] = [
  // Early IETF drafts (express-rate-limit's `draft-6`).
  ['ratelimit-*'],
  // Discord's: the reset in seconds from now, and the bucket its routes share.
  ['x-ratelimit-*', 'x-ratelimit-bucket', 'reset-after'],
  // GitHub's and most APIs'; GitHub names the quota's policy in `X-RateLimit-Resource`.
  ['x-ratelimit-*', 'x-ratelimit-resource'],
  // X's (Twitter's).
  ['x-rate-limit-*'],
  // OpenAI's, Anthropic's and Shopify's quota headers are not read: they would cost 228 B of the
  // main entry, which is at its size budget (their 429s' `retry-after-ms` and `retry-after` are).
];

/**
 * The rate limit a response announces: the IETF `RateLimit` field (drafts 7 and 8+) with its
 * `RateLimit-Policy`, then each dialect of `DIALECTS`. Malformed values are ignored; `undefined`
 * when the response says neither what is left nor when the quota resets.
 */
export function readRateLimit(header: HeaderReader, now: number): RateLimit | undefined {
  const field = header('ratelimit') ?? '';
  const named = header('ratelimit-policy');
  const policy = named ?? '';
  let remaining: number | undefined;
  let resetMs: number | undefined;
  // `remaining` and `reset` of the IETF `RateLimit` field, in either combined shape: draft 7's
  // one dictionary (`limit=100, remaining=0, reset=30`), or draft 8's list of policies
  // (`"default";r=0;t=30, "daily";r=900;t=3600`), of which the one with least left. An absent
  // field (`''`) says neither.
  for (const item of /remaining=/.test(field) ? [field] : field.split(',')) {
    const r = decimal(/(?:^|[,;\s])r(?:emaining)?=(\d+)/.exec(item)?.[1]);
    if ((r as number) < (remaining ?? Infinity)) {
      const reset = decimal(/(?:^|[,;\s])(?:t|reset)=(\d+)/.exec(item)?.[1]);
      [remaining, resetMs] = [r, reset && reset * 1000];
    }
  }
  // The quota itself: `limit=` (draft 7), `q=` or a bare number in the policy; its period, the
  // policy's `w=`.
  let limit =
    decimal(/(?:^|[,;\s])limit=(\d+)/.exec(field)?.[1]) ??
    decimal(/(?:;\s*q=|^)(\d+)/.exec(policy)?.[1]);
  const period = decimal(/;\s*w=(\d+)/.exec(policy)?.[1]);
  let bucket: string | undefined;
  for (const [names, id = '', resets = 'reset'] of DIALECTS) {
    const read = (word: string): string | undefined => header(names.replace('*', word));
    // Its reset: seconds (fractions allowed: Discord's `X-RateLimit-Reset-After: 1.234`); 1e9 or
    // more is a Unix time in seconds (GitHub's and X's form), not delta-seconds, and past 1e12 one
    // in milliseconds, on the server's clock. Not valid: NaN, no wait. (The bounds are written
    // out: a bundle keeps a named constant as a variable of its own.)
    const n = Number(decimal(read(resets)));
    const ms = serverWait(
      n < 1e9 ? n * 1000 : (n < 1e12 ? n * 1000 : n) - serverNowOf(header('date'), now, true),
      Infinity,
    );
    const r = count(read('remaining'));
    const quota = count(read('limit'));
    if ((r as number) < (remaining ?? Infinity)) [remaining, resetMs, limit] = [r, ms, quota];
    else {
      resetMs ??= ms;
      limit ??= quota;
    }
    bucket ??= header(id)?.trim() || undefined;
  }
  return remaining === undefined && resetMs === undefined
    ? undefined
    : {
        remaining,
        resetMs,
        limit,
        periodMs: period && period * 1000,
        // An id is compared, never obeyed: bounded, so that a hostile one costs nothing to keep.
        bucket: (bucket ?? (policy.trim() || undefined))?.slice(0, 100),
      };
}

/**
 * GitHub's rate limits answer 403 with nothing remaining (primary) or with a wait, its
 * `Retry-After` (secondary): that is a 429.
 */
export const throttleStatus = (
  status: number,
  rateLimit: RateLimit | undefined,
  askedMs?: number,
): number =>
  status === 403 && (rateLimit?.remaining === 0 || askedMs !== undefined) ? 429 : status;
