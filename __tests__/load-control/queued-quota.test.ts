import type { Pass, Verdict } from '../../src/load-control/load-control';
import { now as clockNow } from '../../src/runtime/clock';
import { CLOSED, overStore, paceOf } from '../helpers/store-states';

// A quota is spent when what remains is no more than the requests still out at the server: those
// will take it before the next answer comes. Attempts that wait at the gate for their slot (on the
// scope's slot queue) are not out: the answers to what went first decide whether they go, and a
// hold that covers their slots sends them back to the gate. Counted as out, a burst of calls that
// came back from one Retry-After, all queued for their slots, made every success with room left a
// spent quota: each one held the scope again and cut the rate, down to the least rate, one
// request per window (the never-worse search's seed 1092: 26 of 141 jobs done, off 35; now 141).

const O = 'http://api.test';
const R = 'items';
const rateLimit = { remaining: 5, resetMs: 1500, limit: 12, periodMs: 2000 };

const passOf = (verdict: Verdict): Pass => {
  if (verdict.kind !== 'go') throw new Error(`not let through: ${verdict.kind}`);
  return verdict.pass;
};

/** Load control whose origin is paced at `base` per second from `start`, with no hold. */
function pacedAt(base: number, start: number) {
  const pace = paceOf({
    base,
    since: start,
    slowStart: false,
    decidedAt: start,
    lastSignal: start,
  });
  return overStore((key) => (key === O ? { version: 1, pace, breaker: CLOSED } : undefined));
}

const holdOf = (c: ReturnType<typeof pacedAt>) =>
  [...c.scopes()].find((s) => s.name === O)?.pacer.holdUntil;

describe('a success that says some of the quota remains', () => {
  it('does not hold the scope for the calls queued for their slots', () => {
    const start = clockNow();
    const c = pacedAt(4, start);
    const verdicts = Array.from({ length: 10 }, () => c.admit(O, R, start, Infinity));
    // One goes now; nine wait for slots a quarter second apart, as the gate waits: on the
    // origin's and the route's slot queues.
    const queued = verdicts.filter((v) => v.kind === 'go' && v.at > start);
    expect(queued).toHaveLength(9);
    for (const { pass } of queued as Extract<Verdict, { kind: 'go' }>[]) {
      for (const scope of [pass.origin, pass.route]) c.subscribe(scope, start, () => {}, true);
    }
    c.settle(passOf(verdicts[0]!), start + 50, { result: 'success', rateLimit, sentAt: start });
    expect(holdOf(c)).toBe(0);
  });

  it('holds it when as many requests as remain are out at the server', () => {
    const start = clockNow();
    const c = pacedAt(1000, start);
    const passes = Array.from({ length: 6 }, (_, i) => passOf(c.admit(O, R, start + i, Infinity)));
    for (const [i, pass] of passes.entries()) {
      expect(c.isStillAdmitted(pass)).toBe(true); // sent at its slot
      if (i > 0) continue;
      c.settle(pass, start + 50, { result: 'success', rateLimit, sentAt: start });
    }
    expect(holdOf(c)).toBeGreaterThan(start);
  });
});
