// A success is the client's own evidence, and wins over a hold (issue 21, the continuous-limiter
// class): a token or leaky bucket says `Retry-After: 1` and refills in milliseconds, a fixed
// window refuses everything until its reset. What tells them apart is what the next answers say.
import {
  createLoadControl,
  type Ending,
  type LoadControl,
  type Pass,
} from '../../src/load-control/load-control';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../../src/options/options';

const O = 'http://api.test';
const ROUTE = '/items';

const control = (): LoadControl =>
  createLoadControl({
    circuitBreaker: DEFAULT_CIRCUIT_BREAKER,
    pacing: DEFAULT_PACING,
    random: () => 0.5,
    probeEveryMs: 60_000,
  });

function send(c: LoadControl, now: number): Pass {
  const verdict = c.admit(O, ROUTE, now, Infinity);
  if (verdict.kind !== 'go' || verdict.at !== now) throw new Error(`held at ${now}`);
  return verdict.pass;
}

const ok = (sentAt: number): Ending => ({ result: 'success', status: 200, sentAt });
const refused = (sentAt: number): Ending => ({
  result: 'throttled',
  status: 429,
  waitMs: 1000,
  sentAt,
});

/** When the next attempt may go, asked at `now`. */
function nextAt(c: LoadControl, now: number): number {
  const verdict = c.admit(O, ROUTE, now, Infinity);
  if (verdict.kind !== 'go') throw new Error(verdict.kind);
  return verdict.at;
}

describe('a success wins over a hold (issue 21)', () => {
  it('a success of an attempt sent after the one refused ends the hold: the limiter refilled', () => {
    const c = control();
    const first = send(c, 0);
    const second = send(c, 5);
    c.settle(first, 10, refused(0)); // Retry-After: 1
    expect(c.isPaced(O, ROUTE, 11)).toBe(true);
    c.settle(second, 12, ok(5));
    expect(c.isPaced(O, ROUTE, 13)).toBe(false);
    expect(nextAt(c, 20)).toBe(20);
  });

  it('a success of an attempt sent before the one refused is no such evidence: a fixed window stays held', () => {
    const c = control();
    const earlier = send(c, 0);
    const refusedOne = send(c, 5);
    c.settle(refusedOne, 10, refused(5));
    c.settle(earlier, 12, ok(0)); // admitted before the quota was spent, answered late
    expect(nextAt(c, 20)).toBeGreaterThanOrEqual(1010);
  });

  it('the late answers of a burst accepted during the hold raise the rate it holds to (a leaky bucket queues them)', () => {
    const c = control();
    const burst = Array.from({ length: 21 }, () => send(c, 0));
    c.settle(burst[0] as Pass, 5, ok(0));
    c.settle(burst[1] as Pass, 5, refused(0)); // the rejection comes first…
    // …the 19 queued in the bucket come back over the next 100 ms: 20 accepted, not 1.
    for (let i = 2; i < 21; i++) c.settle(burst[i] as Pass, 5 * i, ok(0));
    const first = nextAt(c, 500);
    expect(first).toBeGreaterThanOrEqual(1005); // the server's wait, for everyone
    expect(nextAt(c, 500) - first).toBeLessThanOrEqual(1000 / 20);
  });
});
