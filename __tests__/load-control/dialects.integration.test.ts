import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  clientFor,
  describe13,
  getWithin,
  runJob,
  track,
  useLoopbackCleanup,
} from '../helpers/loopback-client';
import { startServer } from '../helpers/loopback-server';

// Issue 21, item 6: the rate-limit headers of the APIs axios backends call most, each sent by a
// real server on 127.0.0.1 that enforces the quota it announces. A quota spent in that dialect
// holds the sends until its reset: 0 × 429, every call served, none sent before the reset.

useLoopbackCleanup();

/** What a fixed-window quota says of one request: what is left after it, and when it resets. */
interface Quota {
  readonly limit: number;
  readonly remaining: number;
  /** Milliseconds until the window ends. */
  readonly resetMs: number;
  /** The window's end, epoch milliseconds. */
  readonly resetAt: number;
}

/** A Go duration, as OpenAI writes one: `20ms`, `5.875s`, `1m0.5s` (rounded up to the ms). */
function goDuration(ms: number): string {
  const whole = Math.ceil(ms);
  if (whole < 1000) return `${whole}ms`;
  const minutes = Math.floor(whole / 60_000);
  return `${minutes ? `${minutes}m` : ''}${(whole % 60_000) / 1000}s`;
}

const seconds = (ms: number) => (Math.ceil(ms) / 1000).toFixed(3);

/** Each dialect's headers for a quota of requests (a quota of tokens with plenty left, if any). */
const DIALECTS: Record<string, (q: Quota) => http.OutgoingHttpHeaders> = {
  'OpenAI, requests': (q) => ({
    'x-ratelimit-limit-requests': String(q.limit),
    'x-ratelimit-remaining-requests': String(q.remaining),
    'x-ratelimit-reset-requests': goDuration(q.resetMs),
    'x-ratelimit-limit-tokens': '200000',
    'x-ratelimit-remaining-tokens': '199000',
    'x-ratelimit-reset-tokens': '300ms',
  }),
  // Requests to spare; each request costs 1 000 tokens of a window's `limit` thousand.
  'OpenAI, tokens': (q) => ({
    'x-ratelimit-limit-requests': '10000',
    'x-ratelimit-remaining-requests': '9990',
    'x-ratelimit-reset-requests': '8.64s',
    'x-ratelimit-limit-tokens': String(q.limit * 1000),
    'x-ratelimit-remaining-tokens': String(q.remaining * 1000),
    'x-ratelimit-reset-tokens': goDuration(q.resetMs),
  }),
  'Anthropic, requests': (q) => ({
    'anthropic-ratelimit-requests-limit': String(q.limit),
    'anthropic-ratelimit-requests-remaining': String(q.remaining),
    'anthropic-ratelimit-requests-reset': new Date(q.resetAt).toISOString(),
    'anthropic-ratelimit-tokens-limit': '80000',
    'anthropic-ratelimit-tokens-remaining': '79000',
    'anthropic-ratelimit-tokens-reset': new Date(Date.now() + 1000).toISOString(),
  }),
  'Anthropic, tokens': (q) => ({
    'anthropic-ratelimit-requests-limit': '4000',
    'anthropic-ratelimit-requests-remaining': '3990',
    'anthropic-ratelimit-requests-reset': new Date(Date.now() + 15).toISOString(),
    'anthropic-ratelimit-tokens-limit': String(q.limit * 1000),
    'anthropic-ratelimit-tokens-remaining': String(q.remaining * 1000),
    'anthropic-ratelimit-tokens-reset': new Date(q.resetAt).toISOString(),
  }),
  Discord: (q) => ({
    'x-ratelimit-limit': String(q.limit),
    'x-ratelimit-remaining': String(q.remaining),
    'x-ratelimit-reset': (q.resetAt / 1000).toFixed(3),
    'x-ratelimit-reset-after': seconds(q.resetMs),
    'x-ratelimit-bucket': '41f9cd5d28af77da04563bcb1d67fdfd',
  }),
};

/**
 * A fixed-window quota of `limit` requests per `windowMs` (windows counted from the first
 * request), announced in `dialect` on every answer; a request over it is answered 429.
 */
async function startQuota(
  dialect: (q: Quota) => http.OutgoingHttpHeaders,
  limit: number,
  windowMs: number,
) {
  let first: number | undefined;
  const served = new Map<number, number>();
  const answers: Array<{ at: number; status: number; resetAt: number; remaining: number }> = [];
  const server = track(
    await startServer((arrival, res) => {
      first ??= arrival.at;
      const window = Math.floor((arrival.at - first) / windowMs);
      const resetAt = first + (window + 1) * windowMs;
      const used = served.get(window) ?? 0;
      const ok = used < limit;
      if (ok) served.set(window, used + 1);
      const remaining = Math.max(0, limit - used - 1);
      const headers = dialect({ limit, remaining, resetMs: resetAt - Date.now(), resetAt });
      answers.push({ at: arrival.at, status: ok ? 200 : 429, resetAt, remaining });
      if (ok) res.writeHead(200, headers).end('ok');
      else {
        const wait = String(Math.ceil((resetAt - Date.now()) / 1000));
        res.writeHead(429, { ...headers, 'Retry-After': wait }).end();
      }
    }),
  );
  return { server, answers };
}

describe('a quota spent in each dialect holds the sends until its reset, with 0 × 429', () => {
  it('OpenAI (requests, tokens), Anthropic (requests, tokens), Discord: 12 calls against 8 per 6 s windows', async () => {
    // A window long enough that a reset of whole seconds would be held to, not paced through.
    const limit = 8;
    const windowMs = 6000;
    const outcomes = await Promise.all(
      Object.entries(DIALECTS).map(async ([name, dialect]) => {
        const { server, answers } = await startQuota(dialect, limit, windowMs);
        const client = clientFor(server.url);
        // A quota of tokens says nothing of how many requests are on their way: one at a time.
        const concurrency = name.endsWith('tokens') ? 1 : 2;
        const started = performance.now();
        const results = await runJob(12, concurrency, () =>
          getWithin(client, '/v1/messages', 20_000),
        );
        const spent = answers.find((a) => a.remaining === 0);
        const afterSpent = answers.filter((a) => spent && a.at > spent.at);
        return {
          name,
          failed: results.map(describe13).filter((d) => d !== 'ok 200'),
          rejected: answers.filter((a) => a.status === 429).length,
          served: answers.length,
          // Every send after the spending one waited for the window's end.
          sentBeforeReset: afterSpent.filter((a) => spent && a.at < spent.resetAt).length,
          // Held to the reset, not much longer.
          heldNoLonger: performance.now() - started < windowMs + 3000,
        };
      }),
    );
    for (const outcome of outcomes) {
      expect(outcome).toEqual({
        name: outcome.name,
        failed: [],
        rejected: 0,
        served: 12,
        sentBeforeReset: 0,
        heldNoLonger: true,
      });
    }
  }, 40_000);

  it('Shopify: a leaky bucket of 40 draining 2 a second, X-Shopify-Shop-Api-Call-Limit: 44 calls, 4 at a time', async () => {
    const size = 40;
    const perSecond = 2;
    let level = 0;
    let last = performance.now();
    const answers: Array<{ at: number; status: number; used: number }> = [];
    const server = track(
      await startServer((_arrival, res) => {
        const now = performance.now();
        level = Math.max(0, level - ((now - last) * perSecond) / 1000);
        last = now;
        const ok = level + 1 <= size;
        if (ok) level += 1;
        const used = Math.ceil(level);
        answers.push({ at: now, status: ok ? 200 : 429, used });
        const headers = { 'X-Shopify-Shop-Api-Call-Limit': `${used}/${size}` };
        if (ok) res.writeHead(200, headers).end('ok');
        else res.writeHead(429, { ...headers, 'Retry-After': '2.0' }).end();
      }),
    );
    const client = clientFor(server.url);
    const results = await runJob(44, 4, () =>
      getWithin(client, '/admin/api/2024-01/orders.json', 40_000),
    );
    expect({
      failed: results.map(describe13).filter((d) => d !== 'ok 200'),
      rejected: answers.filter((a) => a.status === 429).length,
    }).toEqual({ failed: [], rejected: 0 });
    // Held once the bucket was nearly full (what was left no more than the calls in flight),
    // until it had drained: at least as long as the first answer that said so asked.
    const held = answers.findIndex((a, i) => i > 0 && a.at - (answers[i - 1]?.at ?? 0) > 5000);
    expect(held).toBeGreaterThan(0);
    const firstFull = answers.find((a) => size - a.used <= 4) as { at: number; used: number };
    const resumed = (answers[held] as { at: number }).at;
    expect(resumed - firstFull.at).toBeGreaterThanOrEqual(
      (firstFull.used / perSecond) * 1000 - 200,
    );
    expect(resumed - firstFull.at).toBeLessThan((size / perSecond) * 1000 + 3000);
    // Then paced at what the bucket drains: it never filled again.
    expect(Math.max(...answers.slice(held).map((a) => a.used))).toBeLessThan(size);
  }, 60_000);
});
