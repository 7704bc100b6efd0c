// A burst against a fixed-window rate limiter on 127.0.0.1 (as express-rate-limit does it: N per
// window, then 429 with `Retry-After` in whole seconds up to the window's end), with real time:
// the waits are compared with what the server asked, and the burst with axios-retry's.
import axios, { type AxiosError, type AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import { attachRetry, DEFAULT_OPTIONS } from '../../src';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';

const CALLS = 50;
const PER_WINDOW = 20;
const WINDOW_MS = 1000;

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** Each rejection: which call, its place among the arrivals, when the 429 was sent, the wait asked. */
interface Rejection {
  readonly call: string;
  readonly index: number;
  readonly at: number;
  readonly askedMs: number;
}

async function fixedWindowLimiter() {
  const rejections: Rejection[] = [];
  let windowStart = 0;
  let used = 0;
  let arrived = 0; // the handler runs once per arrival, in order
  const limiter = await startServer(({ at, headers }, res) => {
    if (used === 0 || at >= windowStart + WINDOW_MS) {
      windowStart =
        used === 0 ? at : windowStart + Math.floor((at - windowStart) / WINDOW_MS) * WINDOW_MS;
      used = 0;
    }
    arrived++;
    used++;
    if (used <= PER_WINDOW) {
      res.end('ok');
      return;
    }
    const seconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - at) / 1000));
    rejections.push({
      call: String(headers['x-call']),
      index: arrived - 1,
      at: Date.now(),
      askedMs: seconds * 1000,
    });
    res.writeHead(429, { 'Retry-After': String(seconds) }).end();
  });
  return { limiter, rejections };
}

async function burst(client: AxiosInstance) {
  const { limiter, rejections } = await fixedWindowLimiter();
  server = limiter;
  const started = Date.now();
  const results = await Promise.allSettled(
    Array.from({ length: CALLS }, (_, i) =>
      client.get(`${limiter.url}/items`, { headers: { 'X-Call': String(i) } }),
    ),
  );
  const ms = Date.now() - started;
  // The wait each retry actually got, on the server's clock: its arrival minus the 429 before it.
  const waits = rejections.map((rejection) => {
    const next = limiter.arrivals.find(
      (a, index) => index > rejection.index && a.headers['x-call'] === rejection.call,
    );
    return { asked: rejection.askedMs, waited: next ? next.at - rejection.at : Number.NaN };
  });
  const ok = results.filter((r) => r.status === 'fulfilled').length;
  await limiter.stop();
  server = undefined;
  return { ms, requests: limiter.arrivals.length, ok, waits };
}

it('waits what a fixed-window limiter asks plus a bounded spread, and does no worse than axios-retry', async () => {
  const peer = axios.create();
  axiosRetry(peer, { retries: 10 });
  const theirs = await burst(peer);

  // Retries alone (pacing off, so that every call meets the limiter on its own): the spread.
  const retriesOnly = axios.create();
  const spreads: number[] = [];
  attachRetry(retriesOnly, {
    retries: 10,
    pacing: false,
    onRetry: ({ delayMs, error }) => {
      spreads.push(delayMs - Number((error as AxiosError).response?.headers['retry-after']) * 1000);
    },
  });
  const alone = await burst(retriesOnly);
  expect(alone.ok).toBe(CALLS);
  // 50 calls at 20 per window: 30 rejected in the first window, 10 in the second.
  expect(spreads.length).toBe(CALLS - PER_WINDOW + (CALLS - 2 * PER_WINDOW));
  // The spread on top of the asked wait is drawn below the first retry's ceiling on every retry:
  // the second retries (10 of them) would draw up to 200 ms with the ceiling of retry 2.
  for (const spread of spreads) {
    expect(spread).toBeGreaterThanOrEqual(0);
    expect(spread).toBeLessThan(DEFAULT_OPTIONS.baseDelayMs);
  }
  // On the server's clock: never earlier than asked (a few ms of timer rounding aside).
  for (const { asked, waited } of alone.waits) expect(waited).toBeGreaterThanOrEqual(asked - 5);

  // The defaults (pacing on) against axios-retry.
  const ours = axios.create();
  attachRetry(ours, { retries: 10 });
  const mine = await burst(ours);
  console.log(
    `burst of ${CALLS} at ${PER_WINDOW}/s: axios-safe-retry ${mine.ms} ms, ${mine.requests} requests` +
      ` (retries alone: ${alone.ms} ms, ${alone.requests}); axios-retry ${theirs.ms} ms, ${theirs.requests} requests`,
  );
  expect([mine.ok, theirs.ok]).toEqual([CALLS, CALLS]);
  for (const { asked, waited } of mine.waits) expect(waited).toBeGreaterThanOrEqual(asked - 5);

  // Retries alone: as many requests as axios-retry, and as fast: axios-retry waits exactly the
  // Retry-After; ours adds at most baseDelayMs per round of retries (two rounds here), plus timer
  // and scheduling noise (400 ms: the two runs are sequential, on a 2-core box shared with CI's
  // other work, where one was seen 450 ms slower than the other at the same code).
  expect(alone.requests).toBeLessThanOrEqual(theirs.requests);
  const rounds = 2;
  expect(alone.ms).toBeLessThanOrEqual(theirs.ms + rounds * DEFAULT_OPTIONS.baseDelayMs + 400);
  // The defaults: fewer requests (pacing holds the origin after the first 429 instead of letting
  // every call meet the limiter); the released calls are spread over the window at the rate
  // learned rather than sent in a burst at its start, which costs at most one window.
  expect(mine.requests).toBeLessThan(theirs.requests);
  expect(mine.ms).toBeLessThanOrEqual(theirs.ms + WINDOW_MS + 100);
}, 30_000);
