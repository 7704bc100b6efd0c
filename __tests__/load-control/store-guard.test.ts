import fc from 'fast-check';
import { createLoadControl } from '../../src/load-control/load-control';
import { createPacer, type PaceState, unpacedState } from '../../src/load-control/pacer';
import type { LoadControlStore, SharedScope } from '../../src/load-control/store';
import { boundedScope, guardStore, MAX_SHARED_RATE } from '../../src/load-control/store-guard';
import { isVersion, nextVersion, supersedes, VERSIONS } from '../../src/load-control/version';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../../src/options/options';
import { now as clockNow } from '../../src/runtime/clock';

// Issue 22: what a store reports is input, not truth. Every state goes through one pure bound
// (store-guard.ts) before load control acts on it, whatever store it came from.

const BOUNDS = { ...DEFAULT_PACING, maxBreakDurationMs: 2000 };
const DAY = 86_400_000;
const NOW = 1_700_000_000_000;

/** Numbers as a hostile writer picks them: the extremes, the non-finite, the tiny and the negative. */
const hostileNumber = fc.oneof(
  fc.double(),
  fc.constantFrom(Infinity, -Infinity, Number.NaN, 0, -1, 1e-9, 2 ** 53 - 1, 1e308, NOW, NOW * 2),
  fc.integer({ min: NOW - DAY, max: NOW + 3 * DAY }),
);
/** A field as it may come: a number, a string (the codec's "Infinity"), a wrong type, or nothing. */
const hostileField = fc.oneof(
  { weight: 6, arbitrary: hostileNumber },
  fc.constantFrom('Infinity', '-Infinity', true, false, null, undefined, {}, []),
);
const PACE_KEYS = Object.keys(unpacedState(DEFAULT_PACING)) as (keyof PaceState)[];
const hostileState = fc.record({
  version: fc.oneof(fc.integer({ min: 0, max: VERSIONS - 1 }), hostileField),
  pace: fc.record(Object.fromEntries(PACE_KEYS.map((key) => [key, hostileField]))),
  breaker: fc.record({
    state: fc.constantFrom('closed', 'open', 'half-open', 'broken', 3),
    openUntil: hostileField,
    failedProbes: hostileField,
  }),
});

/** The bounds every state the guard lets through keeps, at `now`. */
function expectBounded(state: SharedScope, now: number) {
  const { pace, breaker } = state;
  expect(isVersion(state.version)).toBe(true);
  for (const value of [...Object.values(pace), breaker.openUntil, breaker.failedProbes]) {
    if (typeof value === 'number') expect(Number.isNaN(value)).toBe(false);
  }
  expect(breaker.openUntil).toBeLessThanOrEqual(now + BOUNDS.maxBreakDurationMs);
  expect(Number.isFinite(breaker.failedProbes)).toBe(true);
  expect(pace.holdUntil).toBeLessThanOrEqual(now + DAY);
  expect(pace.since).toBeLessThanOrEqual(now + DAY);
  // Past times: a second of clock error allowed.
  expect(pace.heldAt).toBeLessThanOrEqual(now + 1000);
  expect(pace.lastSignal).toBeLessThanOrEqual(now + 1000);
  expect(pace.ignoreOverloadUntil).toBeLessThanOrEqual(now + BOUNDS.healthyAfterMs);
  if (pace.base > 0) {
    expect(pace.base).toBeGreaterThanOrEqual(BOUNDS.minRatePerSecond);
    expect(pace.base).toBeLessThanOrEqual(MAX_SHARED_RATE);
    expect(pace.decidedAt).toBeLessThanOrEqual(now + 1000);
  } else expect(pace.base).toBe(0);
  expect(pace.growth).toBeGreaterThanOrEqual(0);
  expect(pace.growth).toBeLessThanOrEqual(10);
  expect(pace.cap).toBeGreaterThanOrEqual(1);
  expect(pace.roundSum).toBeLessThanOrEqual(MAX_SHARED_RATE * Math.max(1, pace.roundReports));
  if (pace.overloadSince !== Infinity) expect(pace.overloadSince).toBeLessThanOrEqual(now + 1000);
}

describe('boundedScope: the one bound on what a store reports', () => {
  it('any state a hostile writer can make is ignored, or bounded by the local rules (and bounding it again changes nothing)', () => {
    fc.assert(
      fc.property(fc.oneof(hostileState, fc.anything()), (value) => {
        const state = boundedScope(value, NOW, BOUNDS);
        if (!state) return;
        expectBounded(state, NOW);
        expect(boundedScope(state, NOW, BOUNDS)).toEqual(state);
      }),
      { numRuns: 2000 },
    );
  });

  it('never changes a state the local rules produce (a pacer driven by throttles, a breaker opened)', () => {
    const signal = fc.record({
      dt: fc.integer({ min: 0, max: 3000 }),
      kind: fc.constantFrom('limit', 'quota', 'overload') as fc.Arbitrary<
        'limit' | 'quota' | 'overload'
      >,
      waitMs: fc.option(fc.integer({ min: 0, max: DAY }), { nil: undefined }),
      successes: fc.integer({ min: 0, max: 500 }),
      release: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(signal, { maxLength: 20 }), (signals) => {
        const pacer = createPacer(DEFAULT_PACING, () => 0.5, 60_000);
        let now = NOW - 100_000;
        for (const { dt, kind, waitMs, successes, release } of signals) {
          now += dt;
          const counts = { successes, failures: 1, throttled: 1, spanMs: 1000 };
          if (release) pacer.release(now, successes + 1);
          else pacer.throttle(now, counts, { kind, waitMs, sentAt: now }, false);
          pacer.reserve(now, now);
        }
        const breaker = { state: 'open' as const, openUntil: now + 1500, failedProbes: 3 };
        const state: SharedScope = { version: 7, pace: pacer.state, breaker };
        expect(boundedScope(state, now, BOUNDS)).toEqual(state);
      }),
    );
  });

  it('the attacks of the issue: a break to the year 3000, an endless hold, a rate of Infinity, 1e-9, cap 0, growth -1', () => {
    const unpaced = unpacedState(DEFAULT_PACING);
    const of = (pace: Partial<PaceState>, breaker = {}) =>
      boundedScope(
        {
          version: 1,
          pace: { ...unpaced, ...pace },
          breaker: { state: 'closed', openUntil: 0, failedProbes: 0, ...breaker },
        },
        NOW,
        BOUNDS,
      );
    const year3000 = Date.UTC(3000, 0, 1);
    expect(of({}, { state: 'open', openUntil: year3000 })?.breaker.openUntil).toBe(NOW + 2000);
    expect(of({}, { state: 'open', openUntil: Infinity })?.breaker.openUntil).toBe(NOW + 2000);
    // A hold "set" at Infinity is due a probe now; one until the year 3000 ends within a day.
    const held = of({ holdUntil: year3000, heldAt: Infinity })?.pace;
    expect(held).toMatchObject({ holdUntil: NOW + DAY, heldAt: -Infinity });
    expect(of({ base: Infinity, decidedAt: NOW })?.pace.base).toBe(MAX_SHARED_RATE);
    expect(of({ base: 1e-9, lastSignal: Infinity })?.pace).toMatchObject({
      base: DEFAULT_PACING.minRatePerSecond,
      lastSignal: NOW + 1000,
      decidedAt: NOW + 1000,
    });
    expect(of({ base: 5, cap: 0, growth: -1 })?.pace).toMatchObject({ cap: 1, growth: 0 });
    // Not a version: the state is ignored.
    expect(boundedScope({ ...of({}), version: 2 ** 53 - 1 }, NOW, BOUNDS)).toBeUndefined();
  });
});

describe('versions count round', () => {
  it('never leave the safe integers; a late state is not taken, a newer or restarted one is', () => {
    expect(nextVersion(VERSIONS - 1)).toBe(0);
    expect(supersedes(0, VERSIONS - 1)).toBe(true);
    expect(supersedes(5, 5)).toBe(false);
    // A few versions behind: a late message. Far behind: the scope started afresh.
    expect(supersedes(498, 500)).toBe(false);
    expect(supersedes(1, 5000)).toBe(true);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: VERSIONS - 1 }), (v) => {
        expect(isVersion(nextVersion(v))).toBe(true);
        expect(supersedes(nextVersion(v), v)).toBe(true);
        expect(supersedes(v, nextVersion(v))).toBe(false);
      }),
    );
  });
});

/** A store that reports `state` for every scope (as a hostile write left it), at once. */
function hostileStore(state: unknown): LoadControlStore {
  return {
    clockOffset: () => 0,
    update: (_key, current, change) => change(current),
    latest: () => state as SharedScope,
    watch: () => () => {},
    lease: () => true,
    unlease: () => {},
    clients: () => 1,
  };
}

describe('load control over a hostile store', () => {
  it('after any state a store reports, a call goes within one probe time: 2 × maxBreakDurationMs for a break, probeEveryMs for a hold', () => {
    const probeEveryMs = 10_000;
    fc.assert(
      fc.property(hostileState, (state) => {
        const control = createLoadControl({
          circuitBreaker: DEFAULT_CIRCUIT_BREAKER,
          pacing: DEFAULT_PACING,
          random: () => 0.5,
          probeEveryMs,
          store: hostileStore(state),
        });
        const t0 = clockNow();
        const bound = t0 + Math.max(2 * BOUNDS.maxBreakDurationMs, probeEveryMs);
        // The server is healthy from t0: calls come every 100 ms; the first that goes succeeds.
        let sentAt: number | undefined;
        for (let t = t0; t <= bound && sentAt === undefined; t += 100) {
          const verdict = control.admit('http://api.test', 'items', t, t);
          if (verdict.kind !== 'go') continue;
          sentAt = verdict.at;
          control.settle(verdict.pass, verdict.at, { result: 'success', sentAt: verdict.at });
        }
        expect(sentAt).toBeLessThanOrEqual(bound);
      }),
      { numRuns: 300 },
    );
  });

  it('a store that reports nonsense counts (NaN clients, an offset of years) is bounded too', () => {
    const store = guardStore(
      { ...hostileStore(undefined), clients: () => Number.NaN, clockOffset: () => 1e15 },
      BOUNDS,
    );
    expect(store.clients()).toBe(1);
    expect(store.clockOffset()).toBe(0);
    expect(guardStore({ ...hostileStore(undefined), clients: () => 1e9 }, BOUNDS).clients()).toBe(
      10_000,
    );
  });
});
