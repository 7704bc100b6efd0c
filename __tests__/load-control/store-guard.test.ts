import fc from 'fast-check';
import type { SharedScope } from '../../src/contract/store';
import { bounded } from '../../src/load-control/store-guard';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../../src/options/options';
import { now as clockNow } from '../../src/runtime/clock';
import { overStore, paceOf } from '../helpers/store-states';

// What another client (or another program, or a person with redis-cli) left in the store is
// bounded by this client's own rules before it is obeyed: one write must not park the fleet.

const DAY = 86_400_000;
const UNPACED = paceOf();
const rules = { pacing: DEFAULT_PACING, circuitBreaker: DEFAULT_CIRCUIT_BREAKER };

const anyNumber = fc.oneof(
  fc.double({ noNaN: true }),
  fc.constantFrom(Infinity, -Infinity, 0, -1, 1e-9, 1e300),
);
const anyState: fc.Arbitrary<SharedScope> = fc.record({
  version: fc.nat(),
  pace: fc.record({
    base: anyNumber,
    since: anyNumber,
    slowStart: fc.boolean(),
    growth: anyNumber,
    cap: anyNumber,
    decidedAt: anyNumber,
    cuts: anyNumber,
    holdUntil: anyNumber,
    heldAt: anyNumber,
    roundSum: anyNumber,
    roundReports: anyNumber,
    lastSignal: anyNumber,
    overloadSince: anyNumber,
    releasing: fc.boolean(),
    ignoreOverloadUntil: anyNumber,
  }),
  breaker: fc.record({
    state: fc.constantFrom('closed' as const, 'open' as const, 'half-open' as const),
    openUntil: anyNumber,
    failedProbes: fc.nat(),
  }),
});

describe('bounded: a state read from the store', () => {
  it('is bounded by the local rules whatever was written', () => {
    fc.assert(
      fc.property(anyState, fc.integer({ min: 0, max: 2 ** 40 }), (state, now) => {
        const { pace, breaker } = bounded(state, rules, now);
        expect(pace.holdUntil).toBeLessThanOrEqual(now + DAY);
        // A hold is probed as this client's own: its start is not in the future.
        expect(pace.heldAt).toBeLessThanOrEqual(now + 1000);
        for (const past of [pace.lastSignal, pace.decidedAt, pace.overloadSince]) {
          expect(past === Infinity || past <= now + 1000).toBe(true);
        }
        expect(pace.since).toBeLessThanOrEqual(Math.max(now, pace.holdUntil));
        expect(pace.base === 0 || (pace.base >= 0.5 && pace.base <= 100_000)).toBe(true);
        expect(pace.growth).toBeGreaterThanOrEqual(0);
        expect(pace.growth).toBeLessThanOrEqual(1);
        expect(pace.cap).toBeGreaterThanOrEqual(1);
        expect(pace.roundSum).toBeGreaterThanOrEqual(0);
        expect(pace.roundSum).toBeLessThanOrEqual(100_000);
        expect(pace.roundReports).toBeGreaterThanOrEqual(0);
        expect(pace.ignoreOverloadUntil).toBeLessThanOrEqual(now + DEFAULT_PACING.healthyAfterMs);
        expect(breaker.openUntil).toBeLessThanOrEqual(
          now + DEFAULT_CIRCUIT_BREAKER.maxBreakDurationMs,
        );
      }),
    );
  });

  it('changes nothing more when bounded again, and leaves a state within the rules as it is', () => {
    fc.assert(
      fc.property(anyState, fc.integer({ min: 0, max: 2 ** 40 }), (state, now) => {
        const once = bounded(state, rules, now);
        expect(bounded(once, rules, now)).toEqual(once);
      }),
    );
    // What this client's own pacer and breaker write: a rate cut, a hold of 30 s, a break.
    const own: SharedScope = {
      version: 7,
      pace: {
        ...{ base: 12.5, since: 1000, slowStart: false, growth: 0.05, cap: Infinity },
        ...{ decidedAt: 1000, cuts: 2, holdUntil: 31_000, heldAt: 1000, roundSum: 12.5 },
        ...{ roundReports: 1, lastSignal: 1000, overloadSince: Infinity, releasing: false },
        ignoreOverloadUntil: -Infinity,
      },
      breaker: { state: 'open', openUntil: 1500, failedProbes: 1 },
    };
    expect(bounded(own, rules, 1000)).toEqual(own);
    // A release (its fast climb of 1 a second, cap 2) after a pacing that ignores overload 503s
    // for healthyAfterMs; and a scope never paced.
    const released: SharedScope = {
      ...own,
      pace: {
        ...own.pace,
        ...{ growth: 1, cap: 2, releasing: true, holdUntil: 1000 },
        ignoreOverloadUntil: 1000 + DEFAULT_PACING.healthyAfterMs,
      },
      breaker: { state: 'closed', openUntil: 0, failedProbes: 0 },
    };
    expect(bounded(released, rules, 1000)).toEqual(released);
    const unpaced: SharedScope = { ...released, pace: UNPACED };
    expect(bounded(unpaced, rules, 1000)).toEqual(unpaced);
  });
});

/** Load control (defaults, a probe every 60 s) over a store in which `written` is every state. */
const overWritten = (written: SharedScope) => overStore(() => written);

describe('load control over a store another program wrote', () => {
  it('a year-long hold at a rate of 1e-4, written with its start a year ahead: held a day at most, probed after probeEveryMs, and the probe’s success ends it', () => {
    const start = clockNow();
    const year = start + 365 * DAY;
    const intruder: SharedScope = {
      version: 1000,
      pace: {
        ...{ base: 1e-4, since: year, slowStart: false, growth: -1, cap: 0 },
        ...{ decidedAt: year, cuts: 0, holdUntil: year, heldAt: year, roundSum: 0 },
        ...{ roundReports: 0, lastSignal: year, overloadSince: Infinity, releasing: false },
        ignoreOverloadUntil: year,
      },
      breaker: { state: 'closed', openUntil: 0, failedProbes: 0 },
    };
    const control = overWritten(intruder);
    const held = control.admit(['http://api.test', 'items'], start, Infinity);
    expect(held.kind).toBe('go');
    expect(held.kind === 'go' && held.at - start).toBeLessThanOrEqual(DAY + 1000);
    const probe = control.admit(['http://api.test', 'items'], start + 62_000, Infinity);
    expect(probe).toMatchObject({ kind: 'go', at: start + 62_000 });
    if (probe.kind !== 'go') return;
    control.settle(probe.pass, start + 62_010, { result: 'success', sentAt: start + 62_000 });
    expect(control.admit(['http://api.test', 'items'], start + 62_020, Infinity)).toMatchObject({
      kind: 'go',
      at: start + 62_020,
    });
  });

  it('a break to the year 3000 lasts maxBreakDurationMs at most', () => {
    const start = clockNow();
    const control = overWritten({
      version: 1,
      pace: UNPACED,
      breaker: { state: 'open', openUntil: Date.UTC(3000, 0), failedProbes: 0 },
    });
    const verdict = control.admit(['http://api.test', 'items'], start, Infinity);
    expect(verdict.kind).toBe('wait');
    expect(verdict.kind === 'wait' && verdict.until - start).toBeLessThanOrEqual(
      DEFAULT_CIRCUIT_BREAKER.maxBreakDurationMs + 50,
    );
  });
});
