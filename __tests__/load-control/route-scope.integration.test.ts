import {
  clientFor,
  delay,
  describe13,
  getWithin,
  type Outcome,
  runJob,
  track,
  useLoopbackCleanup,
} from '../helpers/loopback-client';
import { startServer } from '../helpers/loopback-server';
import { startRateLimiter } from '../helpers/rate-limiter';

// Issue 13, item 8: a failure or throttle is attributed to what it describes. Statuses (5xx,
// 429, quota headers) count for the route — the path without query, id-like segments as `:id`,
// any method — so one route's trouble does not block or pace a healthy route of the same origin;
// an API-wide limit is still handled origin-wide, at the cost of at most one extra 429 per
// route. Real servers on 127.0.0.1.

useLoopbackCleanup();

const failures = (outcomes: readonly Outcome[]) =>
  outcomes.filter((o) => !o.response).map(describe13);

describe('a route in trouble does not block a healthy route of the same origin', () => {
  it('30 failures of /broken open its breaker, and a healthy /health still succeeds, sent', async () => {
    const server = track(
      await startServer((arrival, res) => {
        if (arrival.url.startsWith('/broken')) res.writeHead(503).end();
        else res.end('fine');
      }),
    );
    const client = clientFor(server.url);
    for (let i = 0; i < 30; i++) await getWithin(client, '/broken', 2000, { retry: false });
    // /broken's own breaker is open: a call to it (query or not) with no retries left to wait
    // for the break fails fast, sending nothing.
    const sentToBroken = server.arrivals.length;
    const broken = await getWithin(client, '/broken?page=2', 2000, { retry: { retries: 0 } });
    expect(describe13(broken)).toBe('ERR_CIRCUIT_OPEN  circuit-open');
    expect(server.arrivals).toHaveLength(sentToBroken);

    const health: Outcome[] = [];
    for (let i = 0; i < 5; i++) health.push(await getWithin(client, '/health', 2000));
    expect(health.map(describe13)).toEqual(new Array(5).fill('ok 200'));
    for (const outcome of health) {
      expect(outcome.response?.config.retryState?.waitedMs).toBeUndefined();
    }
    expect(server.arrivals.filter((a) => a.url === '/health')).toHaveLength(5);
  });

  it('the route is the path with ids as :id: /orders/1, /orders/2… open /orders/:id, not /orders nor /users/7', async () => {
    const server = track(
      await startServer((arrival, res) => {
        if (/^\/orders\/[^/]+$/.test(arrival.url)) res.writeHead(503).end();
        else res.end('fine');
      }),
    );
    const client = clientFor(server.url, {
      circuitBreaker: { minimumThroughput: 6, breakDurationMs: 2000, maxBreakDurationMs: 2000 },
    });
    const ids = ['1', '2', '12345', '550e8400-e29b-41d4-a716-446655440000', 'deadbeefdeadbeef42'];
    for (let i = 0; i < 12; i++) {
      await getWithin(client, `/orders/${ids[i % ids.length]}`, 2000, { retry: false });
    }
    const sent = server.arrivals.length;
    // Another id of the same route meets the open breaker.
    const other = await getWithin(client, '/orders/987654', 2000);
    expect(describe13(other)).toBe('ERR_CIRCUIT_OPEN  circuit-open');
    expect(server.arrivals).toHaveLength(sent);

    // Other routes go.
    expect(describe13(await getWithin(client, '/orders', 2000))).toBe('ok 200');
    expect(describe13(await getWithin(client, '/users/7', 2000))).toBe('ok 200');
    expect(describe13(await getWithin(client, '/orders/7/items', 2000))).toBe('ok 200');
    expect(server.arrivals).toHaveLength(sent + 3);
  });

  it('/bad failing at 50/s does not make a /good called now and then fail', async () => {
    const server = track(
      await startServer((arrival, res) => {
        if (arrival.url.startsWith('/bad')) res.writeHead(503).end();
        else res.end('good');
      }),
    );
    // A short window, so that /good's calls (every 250 ms) fall out of it between calls, as the
    // issue's /good every 1.1 s did with the default 1 s window. /bad at 50/s is 10 calls a
    // window at best, the default minimumThroughput exactly: on a loaded two-core box the 20 ms
    // timers came late, no window held 10, and /bad's breaker never opened. Half that, then.
    const client = clientFor(server.url, {
      circuitBreaker: {
        windowMs: 200,
        minimumThroughput: 5,
        breakDurationMs: 200,
        maxBreakDurationMs: 400,
      },
    });
    let running = true;
    const bad = (async () => {
      const calls: Array<Promise<Outcome>> = [];
      for (let i = 0; running; i++) {
        calls.push(getWithin(client, `/bad?n=${i}`, 2000, { retry: false }));
        await delay(20);
      }
      await Promise.all(calls);
    })();
    const good: Outcome[] = [];
    for (let i = 0; i < 6; i++) {
      await delay(250);
      good.push(await getWithin(client, '/good', 2000));
    }
    running = false;
    await bad;
    expect(client.events.length).toBeGreaterThan(0);
    expect(good.map(describe13)).toEqual(new Array(6).fill('ok 200'));
    expect(server.arrivals.filter((a) => a.url === '/good')).toHaveLength(6);
  }, 10_000);
});

describe('a route throttled on its own does not pace the others', () => {
  /** Time for 50 calls to /fast, 5 at a time, after one 429 on /limited. */
  async function fastAfterLimited(loadControl: boolean) {
    let limited = 0;
    const server = track(
      await startServer((arrival, res) => {
        if (arrival.url.startsWith('/limited') && limited++ === 0) res.writeHead(429).end();
        else res.end('ok');
      }),
    );
    const client = clientFor(
      server.url,
      loadControl ? {} : { circuitBreaker: false, pacing: false },
    );
    // The 429 comes back (and /limited's retry waits); the calls to /fast start right then.
    const limitedCall = getWithin(client, '/limited', 3000);
    while (server.arrivals.length === 0) await delay(1);
    await delay(5);
    const started = performance.now();
    const results = await runJob(50, 5, (i) => getWithin(client, `/fast?i=${i}`, 8000));
    const elapsed = performance.now() - started;
    return { elapsed, failed: failures(results), limited: describe13(await limitedCall) };
  }

  it('50 calls to /fast after a 429 on /limited take at most 1.5x the time with load control off', async () => {
    const [on, off] = await Promise.all([fastAfterLimited(true), fastAfterLimited(false)]);
    expect(on.failed).toEqual([]);
    expect(off.failed).toEqual([]);
    expect([on.limited, off.limited]).toEqual(['ok 200', 'ok 200']);
    // 1.5x, plus 150 ms for a loaded box (the issue measured 3.9 s against 0.12 s).
    expect({ on, off, within: on.elapsed <= 1.5 * off.elapsed + 150 }).toEqual({
      on,
      off,
      within: true,
    });
  }, 15_000);

  it('a 200 from /quota saying remaining 0 holds /quota, not 20 calls elsewhere', async () => {
    const server = track(
      await startServer((arrival, res) => {
        if (arrival.url.startsWith('/quota')) {
          res.writeHead(200, { RateLimit: 'limit=10, remaining=0, reset=5' }).end('spent');
        } else res.end('ok');
      }),
    );
    const client = clientFor(server.url);
    expect(describe13(await getWithin(client, '/quota', 2000))).toBe('ok 200');
    const started = performance.now();
    const results = await runJob(20, 5, (i) => getWithin(client, `/elsewhere/${i}/list`, 6000));
    expect(failures(results)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
    for (const result of results) {
      expect(result.response?.config.retryState?.waitedMs).toBeUndefined();
    }
    // /quota itself is held: a call to it that cannot wait 5 s fails at once, sending nothing.
    const sent = server.arrivals.length;
    const held = await getWithin(client, '/quota', 2000, { retry: { deadlineMs: 1000 } });
    expect(describe13(held)).toBe('ERR_RATE_LIMITED  deadline');
    expect(held.elapsed).toBeLessThan(300);
    expect(server.arrivals).toHaveLength(sent);
  }, 10_000);
});

describe('an API-wide limit is still handled origin-wide', () => {
  it('a limiter shared by 6 paths: every call gets through, with at most one extra 429 per path over the same job on one path', async () => {
    // 20 per second for the whole API, 429 with Retry-After; 60 calls, 6 at a time. The same job
    // through a single path, side by side against its own limiter, is the yardstick.
    const run = async (paths: number) => {
      const server = track(await startRateLimiter({ limit: 20, windowMs: 1000, retryAfter: true }));
      const client = clientFor(server.url);
      const results = await runJob(60, 6, (i) => getWithin(client, `/p${i % paths}/items`, 10_000));
      return {
        failed: failures(results),
        rejected: server.answers.filter((a) => a.status === 429).length,
      };
    };
    const [six, one] = await Promise.all([run(6), run(1)]);
    expect(six.failed).toEqual([]);
    expect(one.failed).toEqual([]);
    expect({ six, one, atMostOneExtraPerPath: six.rejected <= one.rejected + 6 }).toEqual({
      six,
      one,
      atMostOneExtraPerPath: true,
    });
  }, 20_000);

  it('a limit announced with the same policy on two paths paces both after a 429 on one', async () => {
    // The quota is announced with its policy on every response of both paths: once one path has
    // spent it, the other, which announced the same policy, is held too, and never meets a 429 of
    // its own. (A window of 2 s: a quota of a second or two is paced at its rate rather than held
    // to its rounded reset.)
    let served = 0;
    let windowStart = 0;
    const statuses: Array<{ url: string; status: number }> = [];
    const server = track(
      await startServer((arrival, res) => {
        if (arrival.at - windowStart >= 2500) {
          windowStart = arrival.at;
          served = 0;
        }
        const reset = Math.max(1, Math.ceil((windowStart + 2500 - arrival.at) / 1000));
        const policy = { 'RateLimit-Policy': '"api";q=5;w=3' };
        if (served < 5) {
          served += 1;
          statuses.push({ url: arrival.url, status: 200 });
          res
            .writeHead(200, { ...policy, RateLimit: `"api";r=${5 - served};t=${reset}` })
            .end('ok');
        } else {
          statuses.push({ url: arrival.url, status: 429 });
          res
            .writeHead(429, {
              ...policy,
              RateLimit: `"api";r=0;t=${reset}`,
              'Retry-After': String(reset),
            })
            .end();
        }
      }),
    );
    const client = clientFor(server.url);
    // One call to /b announces the policy there; four calls to /a spend the quota (the last
    // says remaining 0).
    await getWithin(client, '/b', 2000);
    for (let i = 0; i < 4; i++) await getWithin(client, '/a', 2000);
    const outcome = await getWithin(client, '/b', 5000);
    expect(describe13(outcome)).toBe('ok 200');
    expect(outcome.response?.config.retryState?.waitedMs).toBeGreaterThan(0);
    expect(statuses.filter((s) => s.status === 429)).toEqual([]);
  }, 10_000);
});
