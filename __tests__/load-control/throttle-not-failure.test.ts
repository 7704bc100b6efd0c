import type { CircuitStateChange } from '../../src';
import { failureIn } from '../helpers/failure';
import { mockClient, settle } from '../helpers/mock-client';

// Issue 13, item 9: a 429 (or any throttle) is a rate signal, never a breaker failure. A worker
// whose share of a limit is spent sees a run of 429s: its breaker must stay closed, so its calls
// are paced, not failed fast with ERR_CIRCUIT_OPEN.

beforeEach(() => {
  jest.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  jest.useRealTimers();
});

/**
 * A client whose breaker would open after 4 failed attempts within a minute (a window long
 * enough that paced attempts, a second apart, still fill it), recording its state changes.
 */
function watchedClient(options = {}) {
  const events: CircuitStateChange[] = [];
  const made = mockClient({
    retries: 0,
    circuitBreaker: {
      minimumThroughput: 4,
      windowMs: 60_000,
      breakDurationMs: 1000,
      maxBreakDurationMs: 1000,
      onStateChange: (event) => events.push(event),
    },
    ...options,
  });
  return { ...made, events };
}

const throttles: Array<[string, number, Record<string, string>]> = [
  ['a bare 429', 429, {}],
  ['a 429 with Retry-After: 1', 429, { 'Retry-After': '1' }],
  ['a 429 with RateLimit remaining=0', 429, { RateLimit: 'limit=10, remaining=0, reset=1' }],
  [
    "GitHub's 403 with X-RateLimit-Remaining: 0",
    403,
    { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1' },
  ],
];

describe.each([
  ['pacing on', {}],
  ['pacing off', { pacing: false as const }],
])('with %s', (_name, pacing) => {
  it.each(throttles)(
    '20 answers of %s in a row never open the breaker; the next call is sent and succeeds',
    async (_label, status, headers) => {
      const { client, mock, events } = watchedClient(pacing);
      mock.onGet('/items').reply(status, '', headers);
      for (let i = 0; i < 20; i++) {
        const error = failureIn(await settle(client.get('/items')));
        // Each was sent and answered: never held back as circuit-open.
        expect(error.code).not.toBe('ERR_CIRCUIT_OPEN');
        expect(error.response?.status).toBe(status);
      }
      expect(events).toEqual([]);
      expect(mock.history.get).toHaveLength(20);

      mock.onGet('/items').reply(200, 'ok');
      const { value } = await settle(client.get('/items'));
      expect(value?.data).toBe('ok');
      expect(events).toEqual([]);
    },
  );
});

it('429s do not add to the failures that open the breaker: 3 × 503 among 429s leave it closed', async () => {
  const { client, mock, events } = watchedClient();
  const replies = [503, 429, 429, 503, 429, 429, 429, 503, 429, 429];
  for (const status of replies) {
    mock.onGet('/items').replyOnce(status);
    await settle(client.get('/items'));
  }
  // Three failures (below the minimum throughput of 4): closed. Had the 429s counted, ten
  // failures in a row would have opened it.
  expect(events).toEqual([]);
  mock.onGet('/items').reply(200, 'ok');
  const { value } = await settle(client.get('/items'));
  expect(value?.data).toBe('ok');
  expect(mock.history.get).toHaveLength(replies.length + 1);
});

it('a call without a deadline after a run of 429s waits for its slot instead of failing fast', async () => {
  const { client, mock, events } = watchedClient({ retries: 3 });
  mock.onGet('/items').reply(429, '', { 'Retry-After': '1' });
  for (let i = 0; i < 10; i++) await settle(client.get('/items', { retry: false }));
  mock.onGet('/items').reply(200, 'ok');
  const outcomes = await settle(Promise.all([client.get('/items'), client.get('/items')]));
  expect(outcomes.value?.map((r) => r.data)).toEqual(['ok', 'ok']);
  expect(events).toEqual([]);
});
