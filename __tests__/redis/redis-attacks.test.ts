import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import axios, { type AxiosInstance } from 'axios';
import { Redis } from 'ioredis';
import { attachRetry, loadControlOf } from '../../src';
import { createRedisStore, type RedisStore } from '../../src/redis';
import { type RedisServer, startRedisServer } from '../../support/redis-server';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';
import {
  connect,
  countOne,
  describeRedis,
  freshPrefix,
  scope,
  type TestClient,
  until,
} from '../helpers/redis';

// Issue 22: one write to the store must not stop a fleet. Each attack the issue measured, against
// a real redis-server and a real loopback server: after the hostile write, every client sends
// again within one probe time of the server being healthy (2 × maxBreakDurationMs for a break,
// maxRetryAfterMs for a hold, a slot at minRatePerSecond for a pace).

jest.setTimeout(60_000);

const BREAKER = { minimumThroughput: 4, breakDurationMs: 200, maxBreakDurationMs: 400 };
const PACING = { minRatePerSecond: 5, healthyAfterMs: 2000 };
const MAX_RETRY_AFTER_MS = 2000;
const YEAR_3000 = Date.UTC(3000, 0, 1);

/** JSON as the store writes it: ±Infinity as "Infinity" and "-Infinity"; 'now' is the time written. */
const json = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : v === 'now' ? Date.now() : v,
  );

interface Member {
  readonly api: AxiosInstance;
  readonly store: RedisStore;
  readonly redis: TestClient;
}

describeRedis('the Redis store under attack (ioredis)', () => {
  let redisServer: RedisServer;
  let admin: TestClient;
  let http: LoopbackServer;
  let status = 200;
  const members: Member[] = [];

  beforeAll(async () => {
    redisServer = await startRedisServer();
    admin = await connect('ioredis', redisServer.url);
    http = await startServer((_arrival, res) => {
      res.statusCode = status;
      res.end('ok');
    });
  });
  afterAll(async () => {
    admin?.close();
    await http?.stop();
    await redisServer?.stop();
  });
  afterEach(async () => {
    status = 200;
    for (const { store, redis } of members.splice(0)) {
      await store.close();
      redis.close();
    }
  });

  async function fleet(count: number, prefix: string, maxClients?: number): Promise<Member[]> {
    const made: Member[] = [];
    for (let i = 0; i < count; i++) {
      const redis = await connect('ioredis', redisServer.url);
      const store = createRedisStore(redis.client, {
        prefix,
        timeoutMs: 2000,
        ...(maxClients && { maxClients }),
      });
      const api = axios.create({ baseURL: http.url });
      attachRetry(api, {
        store,
        retries: 0,
        circuitBreaker: BREAKER,
        pacing: PACING,
        maxRetryAfterMs: MAX_RETRY_AFTER_MS,
      });
      const member = { api, store, redis };
      members.push(member);
      made.push(member);
    }
    // Each client knows the scopes (a healthy call), and hears the channel.
    await Promise.all(made.map(({ api }) => api.get('/items')));
    await listening(
      prefix,
      made.map(({ store }) => store),
    );
    await until('every store counts the fleet', () =>
      made.every(({ store }) => store.clients() >= count),
    );
    return made;
  }

  /** Waits until each store hears the channel (its subscription is made on a connection of its own). */
  async function listening(prefix: string, stores: RedisStore[]) {
    const heard = new Set<RedisStore>();
    const stops = stores.map((store) => store.watch((key) => key === 'ping' && heard.add(store)));
    const ping = json({ client: 'pinger', key: 'ping', state: scope() });
    await until('every store hears the channel', async () => {
      await admin.send('PUBLISH', `${prefix}:changes`, ping);
      return heard.size === stores.length;
    });
    for (const stop of stops) stop();
  }

  /** The time (ms from now) until `count` calls succeeded, calling every 20 ms. */
  async function successes(api: AxiosInstance, count: number, boundMs: number): Promise<number> {
    const started = Date.now();
    let ok = 0;
    while (Date.now() - started < boundMs + 5000) {
      const sent = await api.get('/items', { retry: { deadlineMs: 500 } }).then(
        () => true,
        () => false,
      );
      if (sent && ++ok === count) return Date.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return Infinity;
  }

  /** Publishes `state` for the origin and its route, as another client would. */
  async function publish(prefix: string, state: object) {
    const text = json({ version: 1, ...state });
    for (const key of [http.url, `${http.url}/items`]) {
      const message = `{"client":"intruder","key":${json(key)},"state":${text}}`;
      await admin.send('PUBLISH', `${prefix}:changes`, message);
    }
  }

  const unpaced = scope().pace;
  const closed = { state: 'closed', openUntil: 0, failedProbes: 0 };
  const attacks: [string, object, number][] = [
    [
      'a break until the year 3000',
      { pace: unpaced, breaker: { ...closed, state: 'open', openUntil: YEAR_3000 } },
      2 * BREAKER.maxBreakDurationMs,
    ],
    [
      'a break until "Infinity"',
      { pace: unpaced, breaker: { ...closed, state: 'open', openUntil: 'Infinity' } },
      2 * BREAKER.maxBreakDurationMs,
    ],
    [
      'a hold "set" at Infinity until the year 3000',
      { pace: { ...unpaced, holdUntil: YEAR_3000, heldAt: 'Infinity' }, breaker: closed },
      MAX_RETRY_AFTER_MS,
    ],
    [
      'a rate of 1e-9 signalled at Infinity',
      {
        pace: {
          ...unpaced,
          base: 1e-9,
          since: 'now',
          decidedAt: 0,
          lastSignal: 'Infinity',
          slowStart: false,
        },
        breaker: closed,
      },
      1000 / PACING.minRatePerSecond,
    ],
    [
      'cap 0',
      {
        pace: {
          ...unpaced,
          base: 10,
          since: 'now',
          decidedAt: 0,
          lastSignal: 'now',
          cap: 0,
        },
        breaker: closed,
      },
      1000 / PACING.minRatePerSecond,
    ],
    [
      'growth -1',
      {
        pace: {
          ...unpaced,
          base: 10,
          since: 'now',
          decidedAt: 0,
          lastSignal: 'now',
          slowStart: false,
          growth: -1,
        },
        breaker: closed,
      },
      1000 / PACING.minRatePerSecond,
    ],
  ];

  test.each(attacks)(
    '%s: every client sends again within one probe time',
    async (name, state, boundMs) => {
      const prefix = freshPrefix(name.replace(/\W+/g, '-'));
      const fleetOf = await fleet(3, prefix);
      await publish(prefix, state);
      // Heard: the pub/sub round trip is short on loopback.
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Three calls each: the first may go at once (a pacer's first slot is now), the others not.
      const took = await Promise.all(fleetOf.map(({ api }) => successes(api, 3, boundMs)));
      // Then two slots at minRatePerSecond; generous margins: the machine is loaded.
      const slots = 2 * (1000 / PACING.minRatePerSecond);
      for (const ms of took) expect(ms).toBeLessThanOrEqual(boundMs + slots + 1000);
      // And what the error would have said: no break or hold of more than the local rules allow.
      for (const { api } of fleetOf) {
        for (const view of loadControlOf(api).scopes) {
          expect(view.holdMs).toBeLessThanOrEqual(86_400_000);
          expect(view.ratePerSecond ?? 0).toBeLessThanOrEqual(100_000);
        }
      }
    },
  );

  test('a published rate of Infinity is bounded (pacing is not switched off)', async () => {
    const prefix = freshPrefix('rate-infinity');
    const [a] = await fleet(1, prefix);
    const now = Date.now();
    await publish(prefix, {
      pace: {
        ...unpaced,
        ...{ base: 'Infinity', since: now, decidedAt: now, lastSignal: now, slowStart: false },
      },
      breaker: closed,
    });
    await until('the pace is heard', () =>
      loadControlOf(a!.api).scopes.some((view) => view.ratePerSecond !== undefined),
    );
    for (const view of loadControlOf(a!.api).scopes) {
      // The ceiling, and the climb of a few ms since (5 % a second).
      if (view.ratePerSecond !== undefined) expect(view.ratePerSecond).toBeLessThan(1.01e5);
    }
  });

  test('a squatted probe lease (no TTL) blocks the probe for one lease time, not for good', async () => {
    const prefix = freshPrefix('squat');
    const [a, b] = await fleet(2, prefix);
    for (const key of [http.url, `${http.url}/items`]) {
      await admin.send('SET', `${prefix}:lease:${key}`, 'squatter');
    }
    status = 503;
    for (let i = 0; i < 6; i++) await a!.api.get('/items').catch(() => {});
    status = 200;
    const took = await Promise.all([a, b].map((m) => successes(m!.api, 1, 0)));
    for (const ms of took) expect(ms).toBeLessThanOrEqual(2 * BREAKER.maxBreakDurationMs + 1000);
  });

  test('members scored in the future are dropped, and the count is capped by maxClients', async () => {
    const prefix = freshPrefix('fake-members');
    const [a, b] = await fleet(2, prefix, 10);
    const far = String(Date.now() + 1e9);
    const fakes = Array.from({ length: 1000 }, (_, i) => [far, `fake-${i}`]).flat();
    await admin.send('ZADD', `${prefix}:clients`, ...fakes);
    // Heartbeats every second: the next one drops them.
    await until(
      'the fakes are dropped',
      async () => Number(await admin.send('ZCARD', `${prefix}:clients`)) === 2,
    );
    await until('the stores count 2', () => a!.store.clients() === 2 && b!.store.clients() === 2);
    // Members a writer keeps scoring now: counted, up to maxClients.
    const current = async () => {
      const [seconds] = (await admin.send('TIME')) as string[];
      const score = String(Number(seconds) * 1000);
      await admin.send('ZADD', `${prefix}:clients`, ...fakes.map((v, i) => (i % 2 ? v : score)));
    };
    await current();
    await until('the count is capped', async () => {
      await current();
      return a!.store.clients() === 10;
    });
  });

  test('a version of 2^53 − 1, published or stored, does not end sharing', async () => {
    const prefix = freshPrefix('version');
    const stores = await Promise.all(
      [0, 1].map(async () => {
        const redis = await connect('ioredis', redisServer.url);
        const store = createRedisStore(redis.client, { prefix, timeoutMs: 2000 });
        members.push({ api: axios.create(), store, redis });
        return store;
      }),
    );
    const [a, b] = stores as [RedisStore, RedisStore];
    await listening(prefix, stores);
    const huge = { ...scope(), version: 2 ** 53 - 1 };
    await admin.send('SET', `${prefix}:scope:api`, json(huge));
    await admin.send(
      'PUBLISH',
      `${prefix}:changes`,
      json({ client: 'intruder', key: 'api', state: huge }),
    );
    const heard: number[] = [];
    b.watch((_key, state) => heard.push(state.pace.cuts));
    let local = scope();
    await until('b hears a change of a', () => {
      local = a.update('api', local, countOne);
      return heard.length > 0;
    });
    const stored = JSON.parse(String(await admin.send('GET', `${prefix}:scope:api`)));
    expect(Number.isSafeInteger(stored.version)).toBe(true);
    expect(stored.version).toBeLessThan(2 ** 48);
  });

  test('messages and values over 4 KB are dropped unread (8 MB ones with distinct keys)', async () => {
    const prefix = freshPrefix('big');
    const redis = await connect('ioredis', redisServer.url);
    const store = createRedisStore(redis.client, { prefix, timeoutMs: 2000 });
    members.push({ api: axios.create(), store, redis });
    await listening(prefix, [store]);
    const heard: string[] = [];
    store.watch((key) => key !== 'ping' && heard.push(key));
    const padding = 'x'.repeat(8 * 1024 * 1024);
    for (let i = 0; i < 5; i++) {
      const state = { ...scope(5), padding };
      const message = json({ client: 'intruder', key: `big-${i}`, state });
      await admin.send('PUBLISH', `${prefix}:changes`, message);
    }
    await admin.send('SET', `${prefix}:scope:stored`, json({ ...scope(5), padding }));
    expect(store.latest('stored')).toBeUndefined();
    // A small message after them is heard: the big ones were read and dropped.
    await admin.send(
      'PUBLISH',
      `${prefix}:changes`,
      json({ client: 'intruder', key: 'small', state: scope(5) }),
    );
    await until('the small one is heard', () => heard.includes('small'));
    expect(heard).toEqual(['small']);
    expect(store.latest('stored')).toBeUndefined();
    // And the big stored value is overwritten by the next change.
    store.update('stored', scope(), countOne);
    await until(
      'the big value is overwritten',
      async () => String(await admin.send('GET', `${prefix}:scope:stored`)).length < 4096,
    );
  });

  test('wrong password, wrong key type: no call slowed or failed, the failure shown and told', async () => {
    const prefix = freshPrefix('health');
    const told: { sharing: boolean; failure?: string }[] = [];
    const listener = (message: unknown) => told.push(message as (typeof told)[number]);
    subscribe('axios-safe-retry:store', listener);
    try {
      await admin.send('CONFIG', 'SET', 'requirepass', 'secret');
      const url = redisServer.url.replace('redis://', 'redis://:wrong@');
      const wrong = new Redis(url, { maxRetriesPerRequest: 1 });
      wrong.on('error', () => {});
      const store = createRedisStore(wrong, { prefix });
      const api = axios.create({ baseURL: http.url });
      attachRetry(api, { store, retries: 0 });
      const started = Date.now();
      for (let i = 0; i < 10; i++) await api.get('/items');
      expect(Date.now() - started).toBeLessThan(2000);
      await until('the failure is shown', () => loadControlOf(api).store?.lastFailure === 'auth');
      expect(loadControlOf(api).store).toMatchObject({ connected: false });
      expect(told.some((m) => m.sharing === false && m.failure === 'auth')).toBe(true);
      await store.close();
      wrong.disconnect();
    } finally {
      await admin.send('AUTH', 'secret');
      await admin.send('CONFIG', 'SET', 'requirepass', '');
    }
    // A key of the wrong type: the clients' set as a list.
    await admin.send('RPUSH', `${prefix}:clients`, 'not-a-set');
    const redis = await connect('ioredis', redisServer.url);
    const store = createRedisStore(redis.client, { prefix, timeoutMs: 2000 });
    members.push({ api: axios.create(), store, redis });
    await until('the wrong type is shown', () => store.health().lastFailure === 'wrong-type');
    expect(told.some((m) => m.failure === 'wrong-type')).toBe(true);
    // Fixed: sharing resumes, and the channel says so.
    await admin.send('DEL', `${prefix}:clients`);
    await until('sharing resumes', () => store.health().connected);
    expect(told.at(-1)).toMatchObject({ sharing: true });
    unsubscribe('axios-safe-retry:store', listener);
  });
});
