import type { RequestRetryOptions, RetryState } from '../../src/contract/types';
import { resolveClientOptions } from '../../src/options/options';
import type { OutcomeToDecide } from '../../src/retry/policy';

// The inputs of the retry policy's `decide` (src/retry/policy.ts), built the same way by every
// suite that calls it: a failed attempt (decided at `NOW`, with no budget), the call's state, and
// resolved options.

export const NOW = 1_000_000;

/** A GET answered 503 that reached the server, decided at `NOW`, with no `shouldRetry` verdict. */
export function outcome(overrides: Partial<OutcomeToDecide> = {}): OutcomeToDecide {
  return {
    classification: { kind: 'status', neverSent: false },
    status: 503,
    method: 'GET',
    hasIdempotencyKey: false,
    replayableBody: true,
    verdict: () => undefined,
    decisionAt: NOW,
    ...overrides,
  };
}

/** A call's state before its first retry, started at `NOW`. */
export const state = (overrides: Partial<RetryState> = {}): RetryState => ({
  retryCount: 0,
  startedAt: NOW,
  delays: [],
  ...overrides,
});

/** The client's options with `overrides`, resolved, drawing 0.5 from `random`. */
export const options = (overrides: RequestRetryOptions = {}) =>
  resolveClientOptions({ random: () => 0.5, ...overrides }).options;
