import axios from 'axios';
import type { RetryOptions } from '../../src';
import { attachRetry } from '../../src';
import { failureOf } from '../helpers/failure';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';

// Real sockets on 127.0.0.1 with real faults. Delays are kept short with a small baseDelayMs;
// waits the server asks for (Retry-After) are real and measured on the server's side.

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function clientFor(url: string, options: RetryOptions = {}) {
  const client = axios.create({ baseURL: url });
  attachRetry(client, { baseDelayMs: 20, maxDelayMs: 200, ...options });
  return client;
}

it('retries a GET whose connection is reset mid-request', async () => {
  server = await startServer(({ url }, res, req) => {
    if (server!.arrivals.length < 3) req.socket.destroy();
    else res.end(`ok ${url}`);
  });
  const response = await clientFor(server.url).get('/items');
  expect(response.data).toBe('ok /items');
  expect(response.config.retryState?.retryCount).toBe(2);
  expect(server.arrivals).toHaveLength(3);
});

it('retries through refused connections until the server is back, for a POST too', async () => {
  server = await startServer((_arrival, res) => res.end('back'));
  await server.stop();
  const reopened = new Promise((resolve) => setTimeout(resolve, 150)).then(() => server!.restart());
  const client = clientFor(server.url, { retries: 20, deadlineMs: 5000 });
  const [get, post] = await Promise.all([
    client.get('/items'),
    client.post('/charges', { amount: 1 }),
  ]);
  await reopened;
  expect([get.data, post.data]).toEqual(['back', 'back']);
  expect(post.config.retryState?.retryCount).toBeGreaterThan(0);
  expect(server.arrivals.filter((a) => a.method === 'POST')).toHaveLength(1);
});

it('stops a hanging server at the deadline, with stopReason deadline', async () => {
  server = await startServer(() => {
    /* never answers */
  });
  const started = Date.now();
  const error = await failureOf(clientFor(server.url, { deadlineMs: 300 }).get('/slow'));
  const elapsed = Date.now() - started;
  expect(error.code).toBe('ECONNABORTED');
  expect(error.config?.retryState?.stopReason).toBe('deadline');
  expect(elapsed).toBeGreaterThanOrEqual(290);
  expect(elapsed).toBeLessThan(1000);
});

it('waits as long as a 429 Retry-After (delay-seconds) asks, and no less', async () => {
  server = await startServer((_arrival, res) => {
    if (server!.arrivals.length === 1) {
      res.writeHead(429, { 'Retry-After': '1' }).end();
    } else res.end('ok');
  });
  const response = await clientFor(server.url, { random: () => 0 }).get('/limited');
  expect(response.data).toBe('ok');
  const [first, second] = server.arrivals;
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000);
});

it("waits for a 503 Retry-After HTTP-date, measured against the server's Date header", async () => {
  server = await startServer((_arrival, res) => {
    if (server!.arrivals.length === 1) {
      // The server's clock, to the second, as HTTP dates are; ask for the second after next.
      const now = Math.floor(Date.now() / 1000) * 1000;
      res.sendDate = false;
      res
        .writeHead(503, {
          Date: new Date(now).toUTCString(),
          'Retry-After': new Date(now + 2000).toUTCString(),
        })
        .end();
    } else res.end('ok');
  });
  const response = await clientFor(server.url, { random: () => 0 }).get('/maintenance');
  expect(response.data).toBe('ok');
  expect(response.config.retryState?.delays).toEqual([2000]);
  const [first, second] = server.arrivals;
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(2000);
});

it('keeps a header suppressed with false suppressed on every attempt', async () => {
  server = await startServer((_arrival, res) => {
    res.statusCode = server!.arrivals.length === 1 ? 503 : 200;
    res.end();
  });
  await clientFor(server.url).get('/ua', {
    headers: { 'User-Agent': false, 'Accept-Encoding': false, 'X-Kept': 'yes' },
  });
  expect(server.arrivals).toHaveLength(2);
  for (const { headers } of server.arrivals) {
    expect(headers['user-agent']).toBeUndefined();
    expect(headers['accept-encoding']).toBeUndefined();
    expect(headers['x-kept']).toBe('yes');
  }
});

it('returns the same shape from a retried call as from a first-try one, with (r) => r.data added first', async () => {
  server = await startServer(({ url }, res) => {
    const retried = url === '/retried' && server!.arrivals.length === 1;
    res.statusCode = retried ? 503 : 200;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ items: ['a'] }));
  });
  const client = axios.create({ baseURL: server.url });
  client.interceptors.response.use((response) => response.data);
  attachRetry(client, { baseDelayMs: 20 });
  const retried: unknown = await client.get('/retried');
  const firstTry: unknown = await client.get('/first-try');
  expect(server.arrivals.map((a) => a.url)).toEqual(['/retried', '/retried', '/first-try']);
  expect(retried).toEqual({ items: ['a'] });
  expect(firstTry).toEqual({ items: ['a'] });
});

describe('an ambiguous write: the server performs a POST, then drops the connection', () => {
  function paymentServer() {
    const charges = new Map<string, string>(); // idempotency key → stored response
    let effects = 0;
    const ready = startServer(({ headers }, res, req) => {
      const key = headers['idempotency-key'] as string | undefined;
      const stored = key === undefined ? undefined : charges.get(key);
      if (stored !== undefined) {
        res.end(stored); // dedup: answer from the store, no new effect
        return;
      }
      effects++;
      const result = `charge-${effects}`;
      if (key !== undefined) charges.set(key, result);
      req.socket.destroy(); // the effect happened, the response is lost
    });
    return { ready, effects: () => effects };
  }

  it('with an idempotency key, retries with the same key and the effect happens exactly once', async () => {
    const payments = paymentServer();
    server = await payments.ready;
    const response = await clientFor(server.url, { idempotencyKey: true }).post('/charges', {
      amount: 100,
    });
    expect(response.data).toBe('charge-1');
    expect(payments.effects()).toBe(1);
    expect(server.arrivals).toHaveLength(2);
    const keys = server.arrivals.map((a) => a.headers['idempotency-key']);
    expect(keys[0]).toBeDefined();
    expect(keys[1]).toBe(keys[0]);
    expect(server.arrivals.map((a) => a.body)).toEqual(['{"amount":100}', '{"amount":100}']);
  });

  it('without a key, does not retry: the error surfaces and the effect is not repeated', async () => {
    const payments = paymentServer();
    server = await payments.ready;
    const error = await failureOf(clientFor(server.url).post('/charges', { amount: 100 }));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(payments.effects()).toBe(1);
    expect(server.arrivals).toHaveLength(1);
  });
});
