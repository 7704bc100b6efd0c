import { startLeakyBucket } from '../helpers/leaky-bucket';
import {
  clientFor,
  describe13,
  getWithin,
  track,
  useLoopbackCleanup,
} from '../helpers/loopback-client';

// Issue 13, item 6: nginx `limit_req` (leaky bucket, rate 20 r/s, burst 5, no nodelay), 100
// concurrent GETs with the defaults. The pacer must find the drain rate, not the burst, and ride
// out the rejections whether they are 429s or nginx's default 503s. Targets: 429 form 0 failed,
// ≤ 1.3× ideal; 503 form 0 failed, ≤ 1.5× ideal; the ideal is 100 requests at 20 per second, 5 s.
// (Measured on 0.1.0: 16.6 s = 3.3× ideal with 429s; only 42 of 100 succeed with 503s.)

useLoopbackCleanup();

const IDEAL_MS = 5000;
// A loaded two-core CI box: a second on top of the target.
const SLACK_MS = 1000;

/** 100 concurrent GETs through a fresh client against a fresh limiter rejecting with `status`. */
async function burstOf100(rejectStatus: 429 | 503, factor: number) {
  const server = track(await startLeakyBucket({ ratePerSecond: 20, burst: 5, rejectStatus }));
  const client = clientFor(server.url);
  const bound = factor * IDEAL_MS + SLACK_MS;
  const started = performance.now();
  // Each call is cut off a little past the bound, so a failing run ends instead of hanging.
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => getWithin(client, `/items/${i}`, bound + 1500)),
  );
  const elapsed = performance.now() - started;
  // Failures tallied by kind ("still pending" for a call cut off at the bound).
  const failed: Record<string, number> = {};
  for (const r of results.filter((o) => !o.response)) {
    const kind = describe13(r).replace(/ after \d+ ms$/, '');
    failed[kind] = (failed[kind] ?? 0) + 1;
  }
  return {
    rejectStatus,
    failed,
    withinBound: elapsed <= bound,
    elapsed: Math.round(elapsed),
    served: server.answers.filter((a) => a.status === 200).length,
    rejected: server.answers.filter((a) => a.status !== 200).length,
  };
}

// The two forms run one after the other (each against its own limiter): side by side, 200 calls
// and two servers share one event loop, and on a loaded two-core box its lag alone made calls of
// the 503 form spend their retry budget.
it('100 concurrent GETs: rejecting with 429, all succeed within 1.3× the ideal time; with 503, within 1.5×', async () => {
  const with429 = await burstOf100(429, 1.3);
  const with503 = await burstOf100(503, 1.5);
  // Both in one assertion, so that a failure shows both figures.
  expect([with429, with503]).toEqual(
    [with429, with503].map((outcome) => ({
      rejectStatus: outcome.rejectStatus,
      failed: {},
      withinBound: true,
      elapsed: outcome.elapsed,
      served: 100,
      rejected: outcome.rejected,
    })),
  );
}, 40_000);

it('the limiter behaves as nginx limit_req: 6 of a burst are let in (5 delayed, 50 ms apart), the rest rejected', async () => {
  // The limiter's clock stands still: the 10 requests are one burst, however far apart they
  // arrive. (On its real clock, on a loaded two-core box, 10 connections opened at once reached
  // it over more than 50 ms, one slot drained meanwhile, and 7 were let in.)
  const server = track(
    await startLeakyBucket({ ratePerSecond: 20, burst: 5, rejectStatus: 503, now: () => 0 }),
  );
  const client = clientFor(server.url, { retries: 0, circuitBreaker: false, pacing: false });
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => getWithin(client, `/burst/${i}`, 3000)),
  );
  expect(results.filter((r) => r.response)).toHaveLength(6);
  expect(results.filter((r) => r.error?.response?.status === 503)).toHaveLength(4);
  const delays = server.answers
    .filter((a) => a.status === 200)
    .map((a) => a.delayMs)
    .sort((a, b) => a - b);
  // The excess is counted in requests, drained at 20 per second: 0, ~50, ~100, … ~250 ms.
  expect(delays[0]).toBe(0);
  expect(delays[5]).toBeGreaterThan(200);
  expect(delays[5]).toBeLessThanOrEqual(250);
});
