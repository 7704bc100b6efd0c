import { AxiosError } from 'axios';
import { mockClient } from '../helpers/mock-client';

// Issue 13, item 12: `random` is validated. A value outside [0, 1) — NaN, Infinity, -1, 1 —
// never reaches a delay: the call rejects with a TypeError that names `random`, and a call with a
// deadline still settles by it. With a mock adapter and fake timers (nothing sleeps).

beforeEach(() => {
  jest.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  jest.useRealTimers();
});

const bad: Array<[string, number]> = [
  ['Infinity', Infinity],
  ['NaN', NaN],
  ['-1', -1],
  ['1', 1],
  ['-Infinity', -Infinity],
];

describe.each([
  ['the client', 'client'],
  ['the request', 'request'],
])('random given on %s', (_where, where) => {
  it.each(bad)(
    'returning %s: the call rejects with a TypeError naming random, within its deadline',
    async (_name, value) => {
      const random = () => value;
      const { client, mock, events } = mockClient(where === 'client' ? { random } : {});
      mock.onGet('/items').reply(503);
      let outcome: { error?: unknown; settledAt?: number } | undefined;
      const startedAt = Date.now();
      void client
        .get('/items', {
          retry: {
            deadlineMs: 2000,
            retries: Infinity,
            ...(where === 'request' ? { random } : {}),
          },
        })
        .then(
          () => {
            outcome = { settledAt: Date.now() };
          },
          (error: unknown) => {
            outcome = { error, settledAt: Date.now() };
          },
        );
      await jest.advanceTimersByTimeAsync(2000);
      expect(outcome).toBeDefined();
      expect((outcome?.settledAt ?? Infinity) - startedAt).toBeLessThanOrEqual(2000);
      expect(outcome?.error).toBeInstanceOf(TypeError);
      expect(outcome?.error).not.toBeInstanceOf(AxiosError);
      expect(String((outcome?.error as Error | undefined)?.message)).toMatch(/\brandom\b/);
      // No retry was slept with a bad delay.
      for (const event of events) {
        expect(Number.isFinite(event.delayMs) && event.delayMs >= 0).toBe(true);
      }
      expect(mock.history.get.length).toBeLessThanOrEqual(1);
      await jest.runOnlyPendingTimersAsync();
      expect(jest.getTimerCount()).toBe(0);
    },
  );
});

it('a random that returns values in [0, 1) is used as before', async () => {
  const { client, mock, events } = mockClient({ random: () => 0.999_999 });
  mock.onGet('/items').replyOnce(503).onGet('/items').reply(200, 'ok');
  const call = client.get('/items');
  await jest.advanceTimersByTimeAsync(100);
  await expect(call).resolves.toMatchObject({ data: 'ok' });
  expect(events[0]?.delayMs).toBeCloseTo(99.9999, 3);
});
