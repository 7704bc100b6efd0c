import http from 'node:http';
import axios, { AxiosError } from 'axios';
import { attachRetry, type RetryOptions, type StopReason } from '../../src';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';

// Hostile servers on real sockets: every call settles within its bound, with the outcome it
// should have, and leaves no timer behind.

// A safety net for a loaded machine, not a wait: each test takes well under a second or two.
jest.setTimeout(30_000);

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

type Respond = (res: http.ServerResponse, req: http.IncomingMessage, arrival: number) => void;

/** Answers a 503 with these headers first, then 200 'ok'. */
const once503 =
  (headers: http.OutgoingHttpHeaders): Respond =>
  (res, _req, arrival) => {
    if (arrival === 1) res.writeHead(503, headers).end();
    else res.end('ok');
  };

const drip: Respond = (res) => {
  res.writeHead(200, { 'Content-Length': '1000' });
  const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('x')), 40);
};

// The timers the package sets (they all go through src/runtime/long-timer.ts) that are still pending.
const ours = new Set<unknown>();
const realSetTimeout = global.setTimeout;
const realClearTimeout = global.clearTimeout;
beforeAll(() => {
  global.setTimeout = ((callback: () => void, ms?: number) => {
    if (!new Error().stack?.includes('long-timer')) return realSetTimeout(callback, ms);
    const timer = realSetTimeout(() => {
      ours.delete(timer);
      callback();
    }, ms);
    ours.add(timer);
    return timer;
  }) as typeof setTimeout;
  global.clearTimeout = ((timer: ReturnType<typeof setTimeout>) => {
    ours.delete(timer);
    realClearTimeout(timer);
  }) as typeof clearTimeout;
});
afterAll(() => {
  global.setTimeout = realSetTimeout;
  global.clearTimeout = realClearTimeout;
});

const CASES: [string, Respond, RetryOptions, 'ok' | StopReason, number][] = [
  ['garbage Retry-After', once503({ 'Retry-After': 'soon, please' }), {}, 'ok', 2000],
  ['negative Retry-After', once503({ 'Retry-After': '-5' }), {}, 'ok', 2000],
  // Read as the half second it asks (Shopify's and Discord's form).
  ['fractional Retry-After', once503({ 'Retry-After': '0.5' }), {}, 'ok', 2000],
  // Node keeps the first of duplicated Retry-After headers: the wait is 1 s, never less.
  ['duplicated Retry-After', once503({ 'Retry-After': ['1', '2'] }), {}, 'ok', 3000],
  [
    'huge Retry-After',
    once503({ 'Retry-After': '99999999999999999999' }),
    {},
    'retry-after-too-long', // more than a day: never retried sooner, the call stops
    2000,
  ],
  [
    'huge Retry-After, no cap, deadline',
    once503({ 'Retry-After': '99999999999999999999' }),
    { maxRetryAfterMs: Infinity, deadlineMs: 500 },
    'retry-after-too-long', // more than a day: never retried sooner, the call stops
    2000,
  ],
  ['a date in 1900', once503({ 'Retry-After': 'Mon, 01 Jan 1900 00:00:00 GMT' }), {}, 'ok', 2000],
  [
    'a date in 2999',
    once503({ 'Retry-After': 'Tue, 01 Jan 2999 00:00:00 GMT' }),
    {},
    'retry-after-too-long', // more than a day: never retried sooner, the call stops
    2000,
  ],
  [
    'a date in 2999, no cap, deadline',
    once503({ 'Retry-After': 'Tue, 01 Jan 2999 00:00:00 GMT' }),
    { maxRetryAfterMs: Infinity, deadlineMs: 500 },
    'retry-after-too-long', // more than a day: never retried sooner, the call stops
    2000,
  ],
  [
    'a stalled body',
    (res) => res.writeHead(200, { 'Content-Length': '10' }).write('x'),
    { deadlineMs: 400 },
    'deadline',
    2000,
  ],
  ['a dripping body', drip, { deadlineMs: 400 }, 'deadline', 2000],
  [
    'a reset storm',
    (_res, req) => req.socket.destroy(),
    { retries: Infinity, deadlineMs: 400 },
    'deadline',
    2000,
  ],
  [
    'a 503 storm asking for no wait',
    (res) => res.writeHead(503, { 'Retry-After': '0' }).end(),
    { retries: 5 },
    'retries-exhausted',
    2000,
  ],
];

it.each(CASES)(
  '%s: settles within its bound, leaves no timer',
  async (_name, respond, options, expected, boundMs) => {
    let arrivals = 0;
    server = await startServer((_arrival, res, req) => respond(res, req, ++arrivals));
    // No keep-alive: an idle pooled socket holds a timer of its own.
    const client = axios.create({
      baseURL: server.url,
      httpAgent: new http.Agent({ keepAlive: false }),
    });
    attachRetry(client, { baseDelayMs: 10, maxDelayMs: 50, deadlineMs: 60_000, ...options });
    const started = Date.now();
    const outcome = await client.get('/hostile').then(
      (response) => ({ response, error: undefined }),
      (error: unknown) => ({ response: undefined, error }),
    );
    expect(Date.now() - started).toBeLessThan(boundMs);
    if (expected === 'ok') expect(outcome.response?.data).toBe('ok');
    else {
      expect(outcome.error).toBeInstanceOf(AxiosError);
      expect((outcome.error as AxiosError).config?.retryState?.stopReason).toBe(expected);
    }
    expect(ours.size).toBe(0);
  },
);
