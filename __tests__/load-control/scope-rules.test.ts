import type { SharedScope } from '../../src/contract/store';
import type { createLoadControl, Verdict } from '../../src/load-control/load-control';
import { now as clockNow } from '../../src/runtime/clock';
import { overStore, paceOf } from '../helpers/store-states';

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
  return overStore((key) =>
    open.includes(key) ? { version: 1, pace: paceOf(), breaker } : undefined,
  );
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
    const pass = go(c.admit([origin, route], t + i, Infinity));
    c.settle(pass, t + i + 1, { result: 'failure', status: 503, sentAt: t + i });
  }
}

describe("a route's breaker that opens", () => {
  it("while another route of its origin is open opens the origin's: a third route waits", () => {
    const start = clockNow();
    const c = withOpen([`${X}/a`], start);
    // This client has met route a's open breaker (it knows of the scope).
    expect(c.admit([X, 'a'], start, Infinity)).toMatchObject({
      kind: 'wait',
      scope: { name: `${X}/a` },
    });
    expect(c.admit([X, 'c'], start, Infinity).kind).toBe('go');
    failTen(c, X, 'b', start);
    expect(c.admit([X, 'c'], start + 20, Infinity)).toMatchObject({
      kind: 'wait',
      scope: { name: X },
    });
  });

  it('that opens its origin has it released at the rate the origin handled before its routes failed (issue 21)', () => {
    const start = clockNow();
    const c = withOpen([], start);
    const originState = () => [...c.scopes()].find((scope) => scope.name === X)?.breaker?.state;
    // A healthy second: routes a and b, 100 a second between them. Then both fail as often:
    // each route's breaker opens once its last second is all failures, the second the origin's.
    let t = start;
    for (; t < start + 1000; t += 10) {
      const pass = go(c.admit([X, (t - start) % 20 ? 'a' : 'b'], t, Infinity));
      c.settle(pass, t + 1, { result: 'success', sentAt: t });
    }
    for (; originState() !== 'open' && t < start + 3000; t += 10) {
      const verdict = c.admit([X, (t - start) % 20 ? 'a' : 'b'], t, Infinity);
      if (verdict.kind === 'go') {
        c.settle(verdict.pass, t + 1, { result: 'failure', status: 503, sentAt: t });
      }
    }
    const open = c.admit([X, 'c'], t, Infinity);
    if (open.kind !== 'wait') throw new Error(open.kind);
    expect(open.scope.name).toBe(X);
    // Two calls wait for it; the probe succeeds once the break is over.
    for (const at of [1, 2]) c.waiters(open.scope).enqueue(start + at, () => {});
    const probeAt = open.until;
    c.settle(go(c.admit([X, 'c'], probeAt, Infinity)), probeAt + 1, {
      result: 'success',
      sentAt: probeAt,
    });
    const slots = [0, 1, 2].map(() => {
      const verdict = c.admit([X, 'c'], probeAt + 1, Infinity);
      if (verdict.kind !== 'go') throw new Error(verdict.kind);
      return verdict.at - probeAt - 1;
    });
    // Released at about the 100 a second the origin handled (the window's oldest tenth has slid
    // out: 90 over its second, 11 ms apart), not at the 2 calls waiting (833 ms for the third,
    // ramping from 2 a second): by the time the routes' breakers opened it, the origin's own
    // window held no success to measure.
    expect(slots[0]).toBe(0);
    expect(slots[2]).toBeGreaterThanOrEqual(20);
    expect(slots[2]).toBeLessThan(25);
  });

  it('among routes that succeed, opens only itself, whatever other route is open (issue 21)', () => {
    const start = clockNow();
    const c = withOpen([`${X}/a`], start);
    expect(c.admit([X, 'a'], start, Infinity)).toMatchObject({ kind: 'wait' });
    // Route c succeeds while route b fails ten times: two broken routes, not a broken origin.
    for (let i = 0; i < 10; i++) {
      c.settle(go(c.admit([X, 'c'], start + i, Infinity)), start + i + 1, {
        result: 'success',
        sentAt: start + i,
      });
    }
    failTen(c, X, 'b', start);
    expect(c.admit([X, 'b'], start + 20, Infinity)).toMatchObject({ kind: 'wait' });
    expect(c.admit([X, 'c'], start + 20, Infinity).kind).toBe('go');
  });

  it("while only another origin's route is open opens neither origin", () => {
    const start = clockNow();
    const c = withOpen([`${X}/a`], start);
    expect(c.admit([X, 'a'], start, Infinity)).toMatchObject({ kind: 'wait' });
    failTen(c, Y, 'b', start);
    expect(c.admit([Y, 'c'], start + 20, Infinity).kind).toBe('go');
    expect(c.admit([X, 'c'], start + 20, Infinity).kind).toBe('go');
  });

  it('alone opens only itself', () => {
    const start = clockNow();
    const c = withOpen([], start);
    // A route this client knows, its breaker closed.
    c.settle(go(c.admit([X, 'c'], start, Infinity)), start + 1, {
      result: 'success',
      sentAt: start,
    });
    failTen(c, X, 'b', start);
    expect(c.admit([X, 'b'], start + 20, Infinity)).toMatchObject({ kind: 'wait' });
    expect(c.admit([X, 'c'], start + 20, Infinity).kind).toBe('go');
  });
});

it("an origin's latency: the first success's, then each success weighs 0.2", () => {
  const start = clockNow();
  const c = withOpen([], start);
  const succeed = (sentAt: number, took: number) =>
    c.settle(go(c.admit([X, 'a'], sentAt, Infinity)), sentAt + took, {
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
  /** A response on `route` of X that names quota `id`: a success, or a 429 with a 5 s wait. */
  const answer = (
    c: ReturnType<typeof createLoadControl>,
    [route, id]: [route: string, id: string],
    t: number,
    throttled = false,
  ) =>
    c.settle(go(c.admit([X, route], t, Infinity)), t + 1, {
      ...(throttled
        ? { result: 'throttled', status: 429, waitMs: 5000 }
        : { result: 'success', status: 200 }),
      rateLimit: { bucket: id, remaining: throttled ? undefined : 50 },
      sentAt: t,
    });
  /** When a call to route `c` may go (`at`): at once, or when the origin's hold ends. */
  const slotOfC = (c: ReturnType<typeof createLoadControl>, t: number) => {
    const verdict = c.admit([X, 'c'], t, Infinity);
    if (verdict.kind !== 'go') throw new Error(verdict.kind);
    return verdict.at - t;
  };

  const others = (n: number): [string, string][] =>
    Array.from({ length: n }, (_, i) => ['a', `id${i}`]);
  it.each<[string, [route: string, id: string][], boolean]>([
    ['announced on another route first holds the whole origin', [['a', 'q']], true],
    [
      'announced on another route first, then on its own, still does',
      [
        ['a', 'q'],
        ['b', 'q'],
      ],
      true,
    ],
    [
      'announced on its own route only holds that route alone',
      [
        ['a', 'other'],
        ['b', 'q'],
      ],
      false,
    ],
    [
      'announced as the 32nd id an origin keeps still holds the origin',
      [...others(31), ['a', 'q']],
      true,
    ],
    [
      'announced past the 32 ids an origin keeps is not taken for shared',
      [...others(32), ['a', 'q']],
      false,
    ],
  ])('%s', (_name, announced, originHeld) => {
    const start = clockNow();
    const c = withOpen([], start);
    for (const [i, said] of announced.entries()) answer(c, said, start + i);
    answer(c, ['b', 'q'], start + 50, true);
    // Route c waits for the origin's hold (5 s), or goes at once.
    if (originHeld) expect(slotOfC(c, start + 60)).toBeGreaterThan(4000);
    else expect(slotOfC(c, start + 60)).toBe(0);
  });
});
