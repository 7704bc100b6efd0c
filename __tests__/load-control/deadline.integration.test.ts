import {
  clientFor,
  delay,
  describe13,
  getWithin,
  type Outcome,
  track,
  useLoopbackCleanup,
} from '../helpers/loopback-client';
import { startServer } from '../helpers/loopback-server';

// Issue 13, items 11 and 14, against real servers on 127.0.0.1.

useLoopbackCleanup();

it('item 14: calls with deadlineMs 8000 and the default retries, made while the server is down for ~1 s, all succeed', async () => {
  const server = track(await startServer((_arrival, res) => res.end('ok')));
  const client = clientFor(server.url, { deadlineMs: 8000 });
  // A call every 10 ms for 1.5 s; the server refuses connections from 0.2 s to 1.2 s.
  const outage = delay(200)
    .then(() => server.stop())
    .then(() => delay(1000))
    .then(() => server.restart());
  const calls: Array<Promise<Outcome>> = [];
  const started = performance.now();
  while (performance.now() - started < 1500) {
    calls.push(getWithin(client, `/items/${calls.length}`, 10_000));
    await delay(10);
  }
  const results = await Promise.all(calls);
  await outage;
  expect(results.filter((r) => !r.response).map(describe13)).toEqual([]);
  // The outage was seen (calls met refused connections: with a deadline, those use up no
  // retries), and every call was served once.
  const refused = results.map((r) => r.response?.config.retryState?.refusedCount ?? 0);
  expect(Math.max(...refused)).toBeGreaterThan(0);
  expect(server.arrivals).toHaveLength(calls.length);
}, 15_000);

/** A quota of one a second, spent, its period said (a reset alone is a bucket's as well). */
const QUOTA_SPENT = { RateLimit: 'limit=1, remaining=0, reset=1', 'RateLimit-Policy': '1;w=1' };

it('item 11: a held call whose slot leaves less than the origin takes to answer is not sent; one with time to spare is', async () => {
  let count = 0;
  const server = track(
    await startServer((_arrival, res) => {
      count += 1;
      // Every answer takes about 150 ms; the first says its quota of a second resets in a second.
      const headers = count === 1 ? QUOTA_SPENT : {};
      setTimeout(() => res.writeHead(200, headers).end('ok'), 150);
    }),
  );
  const client = clientFor(server.url);
  expect(describe13(await getWithin(client, '/first', 2000))).toBe('ok 200');
  const sent = server.arrivals.length;

  // The route is held (a throttle holds its own route). The slot comes at ~1000 ms; a deadline of 1080 ms leaves ~80 ms, less than the 150 ms the
  // origin takes (and the POST would be performed with no time to learn its outcome).
  const late = await getWithin(client, '/first?late', 2000, { retry: { deadlineMs: 1080 } });
  expect(describe13(late)).toBe('ERR_RATE_LIMITED  deadline');
  expect(late.elapsed).toBeLessThan(500);
  await delay(1200);
  expect(server.arrivals).toHaveLength(sent);
}, 10_000);

it('item 11 (control): the same hold with a deadline of 2000 ms is waited, sent and succeeds', async () => {
  let count = 0;
  const server = track(
    await startServer((_arrival, res) => {
      count += 1;
      const headers = count === 1 ? QUOTA_SPENT : {};
      setTimeout(() => res.writeHead(200, headers).end('ok'), 150);
    }),
  );
  const client = clientFor(server.url);
  await getWithin(client, '/first', 2000);
  const onTime = await getWithin(client, '/first?on-time', 3000, { retry: { deadlineMs: 2000 } });
  expect(describe13(onTime)).toBe('ok 200');
  expect(onTime.response?.config.retryState?.waitedMs).toBeGreaterThan(700);
  expect(server.arrivals).toHaveLength(2);
}, 10_000);
