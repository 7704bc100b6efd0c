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

const seconds = (ms: number) => (Math.ceil(ms) / 1000).toFixed(3);

/** Each dialect's headers for a quota of requests (a quota of tokens with plenty left, if any). */
const DIALECTS: Record<string, (q: Quota) => http.OutgoingHttpHeaders> = {
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
  it('Discord: 12 calls against 8 per 6 s windows', async () => {
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
});
