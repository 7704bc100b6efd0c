import http from 'node:http';
import axios from 'axios';
import { attachRetry } from '../../src';
import {
  clientFor,
  describe13,
  getWithin,
  onCleanup,
  runJob,
  track,
  useLoopbackCleanup,
} from '../helpers/loopback-client';
import { startServer } from '../helpers/loopback-server';

// Issue 13, item 5: occasional throttles on a healthy, fast server cost little. (Measured on
// 0.1.0: 0.5 % random 429s at 64 in flight, 167 calls/s with the defaults against 2 444 with load
// control off; one 200 with remaining 0 and an unreadable reset paced the origin at 1 call/s.)
// Real servers on 127.0.0.1, scaled down: 1 000 calls at 32 in flight.

useLoopbackCleanup();

/** A seeded generator of numbers in [0, 1), so that every run throttles the same requests. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A healthy server on 127.0.0.1 that answers a bare 429 to 0.5 % of requests, the same ones each run. */
async function occasionally429() {
  const draw = seeded(5);
  return track(
    await startServer((_arrival, res) => {
      if (draw() < 0.005) res.writeHead(429).end();
      else res.end('ok');
    }),
  );
}

/**
 * Two jobs of each mode, in the order off, on, on, off, each with a server and a client of its
 * own (no pace carries over from one job to the next): each mode is judged by its faster job. On
 * a shared machine the load changes from one second to the next (measured under load: the same
 * job with load control off took 2.8 s in one run and 12.1 s in another), so one job of each,
 * one after the other, compared two moments of the machine more than the two modes.
 */
async function offAndOnTwice<T>(run: (loadControl: boolean) => Promise<T>) {
  const off: T[] = [];
  const on: T[] = [];
  for (const loadControl of [false, true, true, false]) {
    (loadControl ? on : off).push(await run(loadControl));
  }
  return { off, on };
}

const fastest = <T extends { perSecond: number }>(runs: readonly T[]): number =>
  Math.max(...runs.map((r) => r.perSecond));

it('0.5 % random 429s (no headers), 1 000 calls at 32 in flight: throughput ≥ 0.6× that of load control off, 0 failed', async () => {
  const run = async (loadControl: boolean) => {
    const server = await occasionally429();
    const client = clientFor(
      server.url,
      loadControl ? {} : { circuitBreaker: false, pacing: false },
    );
    const started = performance.now();
    const results = await runJob(1000, 32, (i) => getWithin(client, `/items/${i}`, 8000));
    const elapsed = performance.now() - started;
    return {
      perSecond: Math.round((1000 * 1000) / elapsed),
      failed: results.filter((r) => !r.response).length,
      throttled: server.arrivals.length - 1000,
    };
  };
  const { off, on } = await offAndOnTwice(run);
  for (const job of off) {
    expect(job.failed).toBe(0);
    expect(job.throttled).toBeGreaterThan(0);
  }
  expect({ on, off, atLeast0_6: fastest(on) >= 0.6 * fastest(off) }).toEqual({
    on: on.map((job) => ({ ...job, failed: 0 })),
    off,
    atLeast0_6: true,
  });
  // Four jobs of 1 000 calls: 2 to 12 s each on a loaded two-core box (42 s in all, measured).
}, 120_000);

it('one 200 with remaining 0 and an unreadable reset does not pace the origin: 50 calls, 10 in flight, within 2 s', async () => {
  let count = 0;
  const server = track(
    await startServer((_arrival, res) => {
      count += 1;
      if (count === 1) {
        res.writeHead(200, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': 'soon' }).end('ok');
      } else res.end('ok');
    }),
  );
  const client = clientFor(server.url);
  expect(describe13(await getWithin(client, '/first', 3000))).toBe('ok 200');
  const started = performance.now();
  const results = await runJob(50, 10, (i) => getWithin(client, `/items/${i}`, 3000));
  const elapsed = performance.now() - started;
  expect(results.filter((r) => !r.response).map(describe13)).toEqual([]);
  expect(elapsed).toBeLessThan(2000);
}, 10_000);

// Issue 21, item 2, as it was measured: a keep-alive agent with `maxSockets: 64`, a pool of 64
// workers, a 10 s `timeout`, 2 000 calls (measured on f8c931c: 0.36–0.41× load control off). Not
// reproduced here; what would have slowed it is named: no call waits at the gate, none fails.
it('0.5 % random 429s (no headers), keep-alive agent of 64 sockets, 64 workers, 10 s timeout, 2 000 calls: no call waits at the gate, 0 failed, throughput ≥ 0.6× off', async () => {
  const run = async (loadControl: boolean) => {
    const server = await occasionally429();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    onCleanup(() => agent.destroy());
    const instance = axios.create({ baseURL: server.url, httpAgent: agent, timeout: 10_000 });
    attachRetry(instance, loadControl ? {} : { circuitBreaker: false, pacing: false });
    let next = 0;
    let failed = 0;
    let waited = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < 2000) {
          const i = next++;
          try {
            const response = await instance.get(`/items/${i}`);
            if (response.config.retryState?.waitedMs) waited += 1;
          } catch {
            failed += 1;
          }
        }
      }),
    );
    const perSecond = Math.round(2_000_000 / (performance.now() - started));
    return { perSecond, failed, waited, throttled: server.arrivals.length - 2000 };
  };
  const { off, on } = await offAndOnTwice(run);
  for (const job of off) expect(job.throttled).toBeGreaterThan(0);
  // (Every job's figures in the message, should it fail.)
  expect({ on, off, atLeast0_6: fastest(on) >= 0.6 * fastest(off) }).toEqual({
    on: on.map((job) => ({ ...job, failed: 0, waited: 0 })),
    off,
    atLeast0_6: true,
  });
  // Four jobs of 2 000 calls: 4 to 16 s each on a loaded two-core box (66 s in all, measured).
}, 180_000);
