import fc from 'fast-check';
import type { OutcomeCounts } from '../../src/load-control/outcome-window';
import type { Pacer, ThrottleSignal } from '../../src/load-control/pacer';
import { soloPacer } from '../helpers/solo-pacer';

const settings = { growthPerSecond: 0.05, healthyAfterMs: 5000, minRatePerSecond: 0.5 };
const counts = (successes: number, failures = 0, spanMs = 1000, throttled = 5): OutcomeCounts => ({
  successes,
  failures,
  throttles: throttled,
  spanMs,
});
const PROBE_EVERY_MS = 60_000;
const pacer = (random = () => 0.5) => soloPacer(settings, random, PROBE_EVERY_MS);

/**
 * Tells `p` of a throttle at `now`: the attempt was sent at `sentAt` (by default `now`, so it
 * was sent while paced, if `p` was).
 */
function throttle(
  p: Pacer,
  now: number,
  c: OutcomeCounts,
  waitMs: number | undefined,
  kind: ThrottleSignal['kind'],
  quotaPerSecond?: number,
  sentAt = now,
): void {
  // A quota given is one the headers announced (`announced`), as `throttleSignal` says it.
  p.throttle(now, c, { kind, waitMs, quotaPerSecond, announced: quotaPerSecond, sentAt });
}

/** Reserves `n` slots at `now` and returns them, to the nearest millisecond (the rate climbs). */
function slots(p: Pacer, now: number, n: number): number[] {
  return Array.from({ length: n }, () => Math.round(p.reserve(now, Infinity)));
}

describe('createPacer', () => {
  it('paces nothing before a throttle signal', () => {
    const p = pacer();
    expect(p.shared.base).toBe(0);
    expect(slots(p, 100, 3)).toEqual([100, 100, 100]);
  });

  // Issue 21: eight workers on one key with no store cut their rates to their shares, and a
  // success a moment after each cut, saying the quota was spent, raised the rate back to the
  // whole quota its headers announce (50 a second): 17-32 of 1 000 calls failed, against 1-2.
  it('old news while paced does not raise the rate to the announced quota: it would undo the cut', () => {
    const p = pacer();
    throttle(p, 0, counts(10), 1000, 'limit');
    throttle(p, 1100, counts(6), 1000, 'limit', undefined, 1100); // a cut, to 7 a second
    const cut = p.rate(1100) as number;
    expect(cut).toBeLessThan(8);
    // Sent 50 ms after the cut: old news. It says 6 were accepted, and that the quota is 50:
    // the rate is where the climb from the cut took it in 0.1 s (5 % of itself and one request a
    // second, per second), not the quota.
    throttle(p, 1200, counts(6), 20, 'quota', 50, 1150);
    expect(p.rate(1200)).toBeCloseTo(cut * (1 + 0.05 * 0.1) + 0.1, 6);
  });

  it('after a 429 with a wait, spaces sends at the rate the origin accepted over the window', () => {
    const p = pacer();
    throttle(p, 0, counts(50), 0, 'limit');
    expect(p.shared.base).toBeGreaterThan(0);
    expect(slots(p, 0, 3)).toEqual([0, 20, 40]); // 50 per second
  });

  it('measures over at least 100 ms, so a quick burst is not taken for a huge rate', () => {
    const p = pacer();
    throttle(p, 20, counts(10, 180, 20), undefined, 'overload');
    expect(slots(p, 20, 2)).toEqual([20, 30]); // 10 per 100 ms
  });

  it('an unpaced client whose burst was mostly refused holds every send until the wait is over', () => {
    const p = pacer();
    throttle(p, 60, counts(50, 0, 60, 100), 1000, 'limit');
    // The wait sets the time scale of the measure too: 50 accepted over a second.
    expect(slots(p, 100, 2)).toEqual([1060, 1080]);
  });

  it('a 429 with no wait, the burst mostly refused: holds until a tenth of a second after the burst began, and searches from what it got over that', () => {
    const p = pacer();
    // 20 accepted in the 40 ms since the first request, 60 refused: a window spent, or a bucket
    // that refills in milliseconds; nothing said tells which.
    throttle(p, 40, counts(20, 0, 40, 60), undefined, 'limit');
    const [first, second] = slots(p, 40, 2);
    expect(first).toBe(100);
    // 200 a second (20 over 100 ms), ramping from there: the slow start searches for the rate.
    expect(second).toBeGreaterThan(100);
    expect(second).toBeLessThanOrEqual(100 + 1000 / 200);
  });

  it('a paced client that meets a 429 slows down, but does not hold everything for its wait', () => {
    const p = pacer();
    throttle(p, 0, counts(50), 0, 'limit');
    p.reserve(0, Infinity);
    // Over half a second on (answers before it still show the state before the rate was set).
    throttle(p, 600, counts(40), 1000, 'limit');
    const [a, b] = slots(p, 600, 2);
    expect(a).toBe(600); // no hold
    expect(b).toBe(625); // 40 per second now
  });

  it("an overload's answer to a send 30 ms after the rate was set cuts nothing: the burst's bucket is still draining", () => {
    const p = pacer();
    throttle(p, 0, counts(1, 19, 50, 0), undefined, 'overload');
    const started = p.rate(0) as number;
    // nginx's burst of 5 at 20 a second still refuses the first paced sends.
    throttle(p, 40, counts(1, 20, 90, 0), undefined, 'overload', undefined, 30);
    expect(p.shared.cuts).toBe(0);
    expect(p.rate(500)).toBeGreaterThan(2 * started); // the slow start goes on
  });

  it('a spent quota holds every send until the reset, paced or not', () => {
    const p = pacer();
    throttle(p, 0, counts(50), undefined, 'limit');
    throttle(p, 100, counts(50), 2000, 'quota');
    expect(p.reserve(100, Infinity)).toBe(2100);
  });

  it('after a spent quota, paces at the quota its headers announce when more than was measured', () => {
    const p = pacer();
    // One success seen (the quota was spent by requests still in flight); 10 a second announced.
    throttle(p, 0, counts(1, 0, 20), 1000, 'quota', 10);
    expect(slots(p, 0, 2)).toEqual([1000, 1100]);
  });

  it('spreads the end of a hold over a tenth of it (a second at most) when no rate is known', () => {
    const p = pacer(() => 0.25);
    throttle(p, 0, counts(0, 1), 1000, 'quota');
    expect(p.shared.base).toBe(0);
    expect(p.reserve(0, Infinity)).toBe(1025);
    const long = pacer(() => 0.25);
    throttle(long, 0, counts(0, 1), 30_000, 'quota');
    expect(long.reserve(0, Infinity)).toBe(30_250);
    expect(p.reserve(2000, Infinity)).toBe(2000);
  });

  it('learns nothing from a throttle when nothing was accepted (a dead origin)', () => {
    const p = pacer();
    throttle(p, 0, counts(0, 20), undefined, 'overload');
    expect(p.shared.base).toBe(0);
  });

  it('a 429 with no wait said paces an unpaced scope only when its window mostly refused (issue 21)', () => {
    const p = pacer();
    // 30 % random 429s are not a limit: a lower rate would not lower them.
    for (const throttled of [5, 41, 600, 3]) {
      throttle(p, 500, counts(2000, 0, 1000, throttled), undefined, 'limit');
    }
    // Nor is one 429 before any success: a few at least.
    throttle(p, 500, counts(0, 0, 1000, 3), undefined, 'limit');
    expect(p.shared.holdUntil).toBe(0);
    expect(p.shared.base).toBe(0);
    expect(slots(p, 500, 2)).toEqual([500, 500]);
    // One in three refused is no evidence (a random share may be as high)…
    throttle(p, 500, counts(8, 0, 1000, 4), undefined, 'limit');
    expect(p.shared.base).toBe(0);
    // …nor two in three of six: 30 % random 429s meet that in one case in fifteen (issue 21)…
    throttle(p, 500, counts(2, 0, 1000, 4), undefined, 'limit');
    expect(p.shared.base).toBe(0);
    // …nor three in four while more of the burst is still in flight than was refused (random
    // 429s, read in turn, may begin so: seed 574).
    const limit = { kind: 'limit', sentAt: 500 } as const;
    p.throttle(500, counts(2, 0, 0, 6), { ...limit, unanswered: 34 });
    expect(p.shared.base).toBe(0);
    // Three in four, of six at least, are: a burst that spent a limiter.
    p.throttle(500, counts(2, 0, 1000, 6), { ...limit, unanswered: 0 });
    expect(p.shared.base).toBeGreaterThan(0);
  });

  it('a paced scope takes a 429 with no wait said unless it is rare among its successes', () => {
    const p = pacer();
    throttle(p, 0, counts(50), 0, 'limit');
    const cuts = p.shared.cuts;
    throttle(p, 500, counts(2000, 0, 1000, 5), undefined, 'limit');
    expect(p.shared.cuts).toBe(cuts);
    throttle(p, 500, counts(2000, 0, 1000, 41), undefined, 'limit');
    expect(p.shared.cuts).toBe(cuts + 1);
  });

  it('doubles its rate each second until a throttle is met while paced (slow start)', () => {
    const p = pacer();
    throttle(p, 0, counts(6, 0, 1000, 94), undefined, 'limit'); // a leaky bucket's burst: 6 accepted
    // Four doublings a second: a second on, 16 times the rate.
    const gap = (t: number) => -(slots(p, t, 1)[0] as number) + (slots(p, t, 1)[0] as number);
    expect(gap(1000)).toBeLessThanOrEqual(Math.ceil(1000 / 96));
    expect(gap(1000)).toBeGreaterThan(1000 / 200);
  });

  it('takes the late answers of the burst before pacing as a floor, not as a cut', () => {
    const p = pacer();
    throttle(p, 0, counts(6), undefined, 'limit');
    // A 429 of the same burst, sent before pacing began, with more successes counted by now.
    throttle(p, 200, counts(10), undefined, 'limit', undefined, -50);
    const [a, b] = slots(p, 200, 2);
    expect(a).toBe(200);
    expect((b as number) - 200).toBeLessThanOrEqual(100); // at least 10 per second: not cut
  });

  it('climbs by growthPerSecond of its rate and by one request a second, each second, once a throttle was met while paced', () => {
    const p = pacer();
    throttle(p, 0, counts(100), 0, 'limit'); // a wait was said: no slow start
    expect(p.reserve(0, Infinity)).toBe(0);
    // At 2 s the rate is 100 × 1.1 + 2 = 112 per second: the slot after one taken then is
    // 1000 / 112 ms later.
    expect(p.reserve(2000, Infinity)).toBe(2000);
    expect(p.reserve(2000, Infinity)).toBeCloseTo(2000 + 1000 / 112, 6);
    // Slots handed out far ahead are spaced at the rate of now, not of when they come.
    const ahead = Array.from({ length: 300 }, () => p.reserve(2000, Infinity));
    expect((ahead[299] as number) - (ahead[298] as number)).toBeCloseTo(1000 / 112, 6);
    // No ceiling: throttles that accepted more than the pace (they keep it paced, cut nothing)
    // let it climb past twice where it started.
    for (let t = 4990; t <= 4 * 4990; t += 4990) throttle(p, t, counts(10_000), 0, 'limit');
    const t = 4 * 4990 + 4000;
    expect(p.reserve(t, Infinity)).toBe(t);
    expect(1000 / (p.reserve(t, Infinity) - t)).toBeGreaterThan(2 * 100);
  });

  // Issue 21: eight clients on one key with no store each climbed in proportion to their own
  // rate, so one cut low stayed low (1.89× the ideal time); the step is the same for every client.
  it('climbs by the step only when no quota was announced: clients cut to different rates close the gap', () => {
    const low = pacer();
    const high = pacer();
    throttle(low, 0, counts(2), 0, 'limit');
    throttle(high, 0, counts(20), 0, 'limit');
    const gap = (t: number) => (high.rate(t) as number) - (low.rate(t) as number);
    // At 4 s the step has added the same 4 a second to both (the gap is the proportional
    // climb's, 18 × 1.2), so the ratio of the two rates falls from 10 to 28 / 6.4.
    expect(gap(4000)).toBeCloseTo(18 * 1.2, 6);
    expect((high.rate(4000) as number) / (low.rate(4000) as number)).toBeCloseTo(28 / 6.4, 6);
    // A quota the headers announce: the climb is in proportion only.
    const said = pacer();
    throttle(said, 0, counts(20), 0, 'limit', 20);
    expect(said.rate(4000)).toBeCloseTo(20 * 1.2, 6);
  });

  it('returns to unpaced after healthyAfterMs with no signal', () => {
    const p = pacer();
    throttle(p, 0, counts(10), 0, 'limit');
    expect(slots(p, 4999, 2)).toEqual([4999, 5056]); // 10 per second, climbed to 10 × 1.25 + 5
    expect(slots(p, 5000, 2)).toEqual([5000, 5000]);
    expect(p.shared.base).toBe(0);
  });

  it('counts healthyAfterMs from the last signal', () => {
    const p = pacer();
    throttle(p, 1000, counts(10, 0, 1000, 30), undefined, 'limit');
    expect(p.reserve(5999, Infinity)).toBe(5999);
    expect(p.shared.base).toBeGreaterThan(0);
    expect(p.reserve(6000, Infinity)).toBe(6000);
    expect(p.shared.base).toBe(0);
  });

  it('spreads the end of a hold no later than the latest time given, and no sooner than the hold ends', () => {
    const p = pacer(() => 0.25);
    throttle(p, 0, counts(0, 1), 1000, 'quota');
    expect(p.reserve(0, 1010)).toBe(1010);
    expect(p.reserve(0, 999)).toBe(1000); // the server's wait: too late, not reserved
  });

  it("a rate's slot past the latest time given goes at that latest time: a rate is a guess (issue 21)", () => {
    const p = pacer();
    throttle(p, 0, counts(1), 0, 'limit'); // 1 per second
    expect(p.reserve(0, 10)).toBe(0);
    expect(p.reserve(0, 999)).toBe(999); // over the pace, rather than late
    expect(p.reserve(0, Infinity)).toBe(999 + 1000);
  });

  it('stops pacing 503s that a window of pacing did not cure, and ignores them for a while', () => {
    const p = pacer();
    throttle(p, 0, counts(70, 30), undefined, 'overload');
    expect(p.shared.base).toBeGreaterThan(0);
    throttle(p, 1201, counts(70, 30), undefined, 'overload');
    expect(p.shared.base).toBe(0);
    throttle(p, 3000, counts(70, 30), undefined, 'overload');
    expect(p.shared.base).toBe(0);
    // A 429 with a wait is still heard.
    throttle(p, 3000, counts(70, 30), 1000, 'limit');
    expect(p.shared.base).toBeGreaterThan(0);
  });

  it('after a breaker closes, releases at the last good rate, ramping to twice it within a second', () => {
    const p = pacer();
    p.release(0, 100, 0);
    const backlog = slots(p, 0, 150);
    expect(backlog.slice(0, 2)).toEqual([0, 10]); // 10 ms apart at first
    // Ramping: the waiting calls take their slots at once, and the later ones come closer.
    expect((backlog[149] as number) - (backlog[148] as number)).toBeLessThan(6);
    const [a, b] = slots(p, 1000, 2);
    expect((b as number) - (a as number)).toBe(5); // twice the rate after a second
  });

  it('after a release, is unpaced after healthyAfterMs', () => {
    const p = pacer();
    p.release(0, 100, 0);
    expect(slots(p, 0, 3)).toEqual([0, 10, 20]);
    expect(slots(p, 4999, 2)).toEqual([4999, 5004]); // still held, to twice the rate
    expect(slots(p, 5000, 2)).toEqual([5000, 5000]);
    expect(p.shared.base).toBe(0);
  });

  it('a release dated back paces until healthyAfterMs after its date, from the rate it was given', () => {
    const p = pacer();
    p.release(0, 100, 1000 - 5000); // paced for a second
    expect(slots(p, 0, 2)).toEqual([0, 10]);
    expect(slots(p, 999, 2)).toEqual([999, 1004]); // twice the rate a second on
    expect(slots(p, 1000, 2)).toEqual([1000, 1000]);
    expect(p.shared.base).toBe(0);
  });

  // Issue 21: the server's count of what is left is the client's evidence against a rate it
  // guessed (load-control.ts tells the pacer so when a success says quota is left).
  it('room: a success sent after the pace was set ends it', () => {
    const p = pacer();
    throttle(p, 0, counts(10), 0, 'limit'); // paced at 10 a second, decided at 0
    expect(p.shared.base).toBeGreaterThan(0);
    p.room(500, 100);
    expect(p.shared.base).toBe(0);
    expect(slots(p, 500, 3)).toEqual([500, 500, 500]);
  });

  it('room: a success sent before the pace was set is old news, and keeps it', () => {
    const p = pacer();
    throttle(p, 100, counts(10), 0, 'limit');
    p.room(500, 50);
    expect(p.shared.base).toBeGreaterThan(0);
  });

  it('room: a hold ends only by its probe, not by a success sent before it began', () => {
    const p = pacer();
    throttle(p, 0, counts(10), 3000, 'quota'); // held until 3000
    p.room(500, 0);
    expect(p.shared.holdUntil).toBe(3000);
    expect(p.reserve(500, Infinity)).toBeGreaterThanOrEqual(3000);
  });

  it('never sends faster than the rate it holds (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 2, maxLength: 100 }),
        (accepted, gaps) => {
          const p = pacer();
          throttle(p, 0, counts(accepted), 0, 'limit');
          let now = 0;
          const sent: number[] = [];
          for (const gap of gaps) {
            now += gap;
            sent.push(p.reserve(now, Infinity));
          }
          // Within the healthy period the rate never exceeds twice what was accepted.
          for (let i = 1; i < sent.length; i++) {
            if ((sent[i] as number) >= settings.healthyAfterMs) break;
            expect((sent[i] as number) - (sent[i - 1] as number)).toBeGreaterThanOrEqual(
              1000 / (2 * accepted) - 1e-9,
            );
          }
        },
      ),
    );
  });
});

describe('createPacer: a long hold', () => {
  it('lets one send through per probeEveryMs while a hold lasts longer', () => {
    const p = pacer();
    throttle(p, 0, counts(0, 0, 1000, 1), 86_400_000, 'quota');
    expect(p.shared.holdUntil).toBe(86_400_000);
    // Before a probe is due, the end of the hold: no call waits to be the probe.
    expect(p.reserve(1000, Infinity)).toBeGreaterThanOrEqual(86_400_000);
    expect(p.reserve(PROBE_EVERY_MS, Infinity)).toBe(PROBE_EVERY_MS); // the probe goes at once
    expect(p.reserve(PROBE_EVERY_MS + 1, Infinity)).toBeGreaterThanOrEqual(86_400_000); // one per probeEveryMs
    expect(p.reserve(2 * PROBE_EVERY_MS + 5, Infinity)).toBe(2 * PROBE_EVERY_MS + 5);
  });

  it('probes a hold another client set (adopted from the store) a second after it began, once; then one per probeEveryMs', () => {
    const own = pacer();
    throttle(own, 0, counts(0, 0, 1000, 1), 86_400_000, 'quota');
    const p = pacer();
    // Another client's hold (or a write that is no client's), a day long, begun at 0.
    p.shared = { ...own.shared };
    expect(p.reserve(999, Infinity)).toBeGreaterThanOrEqual(86_400_000);
    expect(p.reserve(1000, Infinity)).toBe(1000); // its own evidence, within a second
    expect(p.reserve(1001, Infinity)).toBeGreaterThanOrEqual(86_400_000);
    expect(p.reserve(PROBE_EVERY_MS, Infinity)).toBeGreaterThanOrEqual(86_400_000);
    expect(p.reserve(PROBE_EVERY_MS + 1000, Infinity)).toBe(PROBE_EVERY_MS + 1000);
    // The client that set it waits the whole interval, as before.
    expect(own.reserve(1000, Infinity)).toBeGreaterThanOrEqual(86_400_000);
  });

  it('does not probe a hold of a second or less that another client set: it ends first', () => {
    const own = pacer();
    throttle(own, 0, counts(0, 0, 1000, 1), 1000, 'quota');
    const p = pacer();
    p.shared = { ...own.shared };
    expect(p.reserve(500, Infinity)).toBeGreaterThanOrEqual(1000);
  });

  it('ends the hold when a probe comes back with no throttle', () => {
    const p = pacer();
    throttle(p, 0, counts(0, 0, 1000, 1), 86_400_000, 'quota');
    p.reserve(PROBE_EVERY_MS, Infinity);
    p.endHold(PROBE_EVERY_MS + 20);
    expect(p.reserve(PROBE_EVERY_MS + 30, PROBE_EVERY_MS + 30)).toBe(PROBE_EVERY_MS + 30);
  });

  it("replaces the hold with a probe's reading (a reset that came early)", () => {
    const p = pacer();
    throttle(p, 0, counts(0, 0, 1000, 1), 86_400_000, 'quota');
    p.throttle(60_000, counts(0, 0, 1000, 1), { kind: 'quota', waitMs: 5000, sentAt: 60_000 });
    expect(p.shared.holdUntil).toBe(65_000);
  });

  it("replaces a day-long hold another process wrote with the server's latest wait: the fleet is not parked until a probe", () => {
    // A foreign write held the scope a day; then this client's own 429 said Retry-After: 1.
    // Extended rather than replaced, the day stayed, and became this client's own: it was probed
    // only after probeEveryMs (a minute), with every call stopped until then.
    const p = pacer();
    p.shared = { ...p.shared, holdUntil: 86_400_000, heldAt: 0 };
    p.throttle(100, counts(0, 0, 1000, 8), { kind: 'limit', waitMs: 1000, sentAt: 90 });
    expect(p.shared.holdUntil).toBe(1100);
    expect(p.reserve(1100, 1100)).toBe(1100);
  });
});

describe('createPacer: a quota whose period was not said', () => {
  // 10 accepted, then a success said none remained, reset "1" (whole seconds, rounded up): the
  // hold is a tenth of a second, one slot at 10 a second. Then the rate is paced from 10 a second.
  const spent = (search: boolean) => {
    const p = pacer();
    const signal = {
      kind: 'quota',
      waitMs: 100,
      quotaPerSecond: 10,
      announced: 10,
      sentAt: 0,
      searchRate: search,
    } as const;
    p.throttle(0, counts(10, 0, 1000, 0), signal);
    return p;
  };

  it('is searched: the rate doubles four times a second from what was accepted (a bucket may refill in milliseconds)', () => {
    const p = spent(true);
    expect(p.rate(100)).toBeCloseTo(10);
    expect(p.rate(600)).toBeCloseTo(40);
  });

  it('said (a policy, or a reset past the floor): paced at what was accepted, climbing slowly', () => {
    const p = spent(false);
    expect(p.rate(100)).toBeCloseTo(10);
    expect(p.rate(600)).toBeCloseTo(10 * (1 + 0.05 * 0.5));
  });
});

describe('createPacer: overload that pacing did not cause', () => {
  it('starts measuring whether pacing helps only once it paces', () => {
    const p = pacer();
    // A first 503 with nothing accepted yet: nothing to pace at, nothing to measure.
    throttle(p, 0, counts(0, 1), undefined, 'overload');
    expect(p.shared.base).toBe(0);
    // Much later, a real overload: paced, and given a whole window to show it helps.
    throttle(p, 5000, counts(10, 20), undefined, 'overload');
    expect(p.shared.base).toBeGreaterThan(0);
    throttle(p, 5100, counts(10, 20), undefined, 'overload');
    expect(p.shared.base).toBeGreaterThan(0);
  });

  it('gives pacing a whole window to cure an overload before it gives up', () => {
    const p = pacer();
    throttle(p, 0, counts(70, 30), undefined, 'overload');
    throttle(p, 1100, counts(70, 30), undefined, 'overload');
    expect(p.shared.base).toBeGreaterThan(0);
  });

  it('judges the window of pacing by when the 503 was sent, not when its answer was read', () => {
    // A client whose event loop lags reads the answers to sends made early in the window late:
    // they say nothing of whether pacing helped (seen: nginx's bare 503s, 100 calls on a loaded
    // CI box; read at the answer, pacing gave up and the retries spent the budget).
    const p = pacer();
    throttle(p, 0, counts(70, 30), undefined, 'overload');
    throttle(p, 1500, counts(70, 30), undefined, 'overload', undefined, 1200); // a window and a fifth
    expect(p.shared.base).toBeGreaterThan(0);
    throttle(p, 1600, counts(70, 30), undefined, 'overload', undefined, 1201);
    expect(p.shared.base).toBe(0);
  });

  it('counts the window of pacing from the last answer to a send made before pacing began', () => {
    // 100 sends at once through a server that accepts a connection every 10 ms: their 503s
    // come for a second after pacing began, and say nothing of whether it helped (seen: the
    // nginx limit_req test on a loaded CI box; pacing gave up, and the retries spent the budget).
    const p = pacer();
    throttle(p, 250, counts(5, 15), undefined, 'overload', undefined, 0);
    for (const now of [500, 1000, 1400]) {
      throttle(p, now, counts(15, 60), undefined, 'overload', undefined, 0);
    }
    throttle(p, 1500, counts(20, 80), undefined, 'overload', undefined, 1460);
    expect(p.shared.base).toBeGreaterThan(0);
    // A whole window after the backlog's last answer, paced sends still mostly fail: it gives up.
    throttle(p, 2650, counts(20, 60), undefined, 'overload', undefined, 2601);
    expect(p.shared.base).toBe(0);
  });

  // The overload trial's condition in `throttled`, pinned (the mutants that survived by range).
  it('a 429 does not start the window in which pacing must cure an overload', () => {
    // `kind === 'overload' && …` → `kind === 'overload' || …`, or `if (true)`: the 429 at 0
    // would start it, and the overload 1.3 s later would end pacing.
    const p = pacer();
    throttle(p, 0, counts(10), 1000, 'limit');
    expect(p.shared.base).toBeGreaterThan(0);
    throttle(p, 1300, counts(70, 30), undefined, 'overload');
    expect(p.shared.base).toBeGreaterThan(0);
  });

  it('an answer to a send made before the window began does not start it again once a cut ended the trial', () => {
    // `(d.slowStart || d.overloadSince === Infinity)` → `true`: the old answer at 900 would
    // restart the window, and pacing would not give up at 1300.
    const p = pacer();
    throttle(p, 0, counts(70, 30), undefined, 'overload'); // the window starts at 0
    throttle(p, 600, counts(40, 30), undefined, 'overload'); // a cut: the trial is over
    throttle(p, 900, counts(40, 30), undefined, 'overload', undefined, -50);
    expect(p.shared.base).toBeGreaterThan(0);
    throttle(p, 1300, counts(40, 30), undefined, 'overload');
    expect(p.shared.base).toBe(0);
  });

  it('an overload met by a scope paced for a 429 starts the window, though no slow start is on', () => {
    // `d.overloadSince === Infinity` → `false`: paced for a 429 that named its wait (no slow
    // start), the scope would never start the window, and never give up.
    const p = pacer();
    throttle(p, 0, counts(10), 1000, 'limit');
    throttle(p, 100, counts(70, 30), undefined, 'overload');
    throttle(p, 1400, counts(70, 30), undefined, 'overload');
    expect(p.shared.base).toBe(0);
  });

  it('an answer to a send made as the window began does not start it again', () => {
    // `sentAt < d.overloadSince` → `<=`: the second answer, to a send at 0, would move the
    // window's start to 500, and pacing would not give up at 1300.
    const p = pacer();
    throttle(p, 0, counts(70, 30), undefined, 'overload');
    throttle(p, 500, counts(70, 30), undefined, 'overload', undefined, 0);
    throttle(p, 1300, counts(70, 30), undefined, 'overload');
    expect(p.shared.base).toBe(0);
  });

  it('ignores 503s until the origin has been free of them for healthyAfterMs', () => {
    const p = pacer();
    throttle(p, 0, counts(70, 30), undefined, 'overload');
    throttle(p, 1201, counts(70, 30), undefined, 'overload'); // gives up: ignores until 6201
    throttle(p, 3000, counts(70, 30), undefined, 'overload'); // ignored: until 8000 now
    throttle(p, 7000, counts(70, 30), undefined, 'overload'); // ignored: until 12000
    expect(p.shared.base).toBe(0);
    throttle(p, 12_000, counts(70, 30), undefined, 'overload');
    expect(p.shared.base).toBeGreaterThan(0);
  });

  it('does not take the time paced for a 429 as a window of pacing that failed to cure a 503', () => {
    const p = pacer();
    throttle(p, 0, counts(50), undefined, 'limit');
    throttle(p, 1500, counts(70, 30), undefined, 'overload');
    expect(p.shared.base).toBeGreaterThan(0);
  });
});

// Pinned by mutants (docs/mutation.md): each test fails with the mutant its comment names.
describe('createPacer: the edges the mutants found', () => {
  it('a cut plans the slots again from the decision, not after those reserved at the old rate', () => {
    // `if (d !== own.seen) …` → `if (false) …`, and `Math.min(own.next, …)` → `max`.
    const p = pacer();
    throttle(p, 0, counts(50), 0, 'limit');
    expect(slots(p, 0, 40).at(-1)).toBe(780); // 50 a second: reserved up to 0.8 s ahead
    throttle(p, 600, counts(10), 0, 'limit'); // sent while paced: a cut, decided at 600
    expect(p.reserve(600, Infinity)).toBeLessThan(780);
  });

  // Issue 21 (failover, eight clients with a store): the calls a cut woke all took the slot at the
  // decision at once, a burst at the rate just found too high.
  it('after a decision, the first slot is one gap at the new rate later, not at the decision', () => {
    // `d + gapAfter(…)` → `d`.
    const p = pacer();
    throttle(p, 0, counts(50), 0, 'limit');
    slots(p, 0, 40);
    throttle(p, 600, counts(10), 0, 'limit');
    const rate = p.rate(600) ?? 0;
    expect(rate).toBeGreaterThan(0);
    const [first, second] = slots(p, 600, 2);
    expect(first).toBe(Math.round(600 + 1000 / rate));
    expect(second! - first!).toBeGreaterThanOrEqual(Math.floor(1000 / rate) - 1);
  });

  it('reserves no slot past the latest the call can use: the next call gets it', () => {
    // `if (slot <= latest)` → `if (true)`.
    const p = pacer();
    throttle(p, 1000, counts(50), 500, 'limit'); // paced at 50 a second, held until 1.5 s
    expect(p.reserve(1000, 1200)).toBe(1500);
    expect(p.reserve(1000, Infinity)).toBe(1500);
  });

  it('a success sent as the rate was decided ends the pace (room)', () => {
    // `sentAt >= Math.max(…)` → `>`.
    const p = pacer();
    throttle(p, 1000, counts(50), 0, 'limit');
    p.room(1500, 1000);
    expect(p.rate(1500)).toBeUndefined();
  });

  it('a success ends the pace once the hold is over, at its very end (room)', () => {
    // `s.holdUntil <= now` → `<`.
    const p = pacer();
    throttle(p, 1000, counts(50), 500, 'limit'); // held until 1.5 s
    p.room(1500, 1200);
    expect(p.rate(1500)).toBeUndefined();
  });

  it('a success sent before a later hold began does not end the pace (room)', () => {
    // `Math.max(s.heldAt, s.decidedAt)` → `Math.min`: decided at 1 s, held from 2 s.
    const p = pacer();
    throttle(p, 1000, counts(50), 0, 'limit');
    throttle(p, 2000, counts(50), 500, 'quota', undefined, 1100); // old news: no new decision
    expect(p.shared).toMatchObject({ decidedAt: 1000, heldAt: 2000 });
    p.room(3000, 1500);
    expect(p.rate(3000)).toBeGreaterThan(0);
  });
});
