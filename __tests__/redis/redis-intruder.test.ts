import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios, { type AxiosInstance } from 'axios';
import { attachRetry, loadControlOf } from '../../src';
import { createRedisStore, type RedisStore } from '../../src/redis';
import { type RedisServer, startRedisServer } from '../../support/redis-server';
import { connect, describeRedis, freshPrefix, type TestClient, until } from '../helpers/redis';

// The store is not trusted either (issue 22): another program (here a plain Redis connection, as
// `redis-cli` would) writes the scope's key of a fleet on a real redis-server and publishes it.
// A hold a year long whose start is a year ahead is held a day at most and probed as the
// client's own; garbage written after it is ignored. Before the guard, no probe ever came: the
// route stayed held for the year, and every call to a healthy server failed.

jest.setTimeout(60_000);

const YEAR = 365 * 86_400_000;
// The probe of a long hold comes every maxRetryAfterMs: 1 s here, 60 s by default.
const OPTIONS = { deadlineMs: 500, maxRetryAfterMs: 1000 };

describeRedis('a store another program writes', () => {
  let redis: RedisServer;
  let http: Server;
  let url: string;
  let refusals = 2;
  const connections: TestClient[] = [];
  const stores: RedisStore[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    http = createServer((_req, res) => {
      if (refusals-- > 0) res.writeHead(429, { 'retry-after': '1' }).end();
      else res.end('ok');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    for (const connection of connections) connection.close();
    http?.close();
    await redis?.stop();
  });

  async function client(prefix: string, options: object = OPTIONS): Promise<AxiosInstance> {
    const connection = await connect('ioredis', redis.url);
    connections.push(connection);
    const store = createRedisStore(connection.client, { prefix });
    stores.push(store);
    const api = axios.create({ baseURL: url });
    attachRetry(api, { ...options, store });
    return api;
  }
  /** Rewrites every scope key of `prefix` with `edit` applied to its state, and publishes it. */
  async function intrude(prefix: string, edit: (state: { pace: object }) => void) {
    const intruder = await connect('ioredis', redis.url);
    connections.push(intruder);
    const keys = (await intruder.send('KEYS', `${prefix}:scope:*`)) as string[];
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const state = JSON.parse((await intruder.send('GET', key)) as string);
      state.version += 1000;
      edit(state);
      await intruder.send('SET', key, JSON.stringify(state));
      const message = { client: 'intruder', key: key.slice(`${prefix}:scope:`.length), state };
      await intruder.send('PUBLISH', `${prefix}:changes`, JSON.stringify(message));
    }
    return { intruder, keys };
  }
  const outcomes = (api: AxiosInstance, n: number): Promise<string[]> =>
    Promise.all(
      Array.from({ length: n }, () =>
        api.get('/items').then(
          () => 'ok',
          (error) => String(error.code),
        ),
      ),
    );
  const heldMs = (api: AxiosInstance): number =>
    Math.max(0, ...loadControlOf(api).scopes.map((scope) => scope.holdMs ?? 0));

  test('a year-long hold starting a year ahead: held a day at most, probed, and ended by the probe; garbage after it is ignored', async () => {
    const prefix = freshPrefix('intruder');
    const [a, b] = [await client(prefix), await client(prefix)];
    // The server's two 429s (each call gives up: its deadline is shorter than the server's wait)
    // give the fleet a scope's state in Redis.
    expect([...(await outcomes(a, 1)), ...(await outcomes(b, 1))]).toEqual(
      Array(2).fill('ERR_BAD_REQUEST'),
    );
    const ahead = Date.now() + YEAR;
    const { intruder, keys } = await intrude(prefix, (state) =>
      Object.assign(state.pace, { holdUntil: ahead, heldAt: ahead, base: 1e-4, since: ahead }),
    );
    // (Longer than the server's own hold of 1 s: the intruder's.)
    await until(
      "both clients take the intruder's hold",
      () => Math.min(heldMs(a), heldMs(b)) > 60_000,
    );
    // Shared evidence is obeyed, within this client's own bound: a day, not a year.
    for (const api of [a, b]) expect(heldMs(api)).toBeLessThanOrEqual(86_400_000);
    expect(await outcomes(a, 5)).toEqual(Array(5).fill('ERR_RATE_LIMITED'));

    // A probe is due a bound clock error plus maxRetryAfterMs after the write: its success ends it.
    await until('a probe of each client succeeds', async () => {
      const done = await Promise.all(
        [a, b].map(async (api) => heldMs(api) === 0 || (await outcomes(api, 1))[0] === 'ok'),
      );
      return done.every(Boolean);
    });
    for (const api of [a, b]) expect(await outcomes(api, 10)).toEqual(Array(10).fill('ok'));

    for (const key of keys) {
      const garbage =
        '{"version":99999,"pace":"garbage","breaker":{"state":"open","openUntil":1e300}}';
      await intruder.send('SET', key, garbage);
      const message = { client: 'intruder', key: key.slice(`${prefix}:scope:`.length), state: 'x' };
      await intruder.send('PUBLISH', `${prefix}:changes`, JSON.stringify(message));
    }
    for (const api of [a, b]) expect(await outcomes(api, 10)).toEqual(Array(10).fill('ok'));
  });

  // The helper's S4 of the last session: with the defaults (a probe every 60 s), a year-long hold
  // begun "now" failed every call of both clients to a healthy server for 60 s. A hold that no
  // client of this process set is probed by each a second after it began: its own evidence wins.
  test('with the defaults, a hold no client of this process set is probed within about a second, and its success ends it', async () => {
    const prefix = freshPrefix('foreign-hold');
    refusals = 2;
    const [a, b] = [
      await client(prefix, { deadlineMs: 500 }),
      await client(prefix, { deadlineMs: 500 }),
    ];
    expect([...(await outcomes(a, 1)), ...(await outcomes(b, 1))]).toEqual(
      Array(2).fill('ERR_BAD_REQUEST'),
    );
    // The server's own hold of a second is over.
    await until('the hold of the 429s is over', () => heldMs(a) + heldMs(b) === 0);
    expect(await outcomes(a, 3)).toEqual(Array(3).fill('ok'));
    const wroteAt = Date.now();
    await intrude(prefix, (state) =>
      Object.assign(state.pace, { holdUntil: wroteAt + YEAR, heldAt: wroteAt }),
    );
    await until(
      "both clients take the intruder's hold",
      () => Math.min(heldMs(a), heldMs(b)) > 60_000,
    );
    expect(await outcomes(a, 3)).toEqual(Array(3).fill('ERR_RATE_LIMITED'));
    await until('a probe of each client succeeds', async () => {
      const done = await Promise.all(
        [a, b].map(async (api) => heldMs(api) === 0 || (await outcomes(api, 1))[0] === 'ok'),
      );
      return done.every(Boolean);
    });
    // Within a second of the write and a clock error of a second, with a margin: not 60 s.
    expect(Date.now() - wroteAt).toBeLessThan(10_000);
    for (const api of [a, b]) expect(await outcomes(api, 10)).toEqual(Array(10).fill('ok'));
  });

  // A write that keeps the start of a hold a client set itself and moves its end a year on: that
  // client took it for its own, and probed it only every maxRetryAfterMs (60 s), failing every
  // call at once (a helper session's run: 5 000 to 7 000 calls in 12 s, 2 runs of 3).
  test('with the defaults, a hold a client set whose end another moved is probed within about a second by that client too', async () => {
    const prefix = freshPrefix('moved-end');
    refusals = 1;
    const a = await client(prefix, { deadlineMs: 500 });
    expect(await outcomes(a, 1)).toEqual(['ERR_BAD_REQUEST']);
    const wroteAt = Date.now();
    await intrude(prefix, (state) => {
      const pace = state.pace as { heldAt: unknown; holdUntil: number };
      if (typeof pace.heldAt === 'number') pace.holdUntil = pace.heldAt + YEAR;
    });
    await until('the client takes the moved end', () => heldMs(a) > 60_000);
    await until('its probe succeeds', async () => (await outcomes(a, 1))[0] === 'ok');
    // A second after the hold began and a clock error of a second, with a margin: not 60 s.
    expect(Date.now() - wroteAt).toBeLessThan(10_000);
    expect(await outcomes(a, 10)).toEqual(Array(10).fill('ok'));
  });
});
