import { performance } from 'node:perf_hooks';
import type { AxiosError, AxiosResponse } from 'axios';
import { failureOf } from '../helpers/failure';
import { describeFailure, transitions } from '../helpers/load-control-harness';
import { clientFor, delay, track, useLoopbackCleanup } from '../helpers/loopback-client';
import { startServer } from '../helpers/loopback-server';

// Per-origin load control (circuit breaker, issue 7; adaptive pacing, issue 8) against real
// servers on 127.0.0.1, in real time: short breaks and windows are passed as options where the
// defaults would make a test slow, and the defaults are used where they are the point.
// This file: how a breaker opens, probes and closes, origin by origin.

useLoopbackCleanup();

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
    const stopping = delay(300).then(() => server.stop());
    const calls: Array<Promise<unknown>> = [];
    // Measured from the last success the client saw, not from the stop: on a loaded machine the
    // loop can stall, and the last success then comes well before the stop (a CI run's Node 24
    // job failed once on the stop-relative bound).
    let lastOkAt = -Infinity;
    const started = Date.now();
    while (client.events.length === 0 && Date.now() - started < 3000) {
      calls.push(
        client.http.get(`/steady/${calls.length}`).then(
          () => {
            lastOkAt = Math.max(lastOkAt, performance.now());
          },
          () => undefined,
        ),
      );
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
    // The window (1 s) after the last success, less the time its answer took to reach the
    // caller, and at most a tenth more plus scheduling on a loaded machine.
    const afterLastOk = Math.round(openedAt - lastOkAt);
    expect({ afterLastOk, inWindow: afterLastOk >= 950 && afterLastOk < 1700 }).toEqual({
      afterLastOk,
      inWindow: true,
    });
    // And nothing but probes is sent once it is open.
    const afterOpen = client.sends.filter((send) => send.at > openedAt + 5).length;
    expect(afterOpen).toBeLessThanOrEqual(2);
  });

  // Real time: the workers' calls, the breaks (up to 2 s each) and the calls that wait for them
  // took up to 5 s on a loaded box (Jest's default timeout), hence 20 s.
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

    // While open: calls with no retries left fail fast (one with retries waits as long as they
    // could take: load-control-breaker-open.integration.test.ts). (The break is 250 to 500 ms by
    // default: if the workers' last retries took that long, a probe may already have gone; then
    // it is open again. A call during which the breaker changed may have been that probe: it
    // says nothing of fail-fast.)
    for (let i = 0; i < 5; i++) {
      const before = client.events.length;
      const error = await failureOf(client.http.get(`/w/${9000 + i}`, { retry: { retries: 0 } }));
      if (client.events.length !== before || client.events.at(-1)?.state !== 'open') break;
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
  }, 20_000);

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
});
