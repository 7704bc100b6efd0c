import type { LoadControlStore, SharedScope } from '../../src/contract/store';
import { createLoadControl, type Verdict } from '../../src/load-control/load-control';
import { memoryStore } from '../../src/load-control/store';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../../src/options/options';
import { now as clockNow } from '../../src/runtime/clock';

// Rules of load control that only loopback suites exercised: a route's breaker that opens while
// another route of the same origin is open opens the origin's (and only that origin's); an
// origin's latency is smoothed, the latest success weighing 0.2; and a quota id announced on one
// route and then met in a 429 on another is the origin's (32 ids kept, the first announcer's).

const X = 'http://x.test';
const Y = 'http://y.test';

/** Load control whose store holds the breakers of `open` (scope names) open for an hour. */
function withOpen(open: readonly string[], start: number) {
  const breaker: SharedScope['breaker'] = {
    state: 'open',
    openUntil: start + 3_600_000,
    failedProbes: 1,
  };
  const pace: SharedScope['pace'] = {
    ...{ base: 0, since: 0, slowStart: true, growth: 0.05, cap: Infinity, decidedAt: Infinity },
    ...{ cuts: 0, holdUntil: 0, heldAt: -Infinity, roundSum: 0, roundReports: 0 },
    ...{ lastSignal: -Infinity, overloadSince: Infinity, releasing: false },
    ignoreOverloadUntil: -Infinity,
  };
  const store: LoadControlStore = {
    ...memoryStore(),
    latest: (key) => (open.includes(key) ? { version: 1, pace, breaker } : undefined),
  };
  return createLoadControl({
    circuitBreaker: DEFAULT_CIRCUIT_BREAKER,
    pacing: DEFAULT_PACING,
    random: () => 0.5,
    probeEveryMs: 60_000,
    store,
  });
}

function go(verdict: Verdict) {
  if (verdict.kind !== 'go') throw new Error(`not let through: ${JSON.stringify(verdict.kind)}`);
  return verdict.pass;
}

/** Ten 503s on `route` of `origin`, 1 ms apart: the default breaker opens on the tenth. */
function failTen(
  c: ReturnType<typeof createLoadControl>,
  origin: string,
  route: string,
  t: number,
) {
  for (let i = 0; i < 10; i++) {
    const pass = go(c.admit(origin, route, t + i, Infinity));
    c.settle(pass, t + i + 1, { result: 'failure', status: 503, sentAt: t + i });
  }
}

describe("a route's breaker that opens", () => {
  it("while another route of its origin is open opens the origin's: a third route waits", () => {
    const start = clockNow();
    const c = withOpen([`${X}/a`], start);
    // This client has met route a's open breaker (it knows of the scope).
    expect(c.admit(X, 'a', start, Infinity)).toMatchObject({
      kind: 'wait',
      scope: { name: `${X}/a` },
    });
    expect(c.admit(X, 'c', start, Infinity).kind).toBe('go');
    failTen(c, X, 'b', start);
    expect(c.admit(X, 'c', start + 20, Infinity)).toMatchObject({
      kind: 'wait',
      scope: { name: X },
    });
  });

  it("while only another origin's route is open opens neither origin", () => {
    const start = clockNow();
    const c = withOpen([`${X}/a`], start);
    expect(c.admit(X, 'a', start, Infinity)).toMatchObject({ kind: 'wait' });
    failTen(c, Y, 'b', start);
    expect(c.admit(Y, 'c', start + 20, Infinity).kind).toBe('go');
    expect(c.admit(X, 'c', start + 20, Infinity).kind).toBe('go');
  });

  it('alone opens only itself', () => {
    const start = clockNow();
    const c = withOpen([], start);
    // A route this client knows, its breaker closed.
    c.settle(go(c.admit(X, 'c', start, Infinity)), start + 1, { result: 'success', sentAt: start });
    failTen(c, X, 'b', start);
    expect(c.admit(X, 'b', start + 20, Infinity)).toMatchObject({ kind: 'wait' });
    expect(c.admit(X, 'c', start + 20, Infinity).kind).toBe('go');
  });
});

it("an origin's latency: the first success's, then each success weighs 0.2", () => {
  const start = clockNow();
  const c = withOpen([], start);
  const succeed = (sentAt: number, took: number) =>
    c.settle(go(c.admit(X, 'a', sentAt, Infinity)), sentAt + took, {
      result: 'success',
      sentAt,
    });
  succeed(start, 100);
  expect(c.latencyOf(X)).toBe(100);
  succeed(start + 200, 200);
  expect(c.latencyOf(X)).toBeCloseTo(120, 9);
  succeed(start + 500, 20);
  expect(c.latencyOf(X)).toBeCloseTo(120 + 0.2 * (20 - 120), 9);
});

describe('a quota that a 429 names (its bucket)', () => {
  const announce = (
    c: ReturnType<typeof createLoadControl>,
    route: string,
    id: string,
    t: number,
  ) =>
    c.settle(go(c.admit(X, route, t, Infinity)), t + 1, {
      result: 'success',
      status: 200,
      rateLimit: { bucket: id, remaining: 50 },
      sentAt: t,
    });
  const throttle = (
    c: ReturnType<typeof createLoadControl>,
    route: string,
    id: string,
    t: number,
  ) =>
    c.settle(go(c.admit(X, route, t, Infinity)), t + 1, {
      result: 'throttled',
      status: 429,
      waitMs: 5000,
      rateLimit: { bucket: id },
      sentAt: t,
    });
  /** When a call to route `c` may go (`at`): at once, or when the origin's hold ends. */
  const slotOfC = (c: ReturnType<typeof createLoadControl>, t: number) => {
    const verdict = c.admit(X, 'c', t, Infinity);
    if (verdict.kind !== 'go') throw new Error(verdict.kind);
    return verdict.at - t;
  };

  it('announced on another route first holds the whole origin', () => {
    const start = clockNow();
    const c = withOpen([], start);
    announce(c, 'a', 'q', start);
    throttle(c, 'b', 'q', start + 10);
    expect(slotOfC(c, start + 20)).toBeGreaterThan(4000);
  });

  it('announced on another route first, then on its own, still holds the whole origin', () => {
    const start = clockNow();
    const c = withOpen([], start);
    announce(c, 'a', 'q', start);
    announce(c, 'b', 'q', start + 1);
    throttle(c, 'b', 'q', start + 10);
    expect(slotOfC(c, start + 20)).toBeGreaterThan(4000);
  });

  it('announced on its own route only, or a different one, holds that route alone', () => {
    const start = clockNow();
    const c = withOpen([], start);
    announce(c, 'a', 'other', start);
    announce(c, 'b', 'q', start + 1);
    throttle(c, 'b', 'q', start + 10);
    expect(slotOfC(c, start + 20)).toBe(0);
  });

  it('past the 32 ids an origin keeps is not taken for shared', () => {
    const start = clockNow();
    const c = withOpen([], start);
    for (let i = 0; i < 32; i++) announce(c, 'a', `id${i}`, start + i);
    announce(c, 'a', 'q', start + 40);
    throttle(c, 'b', 'q', start + 50);
    expect(slotOfC(c, start + 60)).toBe(0);
  });

  it('the 32nd id is still kept', () => {
    const start = clockNow();
    const c = withOpen([], start);
    for (let i = 0; i < 31; i++) announce(c, 'a', `id${i}`, start + i);
    announce(c, 'a', 'q', start + 40);
    throttle(c, 'b', 'q', start + 50);
    expect(slotOfC(c, start + 60)).toBeGreaterThan(4000);
  });
});
