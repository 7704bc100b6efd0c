import http from 'node:http';
import type { Readable } from 'node:stream';
import axios from 'axios';
import type { RetryOptions } from '../../src';
import { attachRetry } from '../../src';
import { failureOf } from '../helpers/failure';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';

// Faults that real servers produce part-way through a response, on real sockets on 127.0.0.1.

// A safety net for a loaded machine, not a wait: each test takes well under a second or two.
jest.setTimeout(30_000);

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function clientFor(url: string, options: RetryOptions = {}, config: object = {}) {
  const client = axios.create({ baseURL: url, ...config });
  attachRetry(client, { baseDelayMs: 20, maxDelayMs: 200, ...options });
  return client;
}

// Adapters named by string ('http' since axios 1.2, 'fetch' since 1.7), and an http timeout that
// still runs while the body comes in, are newer axios's: on older ones (the axios matrix runs
// 1.1.0) the cases that need them are left out.
const supported = (['http', 'fetch'] as const).filter((name) => {
  try {
    return typeof axios.getAdapter?.(name) === 'function';
  } catch {
    return false;
  }
});
const eachAdapter = supported.length > 0 ? it.each(supported) : it.skip.each(['http']);
const newAxios = supported.length > 0 ? it : it.skip;

/** Sends the head and one byte, then a byte every `everyMs` until `bytes` are sent. */
function drip(res: http.ServerResponse, bytes: number, everyMs: number): void {
  res.writeHead(200, { 'Content-Length': String(bytes) });
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed || ++sent > bytes) return clearInterval(timer);
    res.write('x');
    if (sent === bytes) res.end();
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

describe('the deadline bounds a body that drips in', () => {
  eachAdapter('%s adapter: settles at the deadline with stopReason deadline', async (adapter) => {
    server = await startServer((_arrival, res) => drip(res, 100, 50)); // 5 s of body
    const started = Date.now();
    const error = await failureOf(
      clientFor(server.url, { deadlineMs: 600 }, { adapter }).get('/drip'),
    );
    const elapsed = Date.now() - started;
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(axios.isCancel(error)).toBe(false);
    expect(error.code).toBe('ECONNABORTED');
    expect(elapsed).toBeGreaterThanOrEqual(590);
    expect(elapsed).toBeLessThan(2500);
  });

  it('a body that stalls is cut at the deadline, with stopReason deadline', async () => {
    server = await startServer((_arrival, res) => {
      res.writeHead(200, { 'Content-Length': '10' });
      res.write('x'); // and nothing more
    });
    const started = Date.now();
    const error = await failureOf(clientFor(server.url, { deadlineMs: 400 }).get('/stall'));
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  newAxios(
    "a body that stalls past the caller's shorter timeout is retried, then stops at the deadline",
    async () => {
      server = await startServer((_arrival, res) => {
        res.writeHead(200, { 'Content-Length': '10' });
        res.write('x');
      });
      const error = await failureOf(
        clientFor(server.url, { deadlineMs: 1000, retries: 10 }).get('/stall', { timeout: 150 }),
      );
      expect(server.arrivals.length).toBeGreaterThan(1);
      expect(error.config?.retryState?.stopReason).toBe('deadline');
    },
  );
});

describe('a connection that dies part-way through the body', () => {
  function cutAfterFewBytes() {
    return startServer((_arrival, res, req) => {
      if (server!.arrivals.length < 3) {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('abc');
        setTimeout(() => req.socket.destroy(), 20);
      } else res.end('whole');
    });
  }

  eachAdapter('%s adapter: a GET is retried, as after a reset', async (adapter) => {
    server = await cutAfterFewBytes();
    const response = await clientFor(server.url, {}, { adapter }).get('/items');
    expect(response.data).toBe('whole');
    expect(response.config.retryState?.retryCount).toBe(2);
  });

  eachAdapter(
    '%s adapter: a POST without a key is not: the server may have acted on it',
    async (adapter) => {
      server = await cutAfterFewBytes();
      const error = await failureOf(clientFor(server.url, {}, { adapter }).post('/charges', {}));
      expect(error.config?.retryState?.stopReason).toBe('not-retryable');
      expect(error.config?.retryState?.maybePerformed).toBe(true);
      expect(server.arrivals).toHaveLength(1);
    },
  );

  // fetch keeps the system's code on the error's cause ('fetch failed' → ECONNREFUSED): a refused
  // connection must still read as never sent, or a POST would not be retried under fetch.
  eachAdapter(
    '%s adapter: a POST to a port that refuses connections is retried: it was never sent',
    async (adapter) => {
      const closed = await startServer(() => undefined);
      await closed.stop();
      const client = clientFor(closed.url, { retries: 2 }, { adapter });
      const error = await failureOf(client.post('/charges', {}));
      expect(error.config?.retryState).toMatchObject({
        stopReason: 'retries-exhausted',
        retryCount: 2,
      });
      expect(error.config?.retryState?.maybePerformed).toBeUndefined();
    },
  );
});

describe('a kept-alive socket that the server closed while it was idle', () => {
  // Issue 21, found with a scratch app: a server (or a middlebox) that drops idle keep-alive
  // sockets resets the next request sent on each. Counted as the origin's failures, ten such
  // resets after an idle second opened its breaker, and every burst waited for a probe.
  it('resets of reused sockets do not open the breaker: every call is retried on a new one', async () => {
    // The sockets of the warm-up go stale: each is reset at its next request.
    const stale = new WeakSet<object>();
    server = await startServer((arrival, res, req) => {
      if (stale.delete(req.socket)) return void req.socket.destroy();
      if (arrival.url === '/warm') stale.add(req.socket);
      res.end('ok');
    });
    const agent = new http.Agent({ keepAlive: true });
    // Twelve sockets opened and left idle, by a client without retries.
    const plain = axios.create({ baseURL: server.url, httpAgent: agent });
    await Promise.all(Array.from({ length: 12 }, () => plain.get('/warm')));
    const changes: string[] = [];
    const client = clientFor(
      server.url,
      { circuitBreaker: { onStateChange: (change) => changes.push(change.state) } },
      { httpAgent: agent },
    );
    const responses = await Promise.all(Array.from({ length: 12 }, () => client.get('/items')));
    agent.destroy();
    expect(responses.map((r) => r.data)).toEqual(Array(12).fill('ok'));
    // Calls met the resets (retried on new sockets), and no breaker changed state.
    expect(responses.filter((r) => r.config.retryState?.retryCount).length).toBeGreaterThan(0);
    expect(changes).toEqual([]);
  });
});

describe('a retried responseType: stream call', () => {
  it("releases the failed attempt's response, so a one-socket keep-alive agent is not held", async () => {
    server = await startServer((_arrival, res) => {
      if (server!.arrivals.length === 1) res.writeHead(503).end('x'.repeat(64 * 1024));
      else res.end('ok');
    });
    const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const client = clientFor(server.url, { deadlineMs: 3000 }, { httpAgent });
      const response = await client.get<Readable>('/stream', { responseType: 'stream' });
      const chunks: Buffer[] = [];
      for await (const chunk of response.data) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('ok');
      expect(server.arrivals).toHaveLength(2);
    } finally {
      httpAgent.destroy();
    }
  });
});
