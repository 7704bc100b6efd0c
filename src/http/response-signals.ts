import type { AxiosResponse } from 'axios';
import { type RateLimit, readRateLimit, throttleStatus } from './rate-limit-headers';
import { readHeader } from './read-header';
import { askedWaitMs, serverWait } from './retry-after';
import { serverAdvice } from './server-signals';

/** What a response says of its origin's limits and of retrying it, its headers read once. */
export interface ResponseSignals {
  /** The status, GitHub's rate-limit `403` read as the `429` it is. */
  readonly status: number;
  readonly rateLimit: RateLimit | undefined;
  /**
   * The server's wait, for load control's hold: `askedMs`, `undefined` past a day (an absurd
   * wait never parks an origin), else the rate limit's reset, bounded the same.
   */
  readonly waitMs: number | undefined;
  /**
   * The wait the server asked of the call, unbounded: the first valid of `Retry-After-Ms`,
   * `X-Ms-Retry-After-Ms`, `Retry-After` and `X-RateLimit-Retry-After` (retry-after.ts), else
   * the rate limit's reset (a quota that resets in 30 days asks for 30 days). A call asked to
   * wait past its bound stops; it never retries sooner.
   */
  readonly askedMs: number | undefined;
  /** What the server said of retrying (server-signals.ts). */
  readonly advice: boolean | number | undefined;
}

// Read once per response: the gate and the retry policy both ask.
const read = new WeakMap<AxiosResponse, ResponseSignals>();

/**
 * A success whose headers name no rate-limit dialect (by its name, in any case: `RateLimit`,
 * `RateLimit-Policy` and the dialects' of rate-limit-headers.ts): it says nothing of limits, and
 * the success path reads no more of it.
 */
export const isPlainSuccess = (response: AxiosResponse): boolean =>
  response.status < 400 &&
  !Object.keys(response.headers ?? {}).some((name) => /(?:rate-?|call-)limit/i.test(name));

/**
 * Reads a response's headers, once; `wallNow` is the wall clock (now), which HTTP dates are read
 * against.
 */
export function signalsOf(response: AxiosResponse, wallNow = Date.now()): ResponseSignals {
  let signals = read.get(response);
  if (signals) return signals;
  // Each header a scan (read-header.ts), some thirty names: no object of them all is built.
  const header = (name: string) => readHeader(response.headers, name);
  const rateLimit = readRateLimit(header, wallNow);
  const asked = askedWaitMs(header, wallNow);
  signals = {
    status: throttleStatus(response.status, rateLimit, asked),
    rateLimit,
    waitMs: serverWait(asked) ?? serverWait(rateLimit?.resetMs),
    askedMs: asked ?? rateLimit?.resetMs,
    advice: serverAdvice(header),
  };
  read.set(response, signals);
  return signals;
}
