import type { SharedScope } from '../../src/contract/store';
import type { Pass, Verdict } from '../../src/load-control/load-control';
import { now as clockNow } from '../../src/runtime/clock';
import { CLOSED, overStore, paceOf } from '../helpers/store-states';

// A long hold lets one call through per probeEveryMs, as a probe: what its answer ends, and what
// it leaves alone. A success ends each hold the probe went through that was set before it was
// sent; a failure ends none; a hold set after it was sent, and an origin whose own hold is over
// (but which is still paced), are left as they are.

const O = 'http://api.test';
const R = 'items';
const DAY = 86_400_000;
const PROBE_EVERY_MS = 60_000;

const pace = paceOf;

/** Load control whose store already holds `states` (by scope name), a probe every 60 s. */
function withStates(states: Record<string, SharedScope['pace']>) {
  const c = overStore(
    (key) => (states[key] ? { version: 1, pace: states[key], breaker: CLOSED } : undefined),
    PROBE_EVERY_MS,
  );
  const stateOf = (name: string) => [...c.scopes()].find((s) => s.name === name)?.pacer.shared;
  return { c, stateOf };
}

function passOf(verdict: Verdict): { pass: Pass; at: number } {
  if (verdict.kind !== 'go') throw new Error(`not let through: ${JSON.stringify(verdict)}`);
  return verdict;
}

describe("a long hold's probe", () => {
  // The route is held for a day, from 61 s ago: a probe is due.
  const start = clockNow();
  const routeHeld = pace({ holdUntil: start + DAY, heldAt: start - PROBE_EVERY_MS - 1000 });

  it('that fails (a 500, no throttle) ends no hold: the next call still waits for its end', () => {
    const { c } = withStates({ [`${O}/${R}`]: routeHeld });
    const probe = passOf(c.admit([O, R], start, Infinity));
    expect(probe.at).toBe(start);
    c.settle(probe.pass, start + 10, { result: 'failure', status: 500, sentAt: start });
    expect(c.admit([O, R], start + 20, start + 1000).kind).not.toBe('go');
  });

  it('that succeeds leaves a hold set after it was sent', () => {
    const { c } = withStates({ [`${O}/${R}`]: routeHeld });
    const probe = passOf(c.admit([O, R], start, Infinity));
    // An answer that was on its way sets the route's hold again, after the probe went.
    const late = { result: 'throttled', status: 429, waitMs: 30_000, sentAt: start - 5 } as const;
    c.observe([O, R], start + 5, late);
    c.settle(probe.pass, start + 10, { result: 'success', status: 200, sentAt: start });
    expect(c.admit([O, R], start + 20, start + 1000).kind).not.toBe('go');
  });

  it("that succeeds leaves the pace of an origin whose own hold is over; it ends the route's", () => {
    const origin = pace({
      ...{ base: 10, since: start - 5000, slowStart: false, decidedAt: start - 5000 },
      ...{ holdUntil: start - 5000, heldAt: start - 6000, lastSignal: start - 100 },
    });
    const { c, stateOf } = withStates({ [O]: origin, [`${O}/${R}`]: routeHeld });
    const probe = passOf(c.admit([O, R], start, Infinity));
    expect(probe.at).toBe(start);
    c.settle(probe.pass, start + 10, { result: 'success', status: 200, sentAt: start });
    expect(stateOf(`${O}/${R}`)?.holdUntil).toBeLessThanOrEqual(start + 10);
    expect(stateOf(O)).toMatchObject({ base: 10, heldAt: start - 6000 });
  });
});
