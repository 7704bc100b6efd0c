import { type CircuitStateChange, loadControlOf } from '../../src';
import { IDLE_BREAKS, MAX_SCOPES } from '../../src/load-control/load-control';
import { failureIn } from '../helpers/failure';
import { mockClient, settle } from '../helpers/mock-client';

// Issue 13, item 10: a client remembers its MAX_SCOPES most recently used scopes (an origin and
// each of its routes is one), but an origin in trouble (open breaker, hold, calls waiting,
// attempts in flight) is the last one forgotten; since issue 22, one nobody calls or waits on is
// forgotten once idle for IDLE_BREAKS × maxBreakDurationMs, and past MAX_SCOPES the oldest goes.
// Through the public API, with a mock adapter and fake timers.

beforeEach(() => {
  jest.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  jest.useRealTimers();
});

const DEAD = 'http://dead.test';
const isDead = (url: string | undefined) => (url ?? '').startsWith(DEAD);

/** Touches MAX_SCOPES other origins (each a successful call): more than the client remembers. */
async function touchOthers(client: ReturnType<typeof mockClient>['client']) {
  // Awaited as they are (`settle` would run every pending timer: the waiting calls' too).
  for (let i = 0; i < MAX_SCOPES; i++) {
    const response = await client.get(`http://o${i}.test/ping`);
    expect(response.data).toBe('pong');
  }
}

it('an origin with an open breaker and calls waiting is not forgotten after MAX_SCOPES others are touched', async () => {
  const events: CircuitStateChange[] = [];
  const { client, mock } = mockClient({
    retries: 0,
    circuitBreaker: {
      minimumThroughput: 4,
      breakDurationMs: 10_000,
      maxBreakDurationMs: 10_000,
      onStateChange: (event) => events.push(event),
    },
  });
  mock.onGet(/^http:\/\/dead\.test/).reply(503);
  mock.onGet(/^http:\/\/o\d+\.test/).reply(200, 'pong');
  for (let i = 0; i < 4; i++) await settle(client.get(`${DEAD}/items`));
  expect(events.filter((e) => e.origin === DEAD).map((e) => e.state)).toEqual(['open']);
  const sentToDead = () => mock.history.get.filter((c) => isDead(c.url)).length;
  expect(sentToDead()).toBe(4);

  // Calls with a deadline wait for the dead origin (its break lasts 5 to 10 s).
  const waiting = Array.from({ length: 20 }, () =>
    client.get(`${DEAD}/items`, { retry: { deadlineMs: 30_000 } }).then(
      () => 'ok',
      (error: { code?: string }) => error.code,
    ),
  );
  await jest.advanceTimersByTimeAsync(10);
  await touchOthers(client);

  // Still known to be open: a call without a deadline fails fast and nothing is sent.
  const error = failureIn({ error: await client.get(`${DEAD}/items`).catch((e: unknown) => e) });
  expect(error.code).toBe('ERR_CIRCUIT_OPEN');
  expect(error.config?.retryState?.stopReason).toBe('circuit-open');
  expect(sentToDead()).toBe(4);

  // The waiting calls are still held by the breaker, and go by its probes, not all at once.
  await jest.advanceTimersByTimeAsync(4000);
  expect(sentToDead()).toBe(4);
  await jest.advanceTimersByTimeAsync(30_000);
  const outcomes = await Promise.all(waiting);
  expect(outcomes.every((o) => o !== 'ok')).toBe(true);
  // Over the 30 s, probes only: one per break (5 s at least), at most a dozen in all.
  expect(sentToDead() - 4).toBeLessThanOrEqual(12);
});

it('an origin held by a spent quota (an hour) is not forgotten after MAX_SCOPES others are touched', async () => {
  const { client, mock } = mockClient();
  mock
    .onGet(/^http:\/\/dead\.test/)
    .replyOnce(200, 'last', { RateLimit: 'limit=100, remaining=0, reset=3600' })
    .onGet(/^http:\/\/dead\.test/)
    .reply(200, 'more');
  mock.onGet(/^http:\/\/o\d+\.test/).reply(200, 'pong');
  const { value } = await settle(client.get(`${DEAD}/items`));
  expect(value?.data).toBe('last');

  const held = () => client.get(`${DEAD}/items`, { retry: { deadlineMs: 5000 } });
  const before = failureIn(await settle(held()));
  expect(before.code).toBe('ERR_RATE_LIMITED');

  await touchOthers(client);

  // Still held: a call that cannot wait an hour fails at once, sending nothing.
  const startedAt = Date.now();
  const after = failureIn(await settle(held()));
  expect(after.code).toBe('ERR_RATE_LIMITED');
  expect(after.config?.retryState?.stopReason).toBe('deadline');
  expect(Date.now() - startedAt).toBeLessThan(5000);
  expect(mock.history.get.filter((c) => isDead(c.url))).toHaveLength(1);
});

it('origins with nothing going on are still forgotten (the bound on memory holds)', async () => {
  // A healthy origin that was paced once and then went quiet: forgetting it is harmless, and a
  // call to it goes at once.
  const { client, mock } = mockClient({ retries: 0 });
  mock.onGet(/^http:\/\/o\d+\.test/).reply(200, 'pong');
  mock.onGet(/^http:\/\/quiet\.test/).reply(200, 'quiet');
  await settle(client.get('http://quiet.test/a'));
  await touchOthers(client);
  const { value } = await settle(client.get('http://quiet.test/b'));
  expect(value?.data).toBe('quiet');
  expect(value?.config.retryState?.waitedMs).toBeUndefined();
});

describe('dead origins nobody calls are forgotten (issue 22)', () => {
  const breaker = { minimumThroughput: 2, breakDurationMs: 500, maxBreakDurationMs: 2000 };
  const scopesOf = (client: ReturnType<typeof mockClient>['client']) =>
    loadControlOf(client).scopes.map((scope) => scope.origin);

  it('an open breaker idle for IDLE_BREAKS × maxBreakDurationMs is forgotten at a call within half as long again', async () => {
    const { client, mock } = mockClient({ retries: 0, circuitBreaker: breaker });
    mock.onGet(/^http:\/\/dead\.test/).reply(503);
    mock.onGet(/^http:\/\/o\d+\.test/).reply(200, 'pong');
    for (let i = 0; i < 2; i++) await settle(client.get(`${DEAD}/items`));
    // The route's breaker (503s are the route's failures).
    const deadRoute = () => loadControlOf(client).scopes.find((s) => s.origin === DEAD && s.route);
    expect(deadRoute()?.breaker).toBe('open');
    await jest.advanceTimersByTimeAsync(IDLE_BREAKS * breaker.maxBreakDurationMs - 100);
    await settle(client.get('http://o1.test/ping'));
    expect(scopesOf(client)).toContain(DEAD);
    // The cache looks for idle scopes every half of the idle time, at a call.
    await jest.advanceTimersByTimeAsync((IDLE_BREAKS * breaker.maxBreakDurationMs) / 2 + 100);
    await settle(client.get('http://o2.test/ping'));
    expect(scopesOf(client)).not.toContain(DEAD);
  });

  it('past MAX_SCOPES in trouble, the cache stays bounded, and forgets them all once idle', async () => {
    const { client, mock } = mockClient({ retries: 0, circuitBreaker: breaker });
    mock.onGet(/^http:\/\/d\d+\.test/).reply(503);
    for (let i = 0; i < MAX_SCOPES + 50; i++) {
      for (let j = 0; j < 2; j++) await client.get(`http://d${i}.test/items`).catch(() => {});
    }
    const kept = loadControlOf(client).scopes;
    expect(kept.length).toBeLessThanOrEqual(MAX_SCOPES);
    expect(kept.filter((scope) => scope.breaker === 'open').length).toBeGreaterThan(200);
    expect(scopesOf(client)).toContain(`http://d${MAX_SCOPES + 49}.test`);
    // Idle for long enough, they are all forgotten.
    await jest.advanceTimersByTimeAsync(1.5 * IDLE_BREAKS * breaker.maxBreakDurationMs);
    mock.onGet('http://fresh.test/ping').reply(200, 'pong');
    await client.get('http://fresh.test/ping');
    expect(scopesOf(client)).toEqual(['http://fresh.test', 'http://fresh.test']);
  }, 30_000);
});
