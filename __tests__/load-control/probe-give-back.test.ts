import type { LoadControlStore, SharedScope } from '../../src/contract/store';
import { createLoadControl, type Verdict } from '../../src/load-control/load-control';
import { memoryStore } from '../../src/load-control/store';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../../src/options/options';
import { now as clockNow } from '../../src/runtime/clock';

// A breaker's probe that ends with no result (the call was cancelled, failed in a way that says
// nothing of the server, or went back to the gate when the rate was cut while it waited for its
// slot) is given back, whichever scope it probed: the next call probes instead. Before, a route's
// probe so ended was neither counted nor given back, and the route waited for it forever
// (`until: Infinity`).

const O = 'http://api.test';
const R = 'items';

/** Load control whose store holds the breaker of `open` (a scope's name) open, its break over. */
function withOpenBreaker(open: string, start: number) {
  const breaker: SharedScope['breaker'] = { state: 'open', openUntil: start - 1, failedProbes: 1 };
  const pace: SharedScope['pace'] = {
    ...{ base: 0, since: 0, slowStart: true, growth: 0.05, cap: Infinity, decidedAt: Infinity },
    ...{ cuts: 0, holdUntil: 0, heldAt: -Infinity, roundSum: 0, roundReports: 0 },
    ...{ lastSignal: -Infinity, overloadSince: Infinity, releasing: false },
    ignoreOverloadUntil: -Infinity,
  };
  const store: LoadControlStore = {
    ...memoryStore(),
    latest: (key) => (key === open ? { version: 1, pace, breaker } : undefined),
  };
  return createLoadControl({
    circuitBreaker: DEFAULT_CIRCUIT_BREAKER,
    pacing: DEFAULT_PACING,
    random: () => 0.5,
    probeEveryMs: 60_000,
    store,
  });
}

const goes = (verdict: Verdict) => (verdict.kind === 'go' ? verdict.pass : undefined);

describe.each([
  ['the route', `${O}/${R}`],
  ['the origin', O],
])("a probe of %s's breaker that ends with no result", (_name, open) => {
  it('is given back: the next call is let through as a probe, not told to wait', () => {
    const start = clockNow();
    const c = withOpenBreaker(open, start);
    const probe = goes(c.admit(O, R, start, Infinity));
    expect(probe?.probes?.map((scope) => scope.name)).toEqual([open]);
    // While it is out, the next call waits for it.
    expect(c.admit(O, R, start + 1, Infinity)).toMatchObject({ kind: 'wait', until: Infinity });
    c.settle(probe!, start + 10, { result: undefined, sentAt: start });
    const next = goes(c.admit(O, R, start + 20, Infinity));
    expect(next?.probes?.map((scope) => scope.name)).toEqual([open]);
  });
});
