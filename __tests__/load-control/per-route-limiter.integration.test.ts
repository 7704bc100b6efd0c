import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import {
  clientFor,
  describe13,
  getWithin,
  runJob,
  useLoopbackCleanup,
} from '../helpers/loopback-client';

// Issue 21, item 1: express-rate-limit 8 on /limited only (draft-7 headers, 1 call per 10 s).
// Its RateLimit-Policy describes the quota of the response that carries it, not the origin's:
// after its 429, a healthy /fast route of the same origin is not held. (Measured on f8c931c:
// 0 of 50 /fast calls succeeded, ERR_RATE_LIMITED in 16 ms; with load control off, 50 of 50.)

useLoopbackCleanup();

async function listen(app: express.Express): Promise<{ url: string; server: http.Server }> {
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function run(loadControl: boolean) {
  const app = express();
  app.use(
    '/limited',
    rateLimit({ windowMs: 10_000, limit: 1, standardHeaders: 'draft-7', legacyHeaders: false }),
  );
  app.get('/limited', (_req, res) => void res.send('ok'));
  app.get('/fast', (_req, res) => void res.send('ok'));
  const { url, server } = await listen(app);
  try {
    const client = clientFor(url, loadControl ? {} : { circuitBreaker: false, pacing: false });
    const first = await getWithin(client, '/limited', 3000);
    // The first spent the quota (remaining 0): with load control on, the second is held for the
    // reset (and given up here after 300 ms); with it off, it is sent and refused (429 with
    // RateLimit-Policy, RateLimit and Retry-After: 10).
    const second = await getWithin(client, '/limited', 300, { retry: { retries: 0 } });
    const started = performance.now();
    const fast = await runJob(50, 10, () => getWithin(client, '/fast', 5000));
    const elapsed = performance.now() - started;
    const limitedSeen = first.response?.headers['ratelimit-policy'];
    return {
      first: describe13(first),
      second: describe13(second),
      limitedSeen,
      ok: fast.filter((r) => r.response).length,
      failed: fast.filter((r) => !r.response).map(describe13),
      // How many /fast calls load control made wait before they were sent.
      waited: fast.filter((r) => r.response?.config.retryState?.waitedMs !== undefined).length,
      elapsed,
    };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

it("after a 429 of a limiter on /limited only, 50 calls to /fast: 50 of 50, within 1.5× load control off's time", async () => {
  const off = await run(false);
  const on = await run(true);
  expect(off).toMatchObject({ ok: 50, second: 'ERR_BAD_REQUEST 429 retries-exhausted' });
  expect(on.limitedSeen).toBe('1;w=10');
  expect(on.second).toMatch(/^still pending/);
  expect(on).toMatchObject({ first: 'ok 200', ok: 50, failed: [], waited: 0 });
  // 1.5× off's time, plus a second for a loaded machine: CI runs this file beside others on
  // 2 cores (250 ms of slack failed there once). The measured failure was 188×; `waited: 0`
  // above is the exact form of the claim.
  expect({ on: on.elapsed, within: on.elapsed <= 1.5 * off.elapsed + 1000 }).toEqual({
    on: on.elapsed,
    within: true,
  });
}, 20_000);
