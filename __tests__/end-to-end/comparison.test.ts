// The comparison with axios-retry and retry-axios (docs/benchmarks.md), checked against the real packages
// (each with its defaults) and a real loopback server: if a peer changes, this fails and the
// table must be corrected.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import axios, { type AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import * as rax from 'retry-axios';
import { attachRetry } from '../../src';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const clients: Record<string, (url: string) => AxiosInstance> = {
  'axios-safe-retry': (url) => {
    const client = axios.create({ baseURL: url });
    attachRetry(client, { baseDelayMs: 1 });
    return client;
  },
  'axios-retry': (url) => {
    const client = axios.create({ baseURL: url });
    axiosRetry(client, { retries: 3 });
    return client;
  },
  'retry-axios': (url) => {
    const client = axios.create({ baseURL: url });
    client.defaults.raxConfig = { retry: 3, retryDelay: 1 };
    rax.attach(client);
    return client;
  },
};

describe('a POST whose connection drops after the server performed it', () => {
  it.each([
    ['axios-safe-retry', 1],
    ['axios-retry', 4],
    ['retry-axios', 1],
  ])('%s performs it %i time(s)', async (name, effects) => {
    server = await startServer((_arrival, _res, req) => req.socket.destroy());
    await clients[name]!(server.url)
      .post('/charges', { amount: 100 })
      .catch(() => undefined);
    expect(server.arrivals).toHaveLength(effects);
  });
});

describe('a response interceptor added after the retry plugin, for a GET answered 503 then 200', () => {
  it.each([
    ['axios-safe-retry', 1],
    ['axios-retry', 2],
    ['retry-axios', 2],
  ])('%s runs it %i time(s)', async (name, runs) => {
    server = await startServer((_arrival, res) => {
      res.statusCode = server!.arrivals.length === 1 ? 503 : 200;
      res.end();
    });
    const client = clients[name]!(server.url);
    let seen = 0;
    client.interceptors.response.use((response) => {
      seen++;
      return response;
    });
    await client.get('/items');
    expect(seen).toBe(runs);
  });
});

describe('a GET answered 429 with Retry-After: 1, then 200', () => {
  // [plugin, the most it may add to the asked second, or undefined for no check]
  it.each<[string, number | undefined]>([
    ['axios-safe-retry', undefined],
    // axios-retry's default delay (noDelay) is the Retry-After itself, nothing added.
    ['axios-retry', 150],
    ['retry-axios', undefined],
  ])('%s waits at least the asked second before the retry', async (name, atMostAdded) => {
    server = await startServer((_arrival, res) => {
      if (server!.arrivals.length === 1) res.writeHead(429, { 'Retry-After': '1' }).end();
      else res.end('ok');
    });
    const response = await clients[name]!(server.url).get('/limited');
    expect(response.data).toBe('ok');
    const [first, second] = server!.arrivals;
    const waited = second!.at - first!.at;
    expect(waited).toBeGreaterThanOrEqual(1000);
    if (atMostAdded !== undefined) expect(waited).toBeLessThan(1000 + atMostAdded);
  });
});

it("states in docs/benchmarks.md's table what the Retry-After test above checks of axios-retry", () => {
  const readme = readFileSync(join(__dirname, '..', '..', 'docs', 'benchmarks.md'), 'utf8');
  const row = (first: string) =>
    readme
      .split('\n')
      .find((line) => line.startsWith(`| ${first} |`))
      ?.split(' | ') ?? [];
  // Columns: the row's name, axios-safe-retry, axios-retry, retry-axios.
  expect(row('`Retry-After`')[2]).toMatch(/every retry waits at least the `Retry-After`/);
  expect(row('Default delay')[2]).toMatch(/the `Retry-After` when there is one/);
});
