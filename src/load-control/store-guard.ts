import type { SharedScope } from '../contract/store';
import type { CircuitBreakerSettings, PacingSettings } from '../contract/types';
import { MAX_SERVER_WAIT_MS } from '../http/retry-after';

/** The rules of this client that bound what it takes from the store. */
interface Rules {
  readonly pacing: PacingSettings;
  readonly circuitBreaker: CircuitBreakerSettings | false;
}

const within = (value: number, low: number, high: number): number =>
  Math.min(Math.max(value, low), high);

/**
 * The state another client left in the store, bounded by this client's own rules before it is
 * obeyed. A store is not trusted: another version, another program, or a person with `redis-cli`
 * may write it. Pure.
 * - A time that must be past is at most a clock error ahead, a second: the store's clock, read
 *   over a network (`Infinity`, "never", stays).
 * - A hold is at most a day, and is probed as this client's own (its `heldAt` is past).
 * - A break is at most `maxBreakDurationMs`.
 * - The rate, its climb and its cap stay where this client's pacer would set them; no client
 *   paces at more than 100 000 requests per second.
 */
export function bounded(latest: SharedScope, settings: Rules, now: number): SharedScope {
  const { pace, breaker } = latest;
  const { pacing, circuitBreaker } = settings;
  const past = (time: number): number => Math.min(time, now + 1000);
  // A time that may be `Infinity`: never.
  const pastOrNever = (time: number): number => (time === Infinity ? time : past(time));
  const holdUntil = Math.min(pace.holdUntil, now + MAX_SERVER_WAIT_MS);
  return {
    version: latest.version,
    pace: {
      ...pace,
      base: pace.base > 0 ? within(pace.base, pacing.minRatePerSecond, 100_000) : 0,
      // A climb starts at a hold's end, at the latest.
      since: Math.min(pace.since, Math.max(now, holdUntil)),
      growth: within(pace.growth, 0, Math.max(1, pacing.growthPerSecond)),
      cap: Math.max(pace.cap, 1),
      decidedAt: pastOrNever(pace.decidedAt),
      holdUntil,
      heldAt: past(pace.heldAt),
      roundSum: within(pace.roundSum, 0, 100_000),
      roundReports: Math.max(pace.roundReports, 0),
      lastSignal: past(pace.lastSignal),
      overloadSince: pastOrNever(pace.overloadSince),
      ignoreOverloadUntil: Math.min(pace.ignoreOverloadUntil, now + pacing.healthyAfterMs),
    },
    breaker: {
      ...breaker,
      openUntil: Math.min(
        breaker.openUntil,
        now + (circuitBreaker ? circuitBreaker.maxBreakDurationMs : 0),
      ),
    },
  };
}
