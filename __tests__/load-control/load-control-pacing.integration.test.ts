import { performance } from 'node:perf_hooks';
import { failureOf } from '../helpers/failure';
import { describeFailure, runJob } from '../helpers/load-control-harness';
import { clientFor, track, useLoopbackCleanup } from '../helpers/loopback-client';
import { startServer } from '../helpers/loopback-server';
import { type QuotaHeaders, startRateLimiter } from '../helpers/rate-limiter';

// Per-origin load control (circuit breaker, issue 7; adaptive pacing, issue 8) against real
// servers on 127.0.0.1, in real time: short breaks and windows are passed as options where the
// defaults would make a test slow, and the defaults are used where they are the point.
// This file: adaptive pacing (issue 8).

useLoopbackCleanup();

describe('pacing', () => {
  it('before any throttle signal nothing waits', async () => {
    const server = track(await startServer((_arrival, res) => res.end('ok')));
    const client = clientFor(server.url);
    const results = await runJob(60, 10, (i) => client.http.get(`/free/${i}`));
    for (const result of results) {
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.value.config.retryState?.waitedMs).toBeUndefined();
    }
    expect(server.arrivals).toHaveLength(60);
  });

  /** A job against a fixed-window limiter of 20 per second: what failed, and the 429s per window. */
  async function fixedWindowJob(retryAfter: boolean, total: number, loadControl = true) {
    const server = track(await startRateLimiter({ limit: 20, windowMs: 1000, retryAfter }));
    const client = clientFor(
      server.url,
      loadControl ? {} : { circuitBreaker: false, pacing: false },
    );
    const started = Date.now();
    const results = await runJob(total, 10, (i) => client.http.get(`/job/${i}`));
    return {
      elapsed: Date.now() - started,
      failed: results.filter((r) => !r.ok).map((r) => describeFailure(!r.ok && r.error)),
      rejectedPerWindow: server.rejectedPerWindow(),
    };
  }

  it('a fixed-window limiter answering 429 with Retry-After: a job of 60 calls, 10 at a time, at 20/s: 0 failed, the 429s nearly stop after the first window', async () => {
    const { elapsed, failed, rejectedPerWindow } = await fixedWindowJob(true, 60);
    expect(failed).toEqual([]);
    const later = rejectedPerWindow.slice(1).reduce((sum, n) => sum + n, 0);
    // The numbers are reported with a failure.
    expect({ rejectedPerWindow, laterAtMost3: later <= 3 }).toEqual({
      rejectedPerWindow,
      laterAtMost3: true,
    });
    // The ideal is 3 windows; the limiter's whole-second Retry-After overshoots the first reset,
    // and a late 429 costs a whole Retry-After more.
    expect(elapsed).toBeLessThan(5000);
  });

  it('a fixed-window limiter answering 429 without Retry-After: a job of 40 calls, 10 at a time, at 20/s: no more failed than with load control off, and about as many 429s', async () => {
    // Issue 21: a 429 that says nothing paces only a burst mostly refused, and holds it a tenth
    // of a second, not a second: a bucket that refills in milliseconds refuses a burst as this
    // window does. The window's 429s then cost about what they cost off (74-77 against 78-80,
    // six runs; 60-64 when a bare burst held the scope a second), and the pace still fails
    // fewer calls (9-10 against 18-20).
    const off = await fixedWindowJob(false, 40, false);
    const on = await fixedWindowJob(false, 40);
    const sum = (counts: number[]) => counts.reduce((total, n) => total + n, 0);
    const [on429s, off429s] = [sum(on.rejectedPerWindow), sum(off.rejectedPerWindow)];
    expect({
      notMoreFailed: on.failed.length <= off.failed.length,
      about429s: on429s <= off429s * 1.1 + 2,
    }).toEqual({ notMoreFailed: true, about429s: true });
    // Two real jobs of about 2 s each: Jest's 5 s default timed out once on two loaded cores (the
    // axios matrix of a CI rehearsal); the margin is the test's, no timing is asserted.
  }, 20_000);

  it('limiters that send rate-limit headers on every response (draft-7 RateLimit, X-RateLimit-*, draft-8 RateLimit), 1 s windows: no window lost to a whole-second reset, 0 failed', async () => {
    // The three run side by side, each with its own server and client: 20 calls, 10 per second.
    // A one-second quota is paced at its own rate rather than held to a reset rounded up to the
    // second (which would lose up to a second per window): a few sends meet the window's end.
    const variants: QuotaHeaders[] = ['draft-7', 'x-ratelimit', 'draft-8'];
    const outcomes = await Promise.all(
      variants.map(async (headers) => {
        const server = track(
          await startRateLimiter({ limit: 10, windowMs: 1000, retryAfter: false, headers }),
        );
        const client = clientFor(server.url);
        const started = performance.now();
        const results = await runJob(20, 5, (i) => client.http.get(`/quota/${i}`));
        return {
          headers,
          failed: results.filter((r) => !r.ok).map((r) => describeFailure(!r.ok && r.error)),
          served: server.answers.filter((a) => a.status === 200).length,
          // At most half the calls met a 429 (each then waited for the next window).
          fewRejected: server.answers.filter((a) => a.status === 429).length <= 10,
          // Two windows of 10: done early in the third (about 2.0 s here; held to resets rounded up
          // to the second, it took 2.9 s).
          inTime: performance.now() - started < 2500,
        };
      }),
    );
    for (const outcome of outcomes) {
      expect(outcome).toEqual({
        headers: outcome.headers,
        failed: [],
        served: 20,
        fewRejected: true,
        inTime: true,
      });
    }
  });

  it('a GitHub-style 403 with X-RateLimit-Remaining: 0 and an epoch X-RateLimit-Reset is retried after the reset', async () => {
    let resetAt = 0;
    const server = track(
      await startServer((_arrival, res) => {
        if (server.arrivals.length === 1) {
          // The server's clock to the second, as HTTP dates are; the quota resets at the next second.
          const nowSeconds = Math.floor(Date.now() / 1000);
          resetAt = (nowSeconds + 1) * 1000;
          res.sendDate = false;
          res
            .writeHead(403, {
              Date: new Date(nowSeconds * 1000).toUTCString(),
              'X-RateLimit-Limit': '60',
              'X-RateLimit-Remaining': '0',
              'X-RateLimit-Reset': String(nowSeconds + 1),
            })
            .end('API rate limit exceeded');
        } else res.end('ok');
      }),
    );
    const client = clientFor(server.url, { random: () => 0 });
    const response = await client.http.get('/repos/x/y');
    expect(response.data).toBe('ok');
    expect(response.config.retryState?.retryCount).toBe(1);
    expect(server.arrivals).toHaveLength(2);
    expect(server.arrivals[1]!.at).toBeGreaterThanOrEqual(resetAt);
  });

  it('a paced call whose deadline passes before its slot stops with stopReason deadline; one without a deadline waits for the reset', async () => {
    const server = track(
      await startServer((_arrival, res) => {
        // The quota of a second is spent with this very response, and resets in a second.
        res
          .writeHead(200, {
            RateLimit: 'limit=1, remaining=0, reset=1',
            'RateLimit-Policy': '1;w=1',
          })
          .end('ok');
      }),
    );
    const client = clientFor(server.url);
    await client.http.get('/first');
    const firstAt = server.arrivals[0]!.at;

    const started = performance.now();
    // The same route (a spent quota holds the route it was met on).
    const error = await failureOf(
      client.http.get('/first?hurried', { retry: { deadlineMs: 300 } }),
    );
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(error.response).toBeUndefined();
    // It knew at once that no slot comes in time.
    expect(performance.now() - started).toBeLessThan(50);
    expect(server.arrivals).toHaveLength(1);

    const response = await client.http.get('/first?patient');
    expect(response.data).toBe('ok');
    expect(response.config.retryState?.waitedMs).toBeGreaterThanOrEqual(800);
    expect(server.arrivals).toHaveLength(2);
    expect(server.arrivals[1]!.at - firstAt).toBeGreaterThanOrEqual(990);
  });
});
