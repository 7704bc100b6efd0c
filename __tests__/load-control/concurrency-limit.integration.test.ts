import diagnostics from 'node:diagnostics_channel';
import axios, { type AxiosError } from 'axios';
import { attachRetry, ERR_RATE_LIMITED, loadControlOf } from '../../src';
import { type QueueingServer, startQueueingServer } from '../../support/queueing-server';

// Real loopback servers with real queues; counts are asserted, not times (the machine is loaded).
jest.setTimeout(60_000);

let server: QueueingServer;
afterEach(() => server?.close());

async function job(
  options: Parameters<typeof attachRetry>[1],
  calls: number,
  config: { timeout?: number } = {},
) {
  const api = axios.create({ baseURL: server.url, timeout: config.timeout ?? 2000 });
  attachRetry(api, options);
  const results = await Promise.allSettled(
    Array.from({ length: calls }, (_, i) => api.get(`/records/${i}`)),
  );
  const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
  return { api, failed };
}

describe('the learned concurrency limit, against a queueing server (8 slots, 20 ms each)', () => {
  it('keeps the queue short and wastes no work: every call succeeds', async () => {
    server = await startQueueingServer({ slots: 8, serviceMs: 20 });
    const { failed } = await job({}, 600);
    expect(failed).toEqual([]);
    // The bench's target is 32; a loaded machine's noise may let a few more through.
    expect(server.stats.mostQueued).toBeLessThanOrEqual(64);
    expect(server.stats.wasted).toBe(0);
    expect(server.stats.served).toBe(600);
  });

  it('with no limit, the same job floods the queue (what the limit prevents)', async () => {
    server = await startQueueingServer({ slots: 8, serviceMs: 20 });
    await job({ maxConcurrent: Infinity }, 600);
    expect(server.stats.mostQueued).toBeGreaterThan(100);
  });

  it('a server that sheds with a bare 503 past 32 queued: every call succeeds, few are shed', async () => {
    server = await startQueueingServer({ slots: 8, serviceMs: 20, shedAbove: 32 });
    const { failed } = await job({}, 600);
    expect(failed).toEqual([]);
    // 5 % in the bench; 10 % here, on a loaded machine (load control off sheds about half).
    expect(server.stats.shed).toBeLessThanOrEqual(60);
  });
});

describe('maxConcurrent, a fixed limit per origin', () => {
  it('never lets more than it in flight, across routes', async () => {
    server = await startQueueingServer({ slots: 100, serviceMs: 20 });
    const api = axios.create({ baseURL: server.url });
    attachRetry(api, { maxConcurrent: 3 });
    let seen = 0;
    const watch = setInterval(() => {
      const { queued, serving } = server.inside();
      seen = Math.max(seen, queued + serving);
    }, 1);
    const calls = Array.from({ length: 30 }, (_, i) => api.get(i % 2 ? `/a/${i}` : `/b/${i}`));
    await Promise.all(calls);
    clearInterval(watch);
    expect(server.stats.mostInside).toBeLessThanOrEqual(3);
    expect(server.stats.served).toBe(30);
  });

  it('shows the limit, in flight and waiting in loadControlOf', async () => {
    server = await startQueueingServer({ slots: 1, serviceMs: 200 });
    const api = axios.create({ baseURL: server.url });
    attachRetry(api, { maxConcurrent: 2 });
    const calls = Array.from({ length: 5 }, () => api.get('/x'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const origin = loadControlOf(api).scopes.find((s) => s.route === undefined);
    expect(origin).toMatchObject({ limit: 2, inFlight: 2, waiting: 3 });
    await Promise.all(calls);
  });

  it('a call that cannot get a slot within its deadline fails with ERR_RATE_LIMITED, sending nothing', async () => {
    server = await startQueueingServer({ slots: 1, serviceMs: 1500 });
    const api = axios.create({ baseURL: server.url });
    attachRetry(api, { maxConcurrent: 1 });
    const first = api.get('/slow');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    const error = (await api
      .get('/slow', { retry: { deadlineMs: 400 } })
      .catch((e) => e)) as AxiosError;
    expect(error.code).toBe(ERR_RATE_LIMITED);
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(Date.now() - started).toBeLessThan(1400);
    await first;
    expect(server.stats.served).toBe(1);
  });

  it('time in line does not count against the axios timeout', async () => {
    server = await startQueueingServer({ slots: 1, serviceMs: 300 });
    const api = axios.create({ baseURL: server.url, timeout: 500 });
    attachRetry(api, { maxConcurrent: 1 });
    // Each waits up to 4 × 300 ms in line, longer than its timeout; each send takes 300 ms.
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => api.get('/x')));
    expect(results.map((r) => r.status)).toEqual(Array(5).fill('fulfilled'));
    expect(server.stats.mostInside).toBe(1);
  });
});

describe('limit changes on diagnostics_channel', () => {
  it('publishes { origin, route, limit } when the learned limit changes', async () => {
    server = await startQueueingServer({ slots: 4, serviceMs: 20 });
    const seen: { origin: string; route?: string; limit: number }[] = [];
    const listen = (message: unknown) => seen.push(message as (typeof seen)[number]);
    diagnostics.subscribe('axios-safe-retry:limit', listen);
    try {
      await job({}, 300);
    } finally {
      diagnostics.unsubscribe('axios-safe-retry:limit', listen);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]).toMatchObject({ origin: server.url, route: '/records/:id' });
    expect(seen.at(-1)?.limit).toBeLessThan(32);
  });
});
