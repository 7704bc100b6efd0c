// docs/many-processes.md's and docs/several-services.md's examples, as written there, on a real
// redis-server (skipped without one, as the Redis suites are) and on real express services.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import MockAdapter from 'axios-mock-adapter';
import express from 'express';
import Redis from 'ioredis';
import * as library from '../../src';
import type { RedisStore } from '../../src/redis';
import * as redisEntry from '../../src/redis';
import * as serverEntry from '../../src/server';
import { type RedisServer, startRedisServer } from '../../support/redis-server';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';
import { describeRedis, until } from '../helpers/redis';
import { example, runExample } from './doc-examples';

jest.setTimeout(30_000);

describeRedis('redis-store: clients with one prefix on one Redis share a hold', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('runs as written, and the store writes the scope a 429 held under its prefix', async () => {
    process.env.REDIS_URL = server.url;
    const api = axios.create({ baseURL: 'http://api.test' });
    const mock = new MockAdapter(api);
    mock.onGet('/items').reply(429, '', { 'retry-after': '30' });
    const warnings: unknown[] = [];
    const { redis, store } = (await runExample(example('docs/many-processes.md', 'redis-store'), {
      modules: {
        ioredis: { default: Redis },
        'axios-safe-retry': library,
        'axios-safe-retry/redis': redisEntry,
      },
      globals: { api, log: { warn: (error: unknown) => warnings.push(error) } },
      returns: ['redis', 'store'],
    })) as { redis: Redis; store: RedisStore };
    try {
      // A worker runs for a while: its store's first heartbeat is in before the call (a change
      // made before the connection is up is kept in the process, and not written).
      await until(
        'the first heartbeat',
        async () => (await redis.exists('sync-job:clients')) === 1,
      );
      await api.get('/items', { retry: { retries: 0 } }).catch(() => undefined);
      await until(
        'the held scope is in Redis',
        async () => (await redis.keys('sync-job:scope:*')).length > 0,
      );
      expect(warnings).toEqual([]);
    } finally {
      await store.close();
      await redis.quit();
      delete process.env.REDIS_URL;
    }
  });
});

describe('express: a layer whose dependency is overloaded answers "don\'t retry"', () => {
  let bottom: LoopbackServer | undefined;
  let layer: http.Server | undefined;
  afterEach(async () => {
    await bottom?.stop();
    layer?.closeAllConnections();
    await new Promise((resolve) => layer?.close(resolve) ?? resolve(undefined));
  });

  it('runs as written: the layer retries its dependency, and its caller is told not to', async () => {
    bottom = await startServer((_arrival, res) => {
      res.statusCode = 503;
      res.end();
    });
    const dependency = axios.create({ baseURL: bottom.url });
    library.attachRetry(dependency, { baseDelayMs: 1 });
    const routes = (app: express.Express) =>
      app.get('/', async (_req, res, next) => {
        try {
          res.send((await dependency.get('/')).data);
        } catch (error) {
          next(error);
        }
      });
    const { app } = (await runExample(example('docs/several-services.md', 'express'), {
      modules: { express: { default: express }, 'axios-safe-retry/server': serverEntry },
      globals: { routes },
      replace: [
        [
          '// … routes that call other services with clients that have attachRetry …',
          'routes(app);',
        ],
      ],
      returns: ['app'],
    })) as { app: express.Express };
    layer = await new Promise<http.Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const url = `http://127.0.0.1:${(layer.address() as AddressInfo).port}/`;
    const answer = await axios.get(url, { validateStatus: () => true });
    expect(answer.status).toBe(503);
    expect(answer.headers['stripe-should-retry']).toBe('false');
    // Only this layer retried: 1 attempt and its 3 retries reached the dependency.
    expect(bottom.arrivals).toHaveLength(4);
  });
});
