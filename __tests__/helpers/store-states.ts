import type { LoadControlStore, SharedScope } from '../../src/contract/store';
import { createLoadControl } from '../../src/load-control/load-control';
import { memoryStore } from '../../src/load-control/store';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../../src/options/options';

// Load control over a store that already holds given states, for the unit tests of what a
// client makes of a shared state (a hold, an open breaker, a state another program wrote).

/** A scope's pace as a client that never paced it has it, with `fields` over it. */
export const paceOf = (fields: Partial<SharedScope['pace']> = {}): SharedScope['pace'] => ({
  ...{ base: 0, since: 0, slowStart: true, growth: 0.05, cap: Infinity, decidedAt: Infinity },
  ...{ cuts: 0, holdUntil: 0, heldAt: -Infinity, roundSum: 0, roundReports: 0 },
  ...{ lastSignal: -Infinity, overloadSince: Infinity, releasing: false },
  ignoreOverloadUntil: -Infinity,
  ...fields,
});

export const CLOSED: SharedScope['breaker'] = { state: 'closed', openUntil: 0, failedProbes: 0 };

/**
 * Load control (the default breaker and pacing, `random` 0.5, a probe of a long hold every
 * `probeEveryMs`) over a memory store whose `latest(key)` is `stateOf(key)`.
 */
export function overStore(
  stateOf: (key: string) => SharedScope | undefined,
  probeEveryMs = 60_000,
): ReturnType<typeof createLoadControl> {
  const store: LoadControlStore = { ...memoryStore(), latest: stateOf };
  return createLoadControl({
    circuitBreaker: DEFAULT_CIRCUIT_BREAKER,
    pacing: DEFAULT_PACING,
    random: () => 0.5,
    probeEveryMs,
    store,
  });
}
