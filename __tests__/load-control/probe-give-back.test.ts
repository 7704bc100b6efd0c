import type { SharedScope } from '../../src/contract/store';
import type { Verdict } from '../../src/load-control/load-control';
import { now as clockNow } from '../../src/runtime/clock';
import { overStore, paceOf } from '../helpers/store-states';

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
  return overStore((key) => (key === open ? { version: 1, pace: paceOf(), breaker } : undefined));
}

const goes = (verdict: Verdict) => (verdict.kind === 'go' ? verdict.pass : undefined);

describe.each([
  ['the route', `${O}/${R}`],
  ['the origin', O],
])("a probe of %s's breaker that ends with no result", (_name, open) => {
  it('is given back: the next call is let through as a probe, not told to wait', () => {
    const start = clockNow();
    const c = withOpenBreaker(open, start);
    const probe = goes(c.admit([O, R], start, Infinity));
    expect(probe?.probes?.map((scope) => scope.name)).toEqual([open]);
    // While it is out, the next call waits for it.
    expect(c.admit([O, R], start + 1, Infinity)).toMatchObject({ kind: 'wait', until: Infinity });
    c.settle(probe!, start + 10, { result: undefined, sentAt: start });
    const next = goes(c.admit([O, R], start + 20, Infinity));
    expect(next?.probes?.map((scope) => scope.name)).toEqual([open]);
  });
});
