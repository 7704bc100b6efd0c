import { AxiosError } from 'axios';
import { failureIn } from '../helpers/failure';
import { mockClient, settle } from '../helpers/mock-client';

// Issue 13's bounded waits at the gate, for the breaker (the pacing holds are in
// hostile-limits.integration.test.ts): a call never waits at an open breaker longer than
// min(maxRetryAfterMs, the time left to its deadline); when the origin is not expected back
// within that, it fails at once with ERR_CIRCUIT_OPEN, sending nothing, and
// `retryState.retryAfterMs` says when it is expected back. With a mock adapter and fake timers.

beforeEach(() => {
  jest.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  jest.useRealTimers();
});

const retryAfterOf = (error: AxiosError) =>
  (error.config?.retryState as { retryAfterMs?: number } | undefined)?.retryAfterMs;

/** A client whose origin's breaker is open for a break of 10 s (random 0.5: 7.5 s). */
async function openFor10s(options = {}) {
  const made = mockClient({
    retries: 0,
    circuitBreaker: { minimumThroughput: 4, breakDurationMs: 10_000, maxBreakDurationMs: 10_000 },
    ...options,
  });
  made.mock.onGet('/items').reply(503);
  for (let i = 0; i < 4; i++) await settle(made.client.get('/items'));
  made.mock.resetHistory();
  return { ...made, openedAt: Date.now() };
}

it('a call without a deadline fails fast at an open breaker, with retryAfterMs until the break ends, naming the route whose breaker is open', async () => {
  const { client, mock, openedAt } = await openFor10s();
  await jest.advanceTimersByTimeAsync(1000);
  const error = failureIn(await settle(client.get('/items')));
  expect(error.code).toBe('ERR_CIRCUIT_OPEN');
  expect(error.config?.retryState?.stopReason).toBe('circuit-open');
  expect(error.message).toMatch(
    /^axios-safe-retry: http:\/\/api\.test\/items circuit open; retry in \d+ ms$/,
  );
  expect(error.message).not.toContain('README');
  // The break (7.5 s with random 0.5) ends 6.5 s from now.
  expect(retryAfterOf(error)).toBeGreaterThan(0);
  expect(retryAfterOf(error)).toBeLessThanOrEqual(7500 - 1000);
  expect(retryAfterOf(error)).toBeGreaterThanOrEqual(7500 - 1000 - 50);
  expect(Date.now() - openedAt).toBe(1000);
  expect(mock.history.get).toHaveLength(0);
});

it("names the origin when the breaker that is open is the origin's (faults of the connection)", async () => {
  const { client, mock } = mockClient({
    retries: 0,
    circuitBreaker: { minimumThroughput: 4, breakDurationMs: 10_000, maxBreakDurationMs: 10_000 },
  });
  mock
    .onGet('/items')
    .reply((config) => Promise.reject(new AxiosError('refused', 'ECONNREFUSED', config as never)));
  for (let i = 0; i < 4; i++) await settle(client.get('/items'));
  const error = failureIn(await settle(client.get('/other')));
  expect(error.code).toBe('ERR_CIRCUIT_OPEN');
  expect(error.message).toMatch(/^axios-safe-retry: http:\/\/api\.test circuit open;/);
});

it('a call with a long deadline does not wait past maxRetryAfterMs: it fails at once, retry-after-too-long, with retryAfterMs', async () => {
  const { client, mock } = await openFor10s({ maxRetryAfterMs: 1000 });
  const startedAt = Date.now();
  const error = failureIn(await settle(client.get('/items', { retry: { deadlineMs: 60_000 } })));
  expect(error.code).toBe('ERR_CIRCUIT_OPEN');
  expect(error.config?.retryState?.stopReason).toBe('retry-after-too-long');
  expect(Date.now() - startedAt).toBe(0);
  expect(retryAfterOf(error)).toBeGreaterThan(1000);
  expect(retryAfterOf(error)).toBeLessThanOrEqual(7500);
  expect(mock.history.get).toHaveLength(0);
});

it('a call whose deadline ends before the break: fails at once with stopReason deadline and retryAfterMs', async () => {
  const { client, mock } = await openFor10s();
  const startedAt = Date.now();
  const error = failureIn(await settle(client.get('/items', { retry: { deadlineMs: 3000 } })));
  expect(error.code).toBe('ERR_CIRCUIT_OPEN');
  expect(error.config?.retryState?.stopReason).toBe('deadline');
  expect(Date.now() - startedAt).toBe(0);
  expect(retryAfterOf(error)).toBeGreaterThan(3000);
  expect(mock.history.get).toHaveLength(0);
});

it('a call whose bound covers the break still waits for it and is the probe (no change there)', async () => {
  const { client, mock } = await openFor10s();
  mock.onGet('/items').reply(200, 'back');
  const { value } = await settle(client.get('/items', { retry: { deadlineMs: 20_000 } }));
  expect(value?.data).toBe('back');
  expect(value?.config.retryState?.waitedMs).toBe(7500);
});
