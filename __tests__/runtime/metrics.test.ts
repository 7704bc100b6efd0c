import diagnostics from 'node:diagnostics_channel';
import { publish } from '../../src/runtime/metrics';
import { mockClient, settle } from '../helpers/mock-client';

// Publishing needs `process.getBuiltinModule` (Node 20.16 and 22.3 on): on an older Node the
// package publishes nothing (the last test checks that), and the tests of messages are skipped.
const withChannels = typeof process.getBuiltinModule === 'function' ? it : it.skip;
if (withChannels === it.skip) {
  console.warn(`metrics: Node ${process.version} has no process.getBuiltinModule; skipped`);
}

beforeEach(() => {
  jest.useFakeTimers({ now: 0 });
});
afterEach(() => {
  jest.useRealTimers();
});

/** Subscribes to `axios-safe-retry:<name>` for the test; returns the messages it gets. */
function listen(name: string): unknown[] {
  const messages: unknown[] = [];
  const onMessage = (message: unknown) => messages.push(message);
  diagnostics.subscribe(`axios-safe-retry:${name}`, onMessage);
  afterEachCleanups.push(() => diagnostics.unsubscribe(`axios-safe-retry:${name}`, onMessage));
  return messages;
}
const afterEachCleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of afterEachCleanups.splice(0)) cleanup();
});

describe('metrics on node:diagnostics_channel', () => {
  withChannels('publishes each retry and the stop, with its stopReason', async () => {
    const retries = listen('retry');
    const stops = listen('stop');
    const { client, mock } = mockClient({ retries: 2, circuitBreaker: false, pacing: false });
    mock.onGet('/items').reply(503);
    await settle(client.get('/items'));
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatchObject({ retryCount: 1, delayMs: expect.any(Number) });
    expect((retries[1] as { config: { url: string } }).config.url).toBe('/items');
    expect(stops).toHaveLength(1);
    expect(stops[0]).toMatchObject({
      stopReason: 'retries-exhausted',
      retryState: { retryCount: 2, stopReason: 'retries-exhausted' },
      config: { url: '/items' },
    });
    expect((stops[0] as { error: { response: { status: number } } }).error.response.status).toBe(
      503,
    );
  });

  withChannels('publishes breaker transitions', async () => {
    const breaker = listen('breaker');
    const { client, mock } = mockClient({
      retries: 0,
      circuitBreaker: { minimumThroughput: 4, breakDurationMs: 1000, maxBreakDurationMs: 1000 },
    });
    mock.onGet('/items').reply(503);
    for (let i = 0; i < 4; i++) await settle(client.get('/items'));
    expect(breaker).toEqual([
      { origin: 'http://api.test', route: '/items', state: 'open', previousState: 'closed' },
    ]);
    mock.onGet('/items').reply(200);
    await jest.advanceTimersByTimeAsync(1000);
    await settle(client.get('/items'));
    expect(breaker.slice(1)).toEqual([
      expect.objectContaining({ state: 'half-open', previousState: 'open' }),
      expect.objectContaining({ state: 'closed', previousState: 'half-open' }),
    ]);
  });

  withChannels('publishes pacing changes: the rate learned and the hold', async () => {
    const pacing = listen('pacing');
    const { client, mock } = mockClient({ retries: 0 });
    // Successes that say quota is left, of a scope that is not paced, change nothing.
    mock.onGet('/items').reply(200, '', { 'ratelimit-remaining': '50' });
    for (let i = 0; i < 10; i++) await settle(client.get('/items'));
    expect(pacing).toEqual([]);
    mock.onGet('/items').reply(429, '', { 'retry-after': '2' });
    await settle(client.get('/items'));
    expect(pacing).toEqual([
      {
        origin: 'http://api.test',
        route: '/items',
        ratePerSecond: expect.any(Number),
        holdMs: 2000,
      },
    ]);
    expect((pacing[0] as { ratePerSecond: number }).ratePerSecond).toBeGreaterThan(0);
  });

  withChannels('makes no message for a channel without subscribers', () => {
    const message = jest.fn(() => ({}));
    publish('unheard', message);
    expect(message).not.toHaveBeenCalled();
    const heard = listen('heard');
    publish('heard', () => ({ x: 1 }));
    expect(heard).toEqual([{ x: 1 }]);
  });

  it('is a no-op where process.getBuiltinModule is missing (browsers, older Node)', () => {
    jest.isolateModules(() => {
      const original = process.getBuiltinModule;
      (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
      try {
        const { publish: isolated } =
          require('../../src/runtime/metrics') as typeof import('../../src/runtime/metrics');
        const message = jest.fn(() => ({}));
        listen('none');
        expect(() => isolated('none', message)).not.toThrow();
        expect(message).not.toHaveBeenCalled();
      } finally {
        process.getBuiltinModule = original;
      }
    });
  });
});
