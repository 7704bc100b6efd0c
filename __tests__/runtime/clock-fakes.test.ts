import FakeTimers from '@sinonjs/fake-timers';
import axios, { type AxiosInstance } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry, type RetryOptions } from '../../src';

// Issue 25, newcomer items: fake timers that fake `Date` but not `performance` (sinon's
// `toFake: ['setTimeout', 'clearTimeout', 'Date']`, vitest's default). The sleeps run on fake
// time; so must the deadline, the breaker and the holds: the clock follows `Date` then. And
// `retryState.startedAt` follows a fake clock installed after a first call.

type InstalledClock = ReturnType<typeof FakeTimers.install>;
type ToFake = NonNullable<Parameters<typeof FakeTimers.install>[0]>['toFake'];

let clock: InstalledClock | undefined;
afterEach(() => {
  clock?.uninstall();
  clock = undefined;
});

/** Date and the timers faked, `performance` left real, from the real time of now. */
const fakeDateAndTimers = (): InstalledClock =>
  FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.now() });

function client(options: RetryOptions = {}): { client: AxiosInstance; mock: MockAdapter } {
  const instance = axios.create({ baseURL: 'http://api.test' });
  const mock = new MockAdapter(instance);
  attachRetry(instance, { random: () => 0.5, ...options });
  return { client: instance, mock };
}

/** A call that records when it settled, on the fake clock. */
function track(call: Promise<unknown>, installed: InstalledClock) {
  const start = installed.now;
  const outcome: { settledAfterMs?: number; error?: unknown } = {};
  call.then(
    () => {
      outcome.settledAfterMs = installed.now - start;
    },
    (error: unknown) => {
      outcome.settledAfterMs = installed.now - start;
      outcome.error = error;
    },
  );
  return outcome;
}

describe('sinon with Date and the timers faked, performance real', () => {
  it('a breaker tripped by 10 × 503 lets a probe through once its break is over on the fake clock', async () => {
    const installed = fakeDateAndTimers();
    clock = installed;
    const { client: api, mock } = client({ retries: 0 });
    mock.onGet('/items').reply(503);
    for (let i = 0; i < 10; i++) await api.get('/items').catch(() => undefined);
    const open = await api.get('/items').catch((error: { code?: string }) => error.code);
    expect(open).toBe('ERR_CIRCUIT_OPEN');
    mock.reset();
    mock.onGet('/items').reply(200, 'ok');
    await installed.tickAsync(2500);
    await expect(api.get('/items')).resolves.toMatchObject({ data: 'ok' });
  });

  it('`Retry-After: 1` is waited for 1 s of fake time (and the spread), not more', async () => {
    const installed = fakeDateAndTimers();
    clock = installed;
    const { client: api, mock } = client();
    mock.onGet('/items').replyOnce(503, '', { 'retry-after': '1' }).onGet('/items').reply(200);
    const outcome = track(api.get('/items'), installed);
    await installed.tickAsync(999);
    expect(mock.history.get).toHaveLength(1);
    await installed.tickAsync(1000);
    expect(outcome.error).toBeUndefined();
    expect(mock.history.get).toHaveLength(2);
    // 1 s, and half of baseDelayMs (100 ms) as the spread (random 0.5).
    expect(outcome.settledAfterMs).toBe(1050);
  });

  it.each<[string, ToFake]>([
    ['Date and the timers faked', ['setTimeout', 'clearTimeout', 'Date']],
    ['every clock faked', undefined],
  ])('`deadlineMs: 1000` settles within 1 s of fake time, %s alike', async (_l, toFake) => {
    const installed = FakeTimers.install({ now: Date.now(), ...(toFake ? { toFake } : {}) });
    clock = installed;
    const { client: api, mock } = client({ retries: 10, deadlineMs: 1000 });
    mock.onGet('/items').reply(503);
    const outcome = track(api.get('/items'), installed);
    await installed.tickAsync(5000);
    // Sent at 0, 50, 150, 350 and 750 ms, then a last one at 875 (its delay cut to fit).
    const state = (outcome.error as { config?: { retryState?: Record<string, unknown> } }).config
      ?.retryState;
    expect(state).toMatchObject({ stopReason: 'deadline', delays: [50, 100, 200, 400, 125] });
    expect(mock.history.get).toHaveLength(6);
    expect(outcome.settledAfterMs).toBeLessThanOrEqual(1000);
  });
});

describe('retryState.startedAt under fake timers installed after a first call', () => {
  it.each<[string, ToFake]>([
    ['every clock faked (performance too)', undefined],
    ['Date and the timers faked', ['setTimeout', 'clearTimeout', 'Date']],
  ])('%s: reads like the fake Date.now(), never before an earlier call', async (_l, toFake) => {
    const { client: api, mock } = client();
    mock.onGet('/items').reply(200);
    const first = (await api.get('/items')).config.retryState?.startedAt as number;
    expect(Math.abs(first - Date.now())).toBeLessThan(1000);
    const installed = FakeTimers.install({ now: Date.now() + 5000, ...(toFake ? { toFake } : {}) });
    clock = installed;
    const second = (await api.get('/items')).config.retryState?.startedAt as number;
    expect(second).toBeGreaterThanOrEqual(first);
    expect(Math.abs(second - Date.now())).toBeLessThan(1000);
    installed.uninstall();
    clock = undefined;
    const third = (await api.get('/items')).config.retryState?.startedAt as number;
    expect(Math.abs(third - Date.now())).toBeLessThan(1000);
  });
});
