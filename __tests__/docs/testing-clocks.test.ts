// docs/testing.md, "Which clocks to fake": the setups it recommends (jest's modern timers, and
// @sinonjs/fake-timers with 'performance' in `toFake`, its example run as written) fake the
// clock the plugin measures with, so the breaker's break, a Retry-After wait and the deadline
// follow fake time; and the facts its table states about jest's two kinds of fake timers.
import * as FakeTimers from '@sinonjs/fake-timers';
import axios from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry } from '../../src';
import { example, runExample } from './doc-examples';

afterEach(() => {
  jest.useRealTimers();
});

type Advance = (ms: number) => Promise<unknown>;

/** A client on a mock adapter, and a call that settles as fake time is advanced. */
function client(options: Parameters<typeof attachRetry>[1] = {}) {
  const api = axios.create({ baseURL: 'http://api.test' });
  const mock = new MockAdapter(api);
  attachRetry(api, { random: () => 0.5, ...options });
  return { api, mock };
}

async function outcome(call: Promise<unknown>, advance: Advance, ms = 0): Promise<unknown> {
  const settled = call.then(
    (response) => response,
    (error: unknown) => error,
  );
  await advance(ms);
  return settled;
}

/** Ten 503s open the breaker; 2 500 fake ms later it lets a call through again. */
async function breakerFollowsFakeTime(advance: Advance): Promise<void> {
  const { api, mock } = client({ retries: 0 });
  mock.onGet('/items').reply(503);
  for (let i = 0; i < 10; i++) await outcome(api.get('/items'), advance);
  const fast = await outcome(api.get('/items'), advance);
  expect(axios.isAxiosError(fast) && fast.code).toBe('ERR_CIRCUIT_OPEN');
  mock.onGet('/items').reply(200, 'back');
  await advance(2500);
  const back = await outcome(api.get('/items'), advance, 10);
  expect((back as { data?: unknown }).data).toBe('back');
}

/** `Retry-After: 1` waits one fake second, plus a spread of 50 ms (random 0.5 × 100 ms). */
async function retryAfterFollowsFakeTime(advance: Advance): Promise<void> {
  const { api, mock } = client();
  const arrivals: number[] = [];
  mock.onGet('/limited').reply(() => {
    arrivals.push(performance.now());
    return arrivals.length === 1 ? [429, '', { 'retry-after': '1' }] : [200, 'ok'];
  });
  await outcome(api.get('/limited'), advance, 1100);
  expect(arrivals).toHaveLength(2);
  expect((arrivals[1] as number) - (arrivals[0] as number)).toBe(1050);
}

/** `deadlineMs: 1000` against a dead route: every attempt starts within one fake second. */
async function deadlineFollowsFakeTime(advance: Advance): Promise<void> {
  const { api, mock } = client({ retries: 20, circuitBreaker: false, deadlineMs: 1000 });
  const arrivals: number[] = [];
  mock.onGet('/dead').reply(() => {
    arrivals.push(performance.now());
    return [503];
  });
  const error = await outcome(api.get('/dead'), advance, 5000);
  expect(axios.isAxiosError(error) && error.config?.retryState?.stopReason).toBe('deadline');
  // Delays of 50, 100, 200, 400 ms, then a last attempt drawn over the time that remains.
  expect(arrivals).toHaveLength(6);
  expect((arrivals.at(-1) as number) - (arrivals[0] as number)).toBeLessThan(1000);
}

const scenarios: [string, (advance: Advance) => Promise<void>][] = [
  ['the breaker', breakerFollowsFakeTime],
  ['Retry-After', retryAfterFollowsFakeTime],
  ['the deadline', deadlineFollowsFakeTime],
];

describe("jest's modern fake timers (the default)", () => {
  it('fake performance.now()', () => {
    jest.useFakeTimers();
    const before = performance.now();
    jest.advanceTimersByTime(60_000);
    expect(performance.now() - before).toBe(60_000);
  });

  it.each(scenarios)('%s follows fake time', async (_name, scenario) => {
    jest.useFakeTimers();
    await scenario((ms) => jest.advanceTimersByTimeAsync(ms));
  });
});

test("jest's legacy fake timers do not fake performance.now()", () => {
  jest.useFakeTimers({ legacyFakeTimers: true });
  const before = performance.now();
  jest.advanceTimersByTime(60_000);
  expect(performance.now() - before).toBeLessThan(60_000);
});

describe("sinon-fake-timers: @sinonjs/fake-timers with 'performance' in toFake, as written", () => {
  it.each(scenarios)('%s follows fake time', async (_name, scenario) => {
    await runExample(example('docs/testing.md', 'sinon-fake-timers'), {
      modules: { '@sinonjs/fake-timers': { default: FakeTimers } },
      globals: { scenario },
      replace: [
        [
          '// … the test, driving time with `await clock.tickAsync(ms)` …',
          'await scenario((ms) => clock.tickAsync(ms));',
        ],
      ],
    });
  });

  it('install() without toFake fakes performance too', () => {
    const clock = FakeTimers.install();
    try {
      const before = performance.now();
      clock.tick(60_000);
      expect(performance.now() - before).toBe(60_000);
    } finally {
      clock.uninstall();
    }
  });
});
