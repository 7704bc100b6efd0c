import axios from 'axios';
import { attachRetry } from '../../src';
import type { LoadControlStore, SharedScope } from '../../src/contract/store';
import {
  createLoadControl,
  type Ending,
  type LoadControl,
} from '../../src/load-control/load-control';
import { memoryStore } from '../../src/load-control/store';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../../src/options/options';
import { CLOSED, paceOf } from '../helpers/store-states';

// Load control over a store that other clients share: what one client learns, the others act
// on. The store here is a stand-in in this process, with a remote store's contract (state held
// apart, changes made on the latest state, others told of them); the Redis one is tested
// against a real redis-server in redis-store.test.ts.

const O = 'http://api.test';
const ROUTE = 'items';
const breaker = { ...DEFAULT_CIRCUIT_BREAKER, minimumThroughput: 4 };
const HELD: SharedScope = {
  version: 1,
  pace: paceOf({ base: 1, holdUntil: Date.now() + 86_400_000 }),
  breaker: CLOSED,
};

/** A fleet's shared state; `lease` answers at once, or (`later`) with a promise. */
function fleet(size: number, later = false) {
  const states = new Map<string, SharedScope>();
  const listeners = new Map<number, (key: string, state: SharedScope) => void>();
  let holder: number | undefined;
  const store = (id: number): LoadControlStore => ({
    clockOffset: () => 0,
    update(key, current, change) {
      const latest = states.get(key) ?? current;
      const next = { ...change(latest), version: latest.version + 1 };
      states.set(key, next);
      for (const [other, listener] of listeners) if (other !== id) listener(key, next);
      return next;
    },
    latest: (key) => states.get(key),
    watch(listener) {
      listeners.set(id, listener);
      return () => listeners.delete(id);
    },
    lease() {
      const taken = holder === undefined || holder === id;
      if (taken) holder = id;
      return later ? Promise.resolve(taken) : taken;
    },
    unlease: () => {
      if (holder === id) holder = undefined;
    },
    clients: () => size,
  });
  return Array.from({ length: size }, (_, id) =>
    createLoadControl({
      circuitBreaker: breaker,
      pacing: DEFAULT_PACING,
      random: () => 1,
      probeEveryMs: 60_000,
      store: store(id),
    }),
  );
}

const ending = (result: Ending['result'], now: number, extra: Partial<Ending> = {}): Ending => ({
  result,
  sentAt: now,
  ...extra,
});

function send(c: LoadControl, now: number, result: Ending['result'], extra?: Partial<Ending>) {
  const verdict = c.admit([O, ROUTE], now, Infinity);
  if (verdict.kind !== 'go') throw new Error(`not let through: ${verdict.kind}`);
  c.settle(verdict.pass, now, ending(result, now, extra));
  return verdict;
}

describe('load control over a shared store', () => {
  it('a client that never met a throttle paces at its share of the rate another client learned', () => {
    const [a, b] = fleet(2);
    send(b!, 0, 'success');
    for (let i = 0; i < 20; i++) send(a!, 0, 'success');
    expect(b!.standing([O, ROUTE], 1).paced).toBe(false);
    send(a!, 0, 'throttled', { status: 429, waitMs: 0 });
    expect(b!.standing([O, ROUTE], 1).paced).toBe(true);
    // a accepted 20 in its window: the fleet, two clients, 40 per second; b's share is 20/s.
    const slots = [0, 1, 2].map(() => {
      const v = b!.admit([O, ROUTE], 10, Infinity);
      return v.kind === 'go' ? Math.round(v.at) : NaN;
    });
    expect(slots).toEqual([10, 60, 110]);
  });

  it("the clients' answers to one burst add up: the fleet's rate is what they accepted together", () => {
    const [a, b] = fleet(2);
    for (let i = 0; i < 10; i++) send(a!, 0, 'success');
    for (let i = 0; i < 30; i++) send(b!, 0, 'success');
    // Both bursts were sent before the first 429 came back (b's answer is old news).
    send(a!, 0, 'throttled', { status: 429, waitMs: 0 });
    send(b!, 0, 'throttled', { status: 429, waitMs: 0 });
    // 10 + 30 accepted: 40 per second for the fleet, 20 for each of the two clients. (Neither
    // a's 10 × 2 nor b's 30 × 2, nor the larger of the two.)
    const slots = [0, 1].map(() => {
      const v = a!.admit([O, ROUTE], 10, Infinity);
      return v.kind === 'go' ? Math.round(v.at) : NaN;
    });
    expect(slots).toEqual([10, 60]);
  });

  it('a client that meets the scope later starts from the state the others left', () => {
    const [a, b] = fleet(2);
    // Of the 4 attempts the breaker needs to judge, a client of two sees its share: 2.
    for (let i = 0; i < 2; i++) send(a!, 0, 'failure', { originWide: true });
    expect(b!.admit([O, ROUTE], 1, Infinity).kind).toBe('wait');
  });

  it('a breaker one client opened holds the other client too, until a probe closes it', () => {
    const [a, b] = fleet(2);
    // Of the 4 attempts the breaker needs to judge, a client of two sees its share: 2.
    for (let i = 0; i < 2; i++) send(a!, 0, 'failure', { originWide: true });
    const waiting = b!.admit([O, ROUTE], 1, Infinity);
    expect(waiting.kind).toBe('wait');
    const woken = jest.fn();
    if (waiting.kind === 'wait') b!.waiters(waiting.scope).enqueue(1, woken);
    const after = breaker.breakDurationMs * 1.1;
    const probe = a!.admit([O, ROUTE], after, Infinity);
    expect(probe.kind === 'go' && probe.pass.probes?.length).toBe(1);
    if (probe.kind === 'go') a!.settle(probe.pass, after, ending('success', after));
    expect(woken).toHaveBeenCalled();
    expect(b!.admit([O, ROUTE], after, Infinity).kind).toBe('go');
  });

  it("once the breaker closes, every client releases its share of the fleet's last good rate", () => {
    const [a, b] = fleet(2);
    // Each client handled 20 per second (the fleet 40) before the origin failed.
    for (let t = 0; t < 1000; t += 50) {
      send(a!, t, 'success');
      send(b!, t, 'success');
    }
    send(a!, 1000, 'failure', { originWide: true });
    send(b!, 1000, 'failure', { originWide: true });
    for (let i = 0; i < 2; i++) send(a!, 2100, 'failure', { originWide: true });
    expect(b!.admit([O, ROUTE], 2100, Infinity).kind).toBe('wait');
    const probe = a!.admit([O, ROUTE], 2700, Infinity);
    if (probe.kind === 'go') a!.settle(probe.pass, 2700, ending('success', 2700));
    // b goes at its share of 40 per second: 20 per second, 50 ms apart.
    const slots = [0, 1].map(() => {
      const v = b!.admit([O, ROUTE], 2700, Infinity);
      return v.kind === 'go' ? Math.round(v.at) : NaN;
    });
    expect(slots).toEqual([2700, 2750]);
  });

  it('sends one probe for the whole fleet: the others wait for its answer', () => {
    const [a, b] = fleet(2);
    // Of the 4 attempts the breaker needs to judge, a client of two sees its share: 2.
    for (let i = 0; i < 2; i++) send(a!, 0, 'failure', { originWide: true });
    const after = breaker.breakDurationMs * 1.1;
    expect(a!.admit([O, ROUTE], after, Infinity).kind).toBe('go');
    const other = b!.admit([O, ROUTE], after, Infinity);
    expect(other.kind).toBe('wait');
  });

  it('with a lease answered later, the call waits and is woken to send the probe', async () => {
    const [a] = fleet(1, true);
    for (let i = 0; i < 4; i++) send(a!, 0, 'failure', { originWide: true });
    const after = breaker.breakDurationMs * 1.1;
    const first = a!.admit([O, ROUTE], after, Infinity);
    expect(first).toMatchObject({ kind: 'wait', until: Infinity });
    const woken = new Promise<void>((resolve) => {
      if (first.kind === 'wait') a!.waiters(first.scope).enqueue(after, resolve);
    });
    await woken;
    const probe = a!.admit([O, ROUTE], after, Infinity);
    expect(probe.kind === 'go' && probe.pass.probes?.length).toBe(1);
  });

  it('with the breaker and pacing off, the store is never used: its hold stops nothing', async () => {
    const used: string[] = [];
    const spied = Object.fromEntries(
      // A day-long hold on every scope, as another program might have written.
      Object.entries({ ...memoryStore(), latest: () => HELD }).map(([name, method]) => [
        name,
        (...args: unknown[]) => {
          used.push(name);
          return (method as (...a: unknown[]) => unknown)(...args);
        },
      ]),
    ) as unknown as LoadControlStore;
    const instance = axios.create({
      adapter: async (config) => ({
        config,
        status: 200,
        statusText: 'OK',
        headers: {},
        data: 'ok',
      }),
    });
    attachRetry(instance, { store: spied, circuitBreaker: false, pacing: false });
    await expect(instance.get(`${O}/${ROUTE}`)).resolves.toMatchObject({ data: 'ok' });
    expect(used).toEqual([]);
  });

  it('a client detached from its instance stops hearing the store, which outlives it', () => {
    const store = memoryStore();
    const listening = new Set<unknown>();
    const watched = {
      ...store,
      watch(listener: (key: string, state: SharedScope) => void) {
        listening.add(listener);
        return () => listening.delete(listener);
      },
    };
    const detach = attachRetry(axios.create(), { store: watched });
    expect(listening.size).toBe(1);
    detach();
    expect(listening.size).toBe(0);
  });
});
