import { execFile } from 'node:child_process';
import type http from 'node:http';
import { join } from 'node:path';
import {
  clientFor,
  describe13,
  getWithin,
  type Outcome,
  retryAfterOf,
  runJob,
  track,
  useLoopbackCleanup,
} from '../helpers/loopback-client';
import { type Arrival, startServer } from '../helpers/loopback-server';

// Issue 13, items 1, 2, 3 and 7, against real servers on 127.0.0.1: what a server's rate-limit
// headers can make the client do. A wait read from headers is bounded (no call waits at the gate
// longer than maxRetryAfterMs, its deadline or its axios timeout: past that it fails at once with
// ERR_RATE_LIMITED and `retryState.retryAfterMs`), a long hold is probed, and values that are not
// finite, beyond a day or implausible are ignored.

useLoopbackCleanup();

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** A server whose first answer is `first`, and a plain 200 `ok` after that. */
async function firstThenOk(
  first: (arrival: Arrival, res: http.ServerResponse) => void,
  then: (arrival: Arrival, res: http.ServerResponse) => void = (_a, res) => res.end('ok'),
) {
  let count = 0;
  return track(
    await startServer((arrival, res) => {
      count += 1;
      if (count === 1) first(arrival, res);
      else then(arrival, res);
    }),
  );
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Asserts that a call failed at once at the gate with ERR_RATE_LIMITED, having sent nothing. */
function expectFailedAtOnce(outcome: Outcome, stopReason: string, expectedWaitMs: number) {
  expect(describe13(outcome)).toBe(`ERR_RATE_LIMITED  ${stopReason}`);
  expect(outcome.error?.response).toBeUndefined();
  // At once: no round trip, no wait (a loaded box may deschedule the test for a while).
  expect(outcome.elapsed).toBeLessThan(300);
  const retryAfterMs = retryAfterOf(outcome.error);
  // When the origin is expected to accept again: the hold, minus the little time gone since.
  expect(retryAfterMs).toBeGreaterThan(expectedWaitMs - 60_000);
  expect(retryAfterMs).toBeLessThanOrEqual(expectedWaitMs + 1000);
}

describe('item 1: one response does not park an origin', () => {
  const holds: Array<{
    name: string;
    hold: number;
    first: (arrival: Arrival, res: http.ServerResponse) => void;
    firstCall: string;
  }> = [
    {
      name: 'a 200 with RateLimit-Remaining: 0 and RateLimit-Reset: 86400',
      hold: DAY_MS,
      first: (_a, res) =>
        res.writeHead(200, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '86400' }).end('ok'),
      firstCall: 'ok 200',
    },
    {
      name: "GitHub's 403 with X-RateLimit-Remaining: 0 and a reset an hour ahead",
      hold: HOUR_MS,
      first: (_a, res) =>
        res
          .writeHead(403, {
            'X-RateLimit-Limit': '60',
            'X-RateLimit-Remaining': '0',
            'X-RateLimit-Reset': String(nowSeconds() + 3600),
          })
          .end('API rate limit exceeded'),
      firstCall: 'ERR_BAD_REQUEST 403 retry-after-too-long',
    },
    {
      name: 'a 429 with Retry-After: 86400',
      hold: DAY_MS,
      first: (_a, res) => res.writeHead(429, { 'Retry-After': '86400' }).end(),
      firstCall: 'ERR_BAD_REQUEST 429 retry-after-too-long',
    },
    {
      name: 'a 503 with Retry-After: 86400',
      hold: DAY_MS,
      first: (_a, res) => res.writeHead(503, { 'Retry-After': '86400' }).end(),
      firstCall: 'ERR_BAD_RESPONSE 503 retry-after-too-long',
    },
  ];

  it.each(holds)(
    'after $name, later calls fail at once with ERR_RATE_LIMITED and retryAfterMs, whatever bounds them',
    async ({ hold, first, firstCall }) => {
      // Every call to /first meets the hostile answer; anything else would be served. The later
      // calls go to the same route (the query is not part of it): a throttle holds its route.
      const server = track(
        await startServer((arrival, res) => {
          if (arrival.url === '/first') first(arrival, res);
          else res.end('ok');
        }),
      );
      const client = clientFor(server.url);
      expect(describe13(await getWithin(client, '/first', 3000))).toBe(firstCall);
      const sent = server.arrivals.length;

      // No deadline: maxRetryAfterMs (60 s by default) is the bound.
      expectFailedAtOnce(
        await getWithin(client, '/first?plain', 1500),
        'retry-after-too-long',
        hold,
      );
      // A deadline shorter than maxRetryAfterMs is the bound.
      expectFailedAtOnce(
        await getWithin(client, '/first?deadline', 1500, { retry: { deadlineMs: 2000 } }),
        'deadline',
        hold,
      );
      // Without a deadline, the axios timeout is not the bound (it bounds an attempt once sent,
      // and with load control off a retry waits its Retry-After whatever the timeout, issue 21):
      // maxRetryAfterMs is.
      expectFailedAtOnce(
        await getWithin(client, '/first?timeout', 1500, { timeout: 2000 }),
        'retry-after-too-long',
        hold,
      );
      // retry: false turns off retries, not the bound.
      const unretried = await getWithin(client, '/first?unretried', 1500, { retry: false });
      expect(describe13(unretried)).toMatch(/^ERR_RATE_LIMITED/);
      expect(unretried.elapsed).toBeLessThan(300);
      expect(retryAfterOf(unretried.error)).toBeGreaterThan(hold - 60_000);
      // maxRetryAfterMs set lower caps the wait as well.
      const capped = clientFor(server.url, { maxRetryAfterMs: 1000 });
      expect(describe13(await getWithin(capped, '/first', 3000))).toBe(firstCall);
      expectFailedAtOnce(
        await getWithin(capped, '/first?capped', 1500),
        'retry-after-too-long',
        hold,
      );

      // Nothing was sent during the holds but the capped client's own first call.
      expect(sent).toBe(1);
      expect(server.arrivals.map((a) => a.url)).toEqual(['/first', '/first']);
    },
    15_000,
  );

  it('a reset of 4 s is not waited past maxRetryAfterMs: 1000; the call fails at once with retryAfterMs about 4 s', async () => {
    const server = await firstThenOk((_a, res) =>
      res.writeHead(200, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '4' }).end('ok'),
    );
    const client = clientFor(server.url, { maxRetryAfterMs: 1000 });
    expect(describe13(await getWithin(client, '/first', 3000))).toBe('ok 200');
    const outcome = await getWithin(client, '/first?second', 2500);
    expect(describe13(outcome)).toBe('ERR_RATE_LIMITED  retry-after-too-long');
    expect(outcome.elapsed).toBeLessThan(300);
    expect(retryAfterOf(outcome.error)).toBeGreaterThan(3000);
    expect(retryAfterOf(outcome.error)).toBeLessThanOrEqual(4000);
    expect(server.arrivals).toHaveLength(1);
  });

  it('while held for a day, one call per maxRetryAfterMs goes as a probe: a quota that reset early is noticed and the hold ends', async () => {
    const server = await firstThenOk(
      (_a, res) =>
        res.writeHead(200, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '86400' }).end('ok'),
      // The quota reset early: quota left.
      (_a, res) =>
        res.writeHead(200, { 'RateLimit-Remaining': '50', 'RateLimit-Reset': '60' }).end('back'),
    );
    const client = clientFor(server.url, { maxRetryAfterMs: 500 });
    await getWithin(client, '/first', 3000);
    const heldAt = performance.now();

    // A call every 50 ms, until one gets through.
    const seen: string[] = [];
    let through: Outcome | undefined;
    while (!through && performance.now() - heldAt < 3000) {
      const outcome = await getWithin(client, '/first?poll', 2000);
      if (outcome.response) through = outcome;
      else {
        seen.push(describe13(outcome));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    expect(through?.response?.data).toBe('back');
    // Through within about one maxRetryAfterMs (a loaded box may add some).
    expect(performance.now() - heldAt).toBeLessThan(1500);
    // Before it, every call failed at once; only the probe was sent.
    expect(new Set(seen)).toEqual(new Set(['ERR_RATE_LIMITED  retry-after-too-long']));
    expect(server.arrivals).toHaveLength(2);

    // The hold is over: the next calls go at once.
    for (let i = 0; i < 5; i++) {
      const outcome = await getWithin(client, `/first?after=${i}`, 1000);
      expect(describe13(outcome)).toBe('ok 200');
      expect(outcome.response?.config.retryState?.waitedMs ?? 0).toBeLessThan(50);
    }
    expect(server.arrivals).toHaveLength(7);
  }, 10_000);

  it("the probe's reading replaces the hold: a day's hold that the probe says resets in 3 s now reports about 3 s", async () => {
    const server = await firstThenOk(
      (_a, res) =>
        res.writeHead(200, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '86400' }).end('ok'),
      (_a, res) =>
        res.writeHead(200, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '3' }).end('probe'),
    );
    const client = clientFor(server.url, { maxRetryAfterMs: 300 });
    await getWithin(client, '/first', 3000);
    const heldAt = performance.now();
    while (server.arrivals.length < 2 && performance.now() - heldAt < 3000) {
      await getWithin(client, '/first?poll', 2000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(server.arrivals).toHaveLength(2);
    const after = await getWithin(client, '/first?after', 2000);
    expect(describe13(after)).toBe('ERR_RATE_LIMITED  retry-after-too-long');
    expect(retryAfterOf(after.error)).toBeLessThanOrEqual(3000);
    expect(retryAfterOf(after.error)).toBeGreaterThan(1500);
  }, 10_000);
});

describe('item 2: resets that are not finite, beyond a day or garbage are ignored', () => {
  const garbage: Array<{ name: string; headers: () => http.OutgoingHttpHeaders }> = [
    {
      name: 'RateLimit-Reset of 400 digits',
      headers: () => ({ 'RateLimit-Remaining': '0', 'RateLimit-Reset': '9'.repeat(400) }),
    },
    {
      name: 'X-RateLimit-Reset of 1 followed by 308 zeros',
      headers: () => ({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': `1${'0'.repeat(308)}` }),
    },
    {
      name: 'X-RateLimit-Reset a year ahead (epoch seconds)',
      headers: () => ({
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(nowSeconds() + 365 * 86_400),
      }),
    },
    {
      name: 'draft-8 t=99999999 (three years)',
      headers: () => ({ RateLimit: '"default";r=0;t=99999999' }),
    },
    {
      name: 'RateLimit-Reset of 90000 s (beyond a day)',
      headers: () => ({ 'RateLimit-Remaining': '0', 'RateLimit-Reset': '90000' }),
    },
  ];

  it.each(garbage)(
    'a 200 with remaining 0 and $name: a later call is not held by it, and succeeds',
    async ({ headers }) => {
      const server = await firstThenOk((_a, res) => res.writeHead(200, headers()).end('ok'));
      const client = clientFor(server.url);
      expect(describe13(await getWithin(client, '/first', 3000))).toBe('ok 200');
      // At most a short hold (a spent quota with no usable reset); never the value read.
      const later = await getWithin(client, '/later', 3000);
      expect(describe13(later)).toBe('ok 200');
      expect(later.elapsed).toBeLessThan(2500);
      expect(server.arrivals).toHaveLength(2);
    },
    10_000,
  );

  it('a 429 with a Retry-After of 400 digits stops the call (never retried sooner than asked), and holds nothing', async () => {
    const server = await firstThenOk((_a, res) =>
      res.writeHead(429, { 'Retry-After': '9'.repeat(400) }).end(),
    );
    const client = clientFor(server.url, { maxRetryAfterMs: Infinity });
    const outcome = await getWithin(client, '/first', 3000);
    expect(describe13(outcome)).toBe('ERR_BAD_REQUEST 429 retry-after-too-long');
    expect(server.arrivals).toHaveLength(1);
    const later = await getWithin(client, '/later', 3000);
    expect(describe13(later)).toBe('ok 200');
  }, 10_000);

  it('a CommonJS script whose only handle is a call held by an infinite reset still runs the code after its await', async () => {
    const server = await firstThenOk((_a, res) =>
      res
        .writeHead(200, { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '9'.repeat(400) })
        .end('ok'),
    );
    const root = join(__dirname, '..', '..');
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          [
            '-r',
            'ts-node/register/transpile-only',
            join(__dirname, '..', 'helpers', 'held-call-script.ts'),
            server.url,
          ],
          { cwd: root, timeout: 20_000 },
          (error, out) => resolve({ code: error ? (error.code as number | null) : 0, stdout: out }),
        );
      },
    );
    expect(stdout).toMatch(/^settled: (ok|ERR_RATE_LIMITED)$/m);
    expect(stdout).toMatch(/^after await$/m);
    expect(code).toBe(0);
  }, 25_000);
});

describe('item 3: epoch heuristics', () => {
  it('X-RateLimit-Reset in epoch milliseconds, 60 s ahead, is a hold of about 60 s', async () => {
    const server = await firstThenOk((_a, res) =>
      res
        .writeHead(200, {
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': String(Date.now() + 60_000),
        })
        .end('ok'),
    );
    const client = clientFor(server.url, { maxRetryAfterMs: 1000 });
    await getWithin(client, '/first', 3000);
    const outcome = await getWithin(client, '/first?second', 2000);
    expectFailedAtOnce(outcome, 'retry-after-too-long', 60_000);
    expect(retryAfterOf(outcome.error)).toBeGreaterThan(55_000);
    expect(server.arrivals).toHaveLength(1);
  });

  it('a server Date from 2001 next to a correct epoch reset 3 s ahead: the hold is about 3 s, by our clock', async () => {
    let resetAt = 0;
    const server = await firstThenOk((_a, res) => {
      const reset = nowSeconds() + 3;
      resetAt = reset * 1000;
      res.sendDate = false;
      res
        .writeHead(200, {
          Date: 'Mon, 01 Jan 2001 00:00:00 GMT',
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': String(reset),
        })
        .end('ok');
    });
    const client = clientFor(server.url);
    await getWithin(client, '/first', 3000);
    const outcome = await getWithin(client, '/first?second', 5500);
    expect(describe13(outcome)).toBe('ok 200');
    expect(outcome.response?.config.retryState?.waitedMs).toBeGreaterThanOrEqual(1800);
    // Sent at the reset, not 25 years later (the whole-second reset allows a little early).
    expect(server.arrivals[1]!.at).toBeGreaterThanOrEqual(resetAt - 1000);
    expect(server.arrivals[1]!.at).toBeLessThan(resetAt + 1000);
  }, 10_000);
});

// ---------------------------------------------------------------------------------------------
// Item 7: express-rate-limit's legacy headers (epoch X-RateLimit-Reset against a whole-second
// Date) must cost about what its draft-7 headers cost.

type ExpressHeaders = 'legacy' | 'draft-7';

/**
 * A fixed-window limiter as express-rate-limit's MemoryStore runs it: `limit` per `windowMs`,
 * the window starting at its first hit; a 429 with Retry-After to the rest; and its headers on
 * every response, legacy (`X-RateLimit-*`, reset in epoch seconds rounded up, Node's own
 * whole-second `Date`) or draft-7 (`RateLimit: limit, remaining, reset` in seconds rounded up).
 */
async function startExpressLimiter(headers: ExpressHeaders, limit: number, windowMs: number) {
  let resetTime = 0;
  let hits = 0;
  const statuses: number[] = [];
  const server = await startServer((_arrival, res) => {
    const now = Date.now();
    if (now >= resetTime) {
      resetTime = now + windowMs;
      hits = 0;
    }
    hits += 1;
    const remaining = Math.max(0, limit - hits);
    const resetSeconds = Math.max(0, Math.ceil((resetTime - now) / 1000));
    const quota: http.OutgoingHttpHeaders =
      headers === 'legacy'
        ? {
            'X-RateLimit-Limit': String(limit),
            'X-RateLimit-Remaining': String(remaining),
            'X-RateLimit-Reset': String(Math.ceil(resetTime / 1000)),
          }
        : {
            'RateLimit-Policy': `${limit};w=${Math.ceil(windowMs / 1000)}`,
            RateLimit: `limit=${limit}, remaining=${remaining}, reset=${resetSeconds}`,
          };
    if (hits > limit) {
      statuses.push(429);
      res.writeHead(429, { ...quota, 'Retry-After': String(resetSeconds) }).end();
    } else {
      statuses.push(200);
      res.writeHead(200, quota).end('ok');
    }
  });
  return { server: track(server), statuses };
}

describe('item 7: whole-second resets', () => {
  it("express-rate-limit's legacy headers cost within 1.15x of its draft-7 headers (30 calls, 5 at a time, 10 per second)", async () => {
    const run = async (headers: ExpressHeaders) => {
      const { server, statuses } = await startExpressLimiter(headers, 10, 1000);
      const client = clientFor(server.url);
      const started = performance.now();
      const results = await runJob(30, 5, (i) => getWithin(client, `/job/${i}`, 12_000));
      return {
        headers,
        elapsed: performance.now() - started,
        failed: results.filter((r) => !r.response).map(describe13),
        rejected: statuses.filter((s) => s === 429).length,
      };
    };
    const [legacy, draft7] = await Promise.all([run('legacy'), run('draft-7')]);
    expect(legacy.failed).toEqual([]);
    expect(draft7.failed).toEqual([]);
    // Within 1.15x, plus a quarter of a second for a loaded box (the issue measured 1.90x): a Date
    // truncated to the second no longer adds a second, and a quota of a second is paced at its
    // rate instead of held to a reset rounded up to the second.
    const bound = 1.15 * draft7.elapsed + 250;
    expect({ legacy, draft7, withinBound: legacy.elapsed <= bound }).toEqual({
      legacy,
      draft7,
      withinBound: true,
    });
  }, 20_000);
});
