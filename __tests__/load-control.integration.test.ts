import http from 'node:http';
import { performance } from 'node:perf_hooks';
import axios, {
  type AxiosAdapter,
  type AxiosError,
  type AxiosInstance,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
} from 'axios';
import type { CircuitStateChange, RetryOptions } from '../src';
import { attachRetry } from '../src';
import { failureOf } from './helpers/failure';
import { type LoopbackServer, startServer } from './helpers/loopback-server';
import { type QuotaHeaders, startRateLimiter } from './helpers/rate-limiter';

// Per-origin load control (circuit breaker, issue 7; adaptive pacing, issue 8) against real
// servers on 127.0.0.1, in real time: short breaks and windows are passed as options where the
// defaults would make a test slow, and the defaults are used where they are the point.

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Servers, agents and leaks: every test closes what it opened, and leaves no timer or socket.

const servers: LoopbackServer[] = [];
const agents: http.Agent[] = [];

function track<T extends LoopbackServer>(server: T): T {
  servers.push(server);
  return server;
}

const LEAKABLE = new Set(['Timeout', 'TCPSocketWrap', 'TCPServerWrap', 'TCPConnectWrap']);

function openHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) {
    if (LEAKABLE.has(name)) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

let baseline: Record<string, number> = {};
beforeEach(() => {
  baseline = openHandles();
});

/** No more of each kind than before the test (one that was pending then may have ended since). */
const leftOver = (): Record<string, number> => {
  const now = openHandles();
  return Object.fromEntries(
    Object.entries(now).filter(([name, count]) => count > (baseline[name] ?? 0)),
  );
};

afterEach(async () => {
  // Stops every server (one already stopped calls back at once), bounded in time.
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 500);
          void server
            .stop()
            .catch(() => undefined)
            .then(() => {
              clearTimeout(timer);
              resolve();
            });
        }),
    ),
  );
  for (const agent of agents.splice(0)) agent.destroy();
  // Sockets close on the next turns of the loop: give them a moment, then nothing may be left.
  const deadline = Date.now() + 500;
  while (Date.now() < deadline && Object.keys(leftOver()).length > 0) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(leftOver()).toEqual({});
});

// ---------------------------------------------------------------------------------------------
// A client that counts what it actually sends (each attempt the gate lets through, refused ones
// included: a stopped server cannot count those), and records its breakers' state changes.

interface Send {
  readonly at: number;
  readonly url: string;
}

interface TestClient {
  readonly http: AxiosInstance;
  readonly sends: Send[];
  readonly events: CircuitStateChange[];
  /** When each event came, and how many sends had been made by then. */
  readonly marks: Array<{ readonly at: number; readonly sends: number }>;
}

function clientFor(baseURL: string | undefined, options: RetryOptions = {}): TestClient {
  const agent = new http.Agent({ keepAlive: false });
  agents.push(agent);
  const sends: Send[] = [];
  const events: CircuitStateChange[] = [];
  const marks: Array<{ at: number; sends: number }> = [];
  // axios before 1.5.1 has no getAdapter; its default adapter is then the function itself.
  const httpAdapter: AxiosAdapter =
    typeof axios.getAdapter === 'function'
      ? axios.getAdapter('http')
      : (axios.defaults.adapter as AxiosAdapter);
  const counting: AxiosAdapter = (config: InternalAxiosRequestConfig) => {
    sends.push({ at: Date.now(), url: axios.getUri(config) });
    return httpAdapter(config);
  };
  const instance = axios.create({
    ...(baseURL === undefined ? {} : { baseURL }),
    httpAgent: agent,
    adapter: counting,
  });
  const { circuitBreaker } = options;
  attachRetry(instance, {
    ...options,
    circuitBreaker:
      circuitBreaker === false
        ? false
        : {
            ...circuitBreaker,
            onStateChange: (event) => {
              events.push(event);
              marks.push({ at: Date.now(), sends: sends.length });
              circuitBreaker?.onStateChange?.(event);
            },
          },
  });
  return { http: instance, sends, events, marks };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

const transitions = (events: readonly CircuitStateChange[]) =>
  events.map((e) => `${e.previousState}→${e.state}`);

/** Runs `total` calls, `concurrency` at a time; resolves with each call's outcome, in order. */
async function runJob<T>(
  total: number,
  concurrency: number,
  call: (index: number) => Promise<T>,
): Promise<Array<{ ok: true; value: T } | { ok: false; error: unknown }>> {
  const results: Array<{ ok: true; value: T } | { ok: false; error: unknown }> = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < total) {
      const index = next++;
      results[index] = await call(index).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

const describeFailure = (error: unknown): string => {
  const e = error as AxiosError;
  return `${e.code} ${e.response?.status ?? ''} ${e.config?.retryState?.stopReason ?? ''}`;
};

// =============================================================================================
// Circuit breaker (issue 7)
// =============================================================================================

describe('circuit breaker', () => {
  it('failover: calls with a deadline wait out refused connections and all succeed, about one send per call', async () => {
    const server = track(await startServer((_arrival, res) => res.end('ok')));
    const client = clientFor(server.url, {
      deadlineMs: 5000,
      // Not the default 3 (see the report): a call that used its retries on refused attempts
      // before the breaker opened is the oldest waiter, so it is handed a probe, and a refused
      // probe ends it with retries-exhausted (about 1 run in 4 here with `retries: 3`).
      retries: 10,
      // A window much shorter than the outage (see the next test for why), and short breaks.
      circuitBreaker: {
        windowMs: 100,
        minimumThroughput: 5,
        breakDurationMs: 100,
        maxBreakDurationMs: 200,
      },
    });

    // A steady call every 10 ms for 1.5 s; the server refuses connections from 0.25 s to 1.05 s.
    const outage = delay(250)
      .then(() => server.stop())
      .then(() => delay(800))
      .then(() => server.restart());
    const calls: Array<Promise<AxiosResponse>> = [];
    const started = Date.now();
    while (Date.now() - started < 1500) {
      calls.push(client.http.get(`/items/${calls.length}`));
      await delay(10);
    }
    const results = await Promise.allSettled(calls);
    await outage;

    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed.map((r) => describeFailure((r as PromiseRejectedResult).reason))).toEqual([]);
    expect(transitions(client.events)).toContain('closed→open');
    expect(client.events.at(-1)?.state).toBe('closed');
    // Every call was served exactly once, and the refused attempts stayed few: the calls made
    // during the outage waited at the breaker instead of each discovering it on its own.
    expect(server.arrivals).toHaveLength(calls.length);
    const perCall = client.sends.length / calls.length;
    expect({ calls: calls.length, sends: client.sends.length, atMost1_5: perCall <= 1.5 }).toEqual({
      calls: calls.length,
      sends: client.sends.length,
      atMost1_5: true,
    });
  });

  // With `failureRatio: 1`, the breaker opens once every attempt in its window failed: the
  // successes from before the outage have to leave the 1 s window first (the README says so), so
  // an origin that dies under steady traffic is known dead about a second after its last success.
  it('a healthy origin that dies under steady traffic opens about a second after its last success', async () => {
    const server = track(await startServer((_arrival, res) => res.end('ok')));
    const client = clientFor(server.url);
    // Healthy for 300 ms, then refused; a call every 20 ms (50 per second) until it opens.
    let stoppedAt = Infinity;
    const stopping = delay(300).then(() => {
      stoppedAt = Date.now();
      return server.stop();
    });
    const calls: Array<Promise<unknown>> = [];
    const started = Date.now();
    while (client.events.length === 0 && Date.now() - started < 3000) {
      calls.push(client.http.get(`/steady/${calls.length}`).catch(() => undefined));
      await delay(20);
    }
    await stopping;
    await Promise.all(calls);
    expect(client.events[0]).toEqual({
      origin: server.url,
      state: 'open',
      previousState: 'closed',
    });
    const openedAt = client.marks[0]?.at ?? Infinity;
    // Between the window (1 s) and a tenth more after the outage, plus scheduling on a loaded machine.
    expect(openedAt - stoppedAt).toBeGreaterThanOrEqual(900);
    expect(openedAt - stoppedAt).toBeLessThan(1600);
    // And nothing but probes is sent once it is open.
    const afterOpen = client.sends.filter((send) => send.at > openedAt + 5).length;
    expect(afterOpen).toBeLessThanOrEqual(2);
  });

  it('without a deadline, a call to an open origin fails fast with ERR_CIRCUIT_OPEN and nothing is sent until the probe', async () => {
    const server = track(await startServer((_arrival, res) => res.end('back')));
    await server.stop();
    const client = clientFor(server.url, {
      circuitBreaker: { breakDurationMs: 1000, maxBreakDurationMs: 1000 },
    });

    // A dozen calls at once: their first attempts are refused, and the breaker opens.
    const opening = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => client.http.get(`/a/${i}`)),
    );
    expect(opening.every((r) => r.status === 'rejected')).toBe(true);
    expect(client.events[0]).toEqual({
      origin: server.url,
      state: 'open',
      previousState: 'closed',
    });
    const sentBeforeBreak = client.sends.length;
    expect(sentBeforeBreak).toBeLessThanOrEqual(20);

    // The break lasts at least 500 ms: twenty calls in a row all fail at once, sending nothing.
    const durations: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const error = await failureOf(client.http.get(`/b/${i}`));
      durations.push(performance.now() - started);
      expect(axios.isAxiosError(error)).toBe(true);
      expect(error.code).toBe('ERR_CIRCUIT_OPEN');
      expect(error.message).toContain(server.url);
      expect(error.config?.retryState?.stopReason).toBe('circuit-open');
      expect(error.config?.url).toBe(`/b/${i}`);
      expect(error.response).toBeUndefined();
    }
    // Each settles without a round trip. The median is asserted (the box may be loaded: a single
    // call can be descheduled for tens of milliseconds).
    expect(median(durations)).toBeLessThan(5);
    expect(client.sends).toHaveLength(sentBeforeBreak);
    expect(client.events).toHaveLength(1);

    // The server comes back; after the break the next call is the probe, and closes the breaker.
    await server.restart();
    await delay(1000);
    const response = await client.http.get('/probe');
    expect(response.data).toBe('back');
    expect(transitions(client.events)).toEqual([
      'closed→open',
      'open→half-open',
      'half-open→closed',
    ]);
    expect(client.sends).toHaveLength(sentBeforeBreak + 1);
    expect(server.arrivals.map((a) => a.url)).toEqual(['/probe']);
  });

  it('a server that answers 503 to everything: opens within 20 attempts with the defaults, probes, and closes once healed', async () => {
    let healed = false;
    const server = track(
      await startServer((_arrival, res) => {
        if (healed) res.end('healed');
        else res.writeHead(503).end();
      }),
    );
    // The defaults, but for the observer.
    const client = clientFor(server.url);

    // Four workers call one after another (each call with the default retries) until it opens.
    await Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; client.events.length === 0 && i < 50; i++) {
          await client.http.get(`/w/${w * 100 + i}`).catch(() => undefined);
        }
      }),
    );
    // The breaker of the route the workers call (`/w/:id`: the ids are one route).
    expect(client.events[0]).toEqual({
      origin: server.url,
      route: '/w/:id',
      state: 'open',
      previousState: 'closed',
    });
    expect(Object.isFrozen(client.events[0])).toBe(true);
    const sendsAtOpen = client.marks[0]!.sends;
    expect(sendsAtOpen).toBeLessThanOrEqual(20);

    // While open: calls fail fast. (The break is 250 to 500 ms by default: if the workers' last
    // retries took that long, a probe may already have gone; then it is open again.)
    for (let i = 0; i < 5; i++) {
      const error = await failureOf(client.http.get(`/w/${9000 + i}`));
      if (client.events.at(-1)?.state !== 'open') break;
      expect(error.code).toBe('ERR_CIRCUIT_OPEN');
      expect(error.config?.retryState?.stopReason).toBe('circuit-open');
      expect(error.response).toBeUndefined();
    }

    // Calls without a deadline, every 50 ms: once a break is over, one goes as the probe. It
    // fails, and its retry meets the breaker open again: that call keeps the probe's 503.
    let probeError: AxiosError | undefined;
    for (let i = 0; !probeError && i < 60; i++) {
      await delay(50);
      const error = await failureOf(client.http.get(`/w/${8000 + i}`));
      if (error.response) probeError = error;
    }
    expect(probeError?.response?.status).toBe(503);
    expect(probeError?.config?.retryState?.stopReason).toBe('circuit-open');

    // Nothing was sent while open: each send after the opening is a probe, made right as the
    // breaker went half-open.
    const probes = client.marks.filter((_, i) => client.events[i]?.state === 'half-open');
    expect(probes.length).toBeGreaterThan(0);
    expect(client.sends.length - sendsAtOpen).toBe(probes.length);
    for (const probe of probes) expect(client.sends[probe.sends]!.at - probe.at).toBeLessThan(50);
    expect(server.arrivals).toHaveLength(client.sends.length);

    // Healed: a call with a deadline waits out the (longer) break and is the successful probe.
    healed = true;
    const sentBefore = client.sends.length;
    const response = await client.http.get('/w/7000', { retry: { deadlineMs: 3000 } });
    expect(response.data).toBe('healed');
    expect(response.config.retryState?.waitedMs).toBeGreaterThan(0);
    expect(client.sends).toHaveLength(sentBefore + 1);
    // closed→open, then (open→half-open, half-open→open) for each failed probe, then closed.
    const seen = transitions(client.events);
    expect(seen[0]).toBe('closed→open');
    expect(seen.slice(-2)).toEqual(['open→half-open', 'half-open→closed']);
    const middle = seen.slice(1, -2);
    expect(middle.length).toBeGreaterThanOrEqual(2);
    expect(middle).toEqual(
      Array.from({ length: middle.length }, (_, i) =>
        i % 2 === 0 ? 'open→half-open' : 'half-open→open',
      ),
    );
    for (const event of client.events) {
      expect(Object.isFrozen(event)).toBe(true);
      expect(Object.keys(event).sort()).toEqual(['origin', 'previousState', 'route', 'state']);
      expect(event.origin).toBe(server.url);
    }
  });

  // FAILS (src bug, see the report): after a breaker closes on an origin that this client never
  // saw healthy (no last good rate) and with no call waiting, the origin is left paced at
  // `pacing.minRatePerSecond` (0.5/s by default, at most 2× that) until `healthyAfterMs` passes.
  it('once healed and closed, the origin takes traffic at full speed again (no leftover pacing)', async () => {
    let healed = false;
    const server = track(
      await startServer((_arrival, res) => {
        if (healed) res.end('ok');
        else res.writeHead(503).end();
      }),
    );
    const client = clientFor(server.url, {
      circuitBreaker: { breakDurationMs: 100, maxBreakDurationMs: 100 },
    });
    await Promise.allSettled(
      Array.from({ length: 12 }, () => client.http.get('/down', { retry: false })),
    );
    expect(client.events.map((e) => e.state)).toEqual(['open']);
    healed = true;
    await delay(110);
    await client.http.get('/down'); // the probe of the route that broke
    expect(client.events.at(-1)?.state).toBe('closed');

    // Ten calls at once, each with a second to spare: none should wait at all.
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        client.http.get(`/after/${i}`, { retry: { deadlineMs: 1000 } }),
      ),
    );
    const outcomes = results.map((r) =>
      r.status === 'fulfilled'
        ? `ok, waited ${r.value.config.retryState?.waitedMs ?? 0} ms`
        : describeFailure(r.reason),
    );
    expect(outcomes).toEqual(new Array(10).fill('ok, waited 0 ms'));
  });

  it('two origins through one client, one dead and one healthy: the healthy one is never affected', async () => {
    const healthy = track(await startServer((_arrival, res) => res.end('fine')));
    const dead = track(await startServer((_arrival, res) => res.end('never')));
    await dead.stop();
    const client = clientFor(undefined, {
      circuitBreaker: { breakDurationMs: 200, maxBreakDurationMs: 400 },
    });

    const healthyResults: Array<Promise<AxiosResponse>> = [];
    const deadResults: Array<Promise<unknown>> = [];
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < 10; i++) {
        healthyResults.push(client.http.get(`${healthy.url}/r${round}/${i}`));
        deadResults.push(client.http.get(`${dead.url}/r${round}/${i}`).catch((e) => e));
      }
      await delay(50);
    }
    const responses = await Promise.all(healthyResults);
    await Promise.all(deadResults);

    expect(responses).toHaveLength(80);
    for (const response of responses) {
      expect(response.data).toBe('fine');
      expect(response.config.retryState?.retryCount).toBe(0);
      expect(response.config.retryState?.waitedMs).toBeUndefined();
    }
    expect(healthy.arrivals).toHaveLength(80);
    // Only the dead origin's breaker moved.
    expect(client.events.length).toBeGreaterThan(0);
    expect(new Set(client.events.map((e) => e.origin))).toEqual(new Set([dead.url]));
    expect(client.events[0]?.state).toBe('open');
  });

  async function openBreakerOf503(breakDurationMs: number) {
    const server = track(await startServer((_arrival, res) => res.writeHead(503).end()));
    const client = clientFor(server.url, {
      circuitBreaker: { breakDurationMs, maxBreakDurationMs: breakDurationMs },
    });
    await Promise.allSettled(
      Array.from({ length: 12 }, () => client.http.get('/down', { retry: false })),
    );
    expect(client.events.map((e) => e.state)).toEqual(['open']);
    return { server, client };
  }

  it('aborting a call that waits at an open breaker rejects it at once as canceled, and sends nothing', async () => {
    // Open for 1 to 2 s: the waits below end by abort, not by the break.
    const { server, client } = await openBreakerOf503(2000);
    const sent = client.sends.length;

    const controller = new AbortController();
    const waiting = client.http.get('/down?waits', {
      signal: controller.signal,
      retry: { deadlineMs: 5000 },
    });
    await delay(50);
    const abortedAt = performance.now();
    controller.abort();
    const error = await waiting.then(
      () => undefined,
      (e: unknown) => e,
    );
    // At once: well before the break (at least 1 s) ends; the bound leaves room for a loaded box.
    expect(performance.now() - abortedAt).toBeLessThan(100);
    expect(axios.isCancel(error)).toBe(true);

    // The same with a cancel token.
    const source = axios.CancelToken.source();
    const waiting2 = client.http.get('/down?waits-too', {
      cancelToken: source.token,
      retry: { deadlineMs: 5000 },
    });
    await delay(50);
    const canceledAt = performance.now();
    source.cancel('no longer needed');
    const error2 = await waiting2.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(performance.now() - canceledAt).toBeLessThan(100);
    expect(axios.isCancel(error2)).toBe(true);

    await delay(20);
    expect(client.sends).toHaveLength(sent);
    expect(server.arrivals.map((a) => a.url)).not.toContain('/down?waits');
    expect(server.arrivals.map((a) => a.url)).not.toContain('/down?waits-too');
  });

  it('retry: false turns off retries, not the breaker: a request to an open origin fails fast', async () => {
    const { server, client } = await openBreakerOf503(2000);
    const seen = server.arrivals.length;
    const durations: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const error = await failureOf(client.http.get('/down?no-retry', { retry: false }));
      durations.push(performance.now() - started);
      expect(axios.isAxiosError(error)).toBe(true);
      expect(error.code).toBe('ERR_CIRCUIT_OPEN');
      expect(error.message).toContain(server.url);
      expect(error.response).toBeUndefined();
      expect(error.config?.retryState?.stopReason).toBe('circuit-open');
    }
    expect(median(durations)).toBeLessThan(5);
    expect(server.arrivals).toHaveLength(seen);
  });
});

// =============================================================================================
// Adaptive pacing (issue 8)
// =============================================================================================

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
  async function fixedWindowJob(retryAfter: boolean, total: number) {
    const server = track(await startRateLimiter({ limit: 20, windowMs: 1000, retryAfter }));
    const client = clientFor(server.url);
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

  it('a fixed-window limiter answering 429 without Retry-After: a job of 40 calls, 10 at a time, at 20/s: 0 failed, the 429s nearly stop after the first window', async () => {
    const { failed, rejectedPerWindow } = await fixedWindowJob(false, 40);
    const later = rejectedPerWindow.slice(1).reduce((sum, n) => sum + n, 0);
    expect({ failed, rejectedPerWindow, laterAtMost3: later <= 3 }).toEqual({
      failed: [],
      rejectedPerWindow,
      laterAtMost3: true,
    });
  });

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
        // The quota is spent with this very response, and resets in a second.
        res.writeHead(200, { RateLimit: 'limit=1, remaining=0, reset=1' }).end('ok');
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
