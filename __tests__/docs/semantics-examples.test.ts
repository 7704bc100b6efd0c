// docs/semantics.md's examples, as written there.
import axios, { type AxiosResponse } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import type { RetryState } from '../../src';
import * as library from '../../src';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';
import { example, runExample } from './doc-examples';

const modules = { 'axios-safe-retry': library };

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

// Against a loopback server: alone, it re-sends a retry without the instance (it never saw it),
// so axios-mock-adapter, which is the instance's adapter, would not answer it.
test('interceptor-alone: the error interceptor alone, in the second slot, retries a 503', async () => {
  server = await startServer((_arrival, res) => {
    res.statusCode = server?.arrivals.length === 1 ? 503 : 200;
    res.end('ok');
  });
  const api = axios.create({ baseURL: server.url });
  await runExample(example('docs/semantics.md', 'interceptor-alone'), {
    modules,
    globals: { api },
  });
  const response = await api.get('/items');
  expect(response.data).toBe('ok');
  expect(server.arrivals).toHaveLength(2);
});

test('per-request: overrides field by field, and `retry: false` turns retries off', async () => {
  const api = axios.create({ baseURL: 'http://api.test' });
  const mock = new MockAdapter(api);
  library.attachRetry(api, { retries: 0, baseDelayMs: 1 });
  mock.onGet('/report').replyOnce(503).onGet('/report').reply(200, 'report');
  mock.onGet('/poll').reply(503);
  const { report, poll } = await runExample(example('docs/semantics.md', 'per-request'), {
    modules,
    globals: { api },
    returns: ['report', 'poll'],
  });
  const [done, stopped] = await Promise.allSettled([report, poll]);
  // `retries: 6` on the request wins over the client's 0.
  const response = (done as PromiseFulfilledResult<AxiosResponse>).value;
  expect(response.data).toBe('report');
  expect(response.config.retryState?.retryCount).toBe(1);
  const error = (stopped as PromiseRejectedResult).reason;
  expect(library.isRetryStop(error) && error.config.retryState.stopReason).toBe('disabled');
  expect(mock.history.get.filter((r) => r.url === '/poll')).toHaveLength(1);
});

test('retry-state: the interface shown lists every field of RetryState, and no other', () => {
  // `npm run typecheck` fails if a field of RetryState is missing here, or one is added.
  const fields: Record<keyof RetryState, true> = {
    retryCount: true,
    startedAt: true,
    delays: true,
    idempotencyKey: true,
    finalAttempt: true,
    waitedMs: true,
    refusedCount: true,
    throttledCount: true,
    maybePerformed: true,
    stopReason: true,
    retryAfterMs: true,
  };
  const shown = [...example('docs/semantics.md', 'retry-state').matchAll(/^ {2}(\w+)\??:/gm)];
  expect(shown.map((m) => m[1]).sort()).toEqual(Object.keys(fields).sort());
});
