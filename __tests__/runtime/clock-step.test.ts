import {
  clientFor,
  delay,
  describe13,
  getWithin,
  onCleanup,
  track,
  useLoopbackCleanup,
} from '../helpers/loopback-client';
import { startServer } from '../helpers/loopback-server';

// Issue 13, item 4: load-control time (breaker, pacer, holds, deadlines) is monotonic. The wall
// clock is stepped by an hour mid-run (an NTP step, a VM resume) by overriding `Date.now`, at a
// point the test controls: inside the server's handler, while the call is in flight. Nothing may
// change. Real servers on 127.0.0.1, in real time.

useLoopbackCleanup();

const HOUR_MS = 3_600_000;
const realNow = Date.now.bind(Date);

/** Steps the wall clock by `byMs` (negative: back) from now on, until the test ends. */
function stepClock(byMs: number): void {
  const spy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + byMs);
  onCleanup(() => spy.mockRestore());
}

describe.each([
  ['back', -HOUR_MS],
  ['forward', HOUR_MS],
])('the wall clock stepped %s an hour', (_direction, step) => {
  it('an open breaker still ends its break on time: the healed origin is probed and closes', async () => {
    let healed = false;
    const server = track(
      await startServer((_arrival, res) => {
        if (healed) {
          res.end('ok');
          return;
        }
        res.writeHead(503).end();
      }),
    );
    const client = clientFor(server.url, {
      circuitBreaker: { minimumThroughput: 4, breakDurationMs: 200, maxBreakDurationMs: 200 },
    });
    for (let i = 0; i < 4; i++) await getWithin(client, '/down', 2000, { retry: false });
    expect(client.events.map((e) => e.state)).toEqual(['open']);
    stepClock(step);
    healed = true;

    // The break (100 to 200 ms) is over by the monotonic clock: a call goes as the probe.
    await delay(300);
    const outcome = await getWithin(client, '/down?healed', 2000);
    expect(describe13(outcome)).toBe('ok 200');
    expect(client.events.map((e) => e.state)).toEqual(['open', 'half-open', 'closed']);
    // And the next calls go at once.
    for (let i = 0; i < 3; i++) {
      expect(describe13(await getWithin(client, `/down?after=${i}`, 2000))).toBe('ok 200');
    }
  });

  it('a call with deadlineMs: 1000 and retries: Infinity still settles by its deadline', async () => {
    let stepped = false;
    const server = track(
      await startServer((_arrival, res) => {
        // The clock steps while the first attempt is in flight.
        if (!stepped) {
          stepped = true;
          stepClock(step);
        }
        res.writeHead(503).end();
      }),
    );
    const client = clientFor(server.url, { circuitBreaker: false, pacing: false });
    const outcome = await getWithin(client, '/always-503', 4000, {
      retry: { deadlineMs: 1000, retries: Infinity },
    });
    expect(stepped).toBe(true);
    // Neither cut short (a step forward would end it at once) nor stretched (a step back would
    // make it last an hour): about 1 s, or a little less when its last attempt, drawn over the
    // time left, fails early.
    expect(describe13(outcome)).toMatch(/ 503 deadline$|^ECONNABORTED +deadline$/);
    expect(outcome.elapsed).toBeGreaterThan(300);
    expect(outcome.elapsed).toBeLessThan(1600);
    expect(server.arrivals.length).toBeGreaterThan(2);
    expect(server.arrivals.length).toBeLessThan(30);
  });

  it('a call with deadlineMs: 3000 whose first attempt fails retries within its deadline and succeeds', async () => {
    let count = 0;
    const server = track(
      await startServer((_arrival, res) => {
        count += 1;
        if (count === 1) {
          stepClock(step);
          res.writeHead(503).end();
        } else res.end('ok');
      }),
    );
    const client = clientFor(server.url);
    const outcome = await getWithin(client, '/once-503', 4000, { retry: { deadlineMs: 3000 } });
    expect(describe13(outcome)).toBe('ok 200');
    expect(outcome.response?.config.retryState?.retryCount).toBe(1);
    expect(outcome.elapsed).toBeLessThan(1000);
  });

  it('a 1 s hold lasts about 1 s', async () => {
    let count = 0;
    const server = track(
      await startServer((_arrival, res) => {
        count += 1;
        // The quota is spent with the first response, and resets in a second.
        if (count === 1) {
          res
            .writeHead(200, {
              RateLimit: 'limit=1, remaining=0, reset=1',
              'RateLimit-Policy': '1;w=1',
            })
            .end('first');
        } else res.end('ok');
      }),
    );
    const client = clientFor(server.url);
    expect(describe13(await getWithin(client, '/first', 2000))).toBe('ok 200');
    // The route is held (its own: a throttle holds the route it came from); the clock steps.
    stepClock(step);
    const outcome = await getWithin(client, '/first?held', 4000);
    expect(describe13(outcome)).toBe('ok 200');
    expect(outcome.elapsed).toBeGreaterThan(700);
    expect(outcome.elapsed).toBeLessThan(2000);
    expect(outcome.response?.config.retryState?.waitedMs).toBeGreaterThan(700);
    expect(outcome.response?.config.retryState?.waitedMs).toBeLessThan(2000);
  });

  it('retryState.startedAt does not move with the wall clock (it is the monotonic clock)', async () => {
    let count = 0;
    const server = track(
      await startServer((_arrival, res) => {
        count += 1;
        if (count === 1) {
          stepClock(step);
          res.writeHead(503).end();
        } else res.end('ok');
      }),
    );
    const client = clientFor(server.url, { random: () => 0 });
    const before = await getWithin(client, '/before', 2000);
    const after = await getWithin(client, '/after', 2000);
    const first = before.response?.config.retryState?.startedAt ?? NaN;
    const second = after.response?.config.retryState?.startedAt ?? NaN;
    // The two calls started a few milliseconds apart, whatever the wall clock did between.
    expect(second - first).toBeGreaterThanOrEqual(0);
    expect(second - first).toBeLessThan(1000);
  });
});
