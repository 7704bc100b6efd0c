import type { SharedScope } from '../../src/contract/store';
import { createRedisStore, type RedisStore, type RedisStoreOptions } from '../../src/redis';
import { encodeScope } from '../../src/redis/codec';
import { type RedisServer, startRedisServer } from '../../support/redis-server';
import {
  connect,
  countOne,
  describeRedis,
  freshPrefix,
  LIBRARIES,
  type Library,
  scope,
  type TestClient,
  until,
} from '../helpers/redis';

// The Redis store (issue 15) against a real redis-server, with both client libraries: the
// compare-and-set under concurrent clients, one probe per fleet, TTLs on every key, the channel,
// the clock, the clients' count, and what it does with values it cannot read.

jest.setTimeout(30_000);

describeRedis.each(LIBRARIES)('the Redis store with %s', (library: Library) => {
  let server: RedisServer;
  let admin: TestClient;
  const clients: TestClient[] = [];
  const stores: RedisStore[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    admin = await connect(library, server.url);
  });
  afterAll(async () => {
    admin?.close();
    await server?.stop();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    for (const client of clients.splice(0)) client.close();
  });

  /** `count` stores, each on a client of its own (a process of the fleet), on one prefix. */
  async function fleet(count: number, prefix: string, options: RedisStoreOptions = {}) {
    const made: RedisStore[] = [];
    for (let i = 0; i < count; i++) {
      const client = await connect(library, server.url);
      clients.push(client);
      const store = createRedisStore(client.client, { prefix, ...options });
      stores.push(store);
      made.push(store);
    }
    return made;
  }

  /** What Redis holds at `key`; `undefined` while it is still not JSON (a write not yet done). */
  async function stored(key: string): Promise<SharedScope | undefined> {
    const text = await admin.send('GET', key);
    try {
      return typeof text === 'string' ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  }

  test('concurrent clients updating one scope lose no change, one version per change', async () => {
    const prefix = freshPrefix('cas');
    // A generous bound: this test is about the compare-and-set, not about a loaded machine.
    const fleetOf = await fleet(4, prefix, { timeoutMs: 5000 });
    const published: number[] = [];
    const [listener] = await fleet(1, prefix);
    listener!.watch((_key, state) => published.push(state.version));
    const perStore = 25;
    await Promise.all(
      fleetOf.map(async (store) => {
        // Each store follows what it hears, as load control does, and changes in bursts.
        let local = scope();
        store.watch((_key, state) => {
          if (state.version >= local.version) local = state;
        });
        for (let i = 0; i < perStore; i++) {
          local = store.update('api', local, countOne);
          if (i % 5 === 4) await new Promise((resolve) => setImmediate(resolve));
        }
      }),
    );
    const total = fleetOf.length * perStore;
    await until(
      'every change is stored',
      async () => (await stored(`${prefix}:scope:api`))?.version === total,
    );
    expect((await stored(`${prefix}:scope:api`))?.pace.cuts).toBe(total);
    await until('the listener heard the last write', () => published.includes(total));
    // Each write is one version per change it carries: strictly increasing, ending at the count.
    expect(published).toEqual([...published].sort((a, b) => a - b));
    expect(new Set(published).size).toBe(published.length);
  });

  test('one probe per fleet: one lease among racing clients, another after its TTL, unlease by the owner only', async () => {
    const prefix = freshPrefix('lease');
    const fleetOf = await fleet(6, prefix, { timeoutMs: 2000 });
    const won = await Promise.all(fleetOf.map((store) => store.lease('api', 400)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const owner = won.indexOf(true);
    const other = fleetOf[(owner + 1) % fleetOf.length]!;
    expect(await other.lease('api', 400)).toBe(false);
    await until('the lease expires', () => other.lease('api', 5000));
    // Only its holder gives it back.
    fleetOf[owner]!.unlease('api');
    expect(await fleetOf[owner]!.lease('api', 5000)).toBe(false);
    other.unlease('api');
    await until(
      'the holder gave it back',
      async () => (await admin.send('EXISTS', `${prefix}:lease:api`)) === 0,
    );
    expect(await fleetOf[owner]!.lease('api', 5000)).toBe(true);
  });

  test('a lease another program wrote with no TTL, or a year long, is taken: the fleet still probes (issue 22)', async () => {
    // Before, SET NX never took it: once a breaker opened, no client probed again, and every call
    // failed ERR_CIRCUIT_OPEN long after the origin was back.
    const prefix = freshPrefix('lease-intruder');
    const [store] = await fleet(1, prefix, { stateTtlMs: 60_000, timeoutMs: 2000 });
    await admin.send('SET', `${prefix}:lease:forever`, 'intruder');
    await admin.send('SET', `${prefix}:lease:year`, 'intruder', 'PX', String(365 * 86_400_000));
    await admin.send('SET', `${prefix}:lease:held`, 'a-client', 'PX', '30000');
    expect(await store!.lease('forever', 1000)).toBe(true);
    expect(await store!.lease('year', 1000)).toBe(true);
    // A lease a client holds, within the state's TTL, is still its own.
    expect(await store!.lease('held', 1000)).toBe(false);
    expect(Number(await admin.send('PTTL', `${prefix}:lease:forever`))).toBeLessThanOrEqual(1000);
  });

  test('every key it writes expires', async () => {
    const prefix = freshPrefix('ttl');
    const [store] = await fleet(1, prefix, { stateTtlMs: 60_000, timeoutMs: 2000 });
    store!.update('api', scope(), countOne);
    expect(await store!.lease('api', 3000)).toBe(true);
    await until('the state and the clients are written', async () => {
      const keys = (await admin.send('KEYS', `${prefix}:*`)) as string[];
      return keys.length === 3;
    });
    const ttl = async (key: string) => Number(await admin.send('PTTL', `${prefix}:${key}`));
    expect(await ttl('scope:api')).toBeGreaterThan(50_000);
    expect(await ttl('scope:api')).toBeLessThanOrEqual(60_000);
    expect(await ttl('lease:api')).toBeGreaterThan(0);
    expect(await ttl('lease:api')).toBeLessThanOrEqual(3000);
    expect(await ttl('clients')).toBeGreaterThan(0);
    expect(await ttl('clients')).toBeLessThanOrEqual(3000);
  });

  test("watch hears the other clients' changes, and its own once Redis kept them", async () => {
    const prefix = freshPrefix('watch');
    const [a, b] = await fleet(2, prefix, { timeoutMs: 2000 });
    const heard: Record<'a' | 'b', [string, SharedScope][]> = { a: [], b: [] };
    a!.watch((key, state) => heard.a.push([key, state]));
    b!.watch((key, state) => heard.b.push([key, state]));
    // The subscriptions are made on connections of their own: wait until one message gets through.
    let local = scope();
    await until('b hears a', () => {
      local = a!.update('api', local, countOne);
      return heard.b.length > 0;
    });
    const last = a!.update('api', local, countOne);
    await until('b hears the last change', () =>
      heard.b.some(([, state]) => state.version === last.version),
    );
    expect(heard.b.at(-1)).toEqual(['api', last]);
    // a hears only what Redis confirmed of its own changes: the same states, the same versions.
    await until('a hears its last change confirmed', () =>
      heard.a.some(([, state]) => state.version === last.version),
    );
    expect(heard.a.at(-1)).toEqual(['api', last]);
    const versions = heard.a.map(([, state]) => state.version);
    expect(versions).toEqual([...versions].sort((x, y) => x - y));
  });

  test('latest: a scope met for the first time is read from Redis, and told through watch', async () => {
    const prefix = freshPrefix('latest');
    const [a] = await fleet(1, prefix, { timeoutMs: 2000 });
    const heard: [string, SharedScope][] = [];
    a!.watch((key, state) => heard.push([key, state]));
    await admin.send('SET', `${prefix}:scope:api`, encodeScope(scope(7, 40))!);
    expect(a!.latest('api')).toBeUndefined();
    await until('a hears the stored state', () => heard.length > 0);
    expect(heard).toEqual([['api', scope(7, 40)]]);
    expect(a!.latest('api')).toEqual(scope(7, 40));
    // A scope Redis has nothing of: nothing is told.
    expect(a!.latest('other')).toBeUndefined();
  });

  test('a change lost to another client comes back through watch, made again on the latest', async () => {
    const prefix = freshPrefix('conflict');
    const [a, b] = await fleet(2, prefix, { timeoutMs: 2000 });
    const heard: SharedScope[] = [];
    b!.watch((_key, state) => heard.push(state));
    await admin.send('SET', `${prefix}:scope:api`, encodeScope(scope(7, 40))!);
    // b knows version 0: its change is made again on version 7, and b hears the result.
    const local = b!.update('api', scope(), countOne);
    expect(local.version).toBe(1);
    await until('b hears the state stored', () => heard.length > 0);
    expect(heard[0]?.version).toBe(8);
    expect(heard[0]?.pace.cuts).toBe(41);
    expect(a).toBeDefined();
  });

  test('clockOffset is close to 0 on loopback, and clients() counts the live stores', async () => {
    const prefix = freshPrefix('clients');
    const fleetOf = await fleet(3, prefix);
    expect(fleetOf[0]!.clients()).toBeGreaterThanOrEqual(1);
    await until('each store counts 3', () => fleetOf.every((store) => store.clients() === 3));
    for (const store of fleetOf) expect(Math.abs(store.clockOffset())).toBeLessThan(50);
    await fleetOf[2]!.close();
    await until('the others count 2', () =>
      fleetOf.slice(0, 2).every((store) => store.clients() === 2),
    );
  });

  test('±Infinity round-trip; a NaN is never stored', async () => {
    const prefix = freshPrefix('infinity');
    const [a, b] = await fleet(2, prefix, { timeoutMs: 2000 });
    const heard: SharedScope[] = [];
    b!.watch((_key, state) => heard.push(state));
    let local = scope();
    await until('b hears a', () => {
      local = a!.update('api', local, countOne);
      return heard.length > 0;
    });
    const last = heard.at(-1)!;
    expect(last.pace.cap).toBe(Number.POSITIVE_INFINITY);
    expect(last.pace.holdUntil).toBe(Number.NEGATIVE_INFINITY);
    expect(await admin.send('GET', `${prefix}:scope:api`)).toContain('"holdUntil":"-Infinity"');

    const nan = (state: SharedScope) => ({ ...state, pace: { ...state.pace, since: Number.NaN } });
    expect(Number.isNaN(a!.update('nan', scope(), nan).pace.since)).toBe(true);
    // The NaN write is dropped before any command: a command sent after it finds no key.
    expect(await a!.lease('after-nan', 1000)).toBe(true);
    expect(await admin.send('EXISTS', `${prefix}:scope:nan`)).toBe(0);
  });

  test('malformed values in Redis are ignored: a stored one is overwritten, a message is dropped', async () => {
    const prefix = freshPrefix('malformed');
    const [a, b] = await fleet(2, prefix, { timeoutMs: 2000 });
    const heard: SharedScope[] = [];
    b!.watch((_key, state) => heard.push(state));
    const key = `${prefix}:scope:api`;
    for (const value of ['not json', '[1]', '{"version":3,"pace":"fast"}', '{"version":"x"}']) {
      await admin.send('SET', key, value);
      expect(a!.update('api', scope(), countOne).version).toBe(1);
      await until(`${value} is overwritten`, async () => (await stored(key))?.pace?.cuts === 1);
    }
    await admin.send('DEL', key);
    const messages = ['nope', '{}', '{"client":"x","key":"api","state":{"version":1}}'];
    for (const message of messages) await admin.send('PUBLISH', `${prefix}:changes`, message);
    let local = scope(10);
    await until('a good message gets through', () => {
      local = a!.update('api', local, countOne);
      return heard.length > 0;
    });
    // Whatever was heard is whole (the malformed messages were dropped, nothing was thrown).
    expect(heard.every((state) => state.pace.cuts >= 1 && state.breaker.state === 'closed')).toBe(
      true,
    );
  });

  test('options are checked, and a client of neither library is refused', () => {
    // The client comes first: a newcomer's `createRedisStore({ client, prefix })` is shown the form.
    const form =
      /`createRedisStore\(redis, \{ prefix \}\)` takes an ioredis or node-redis client first/;
    expect(() => createRedisStore({} as never)).toThrow(form);
    expect(() => createRedisStore({ client: admin.client, prefix: 'jobs' } as never)).toThrow(form);
    expect(() => createRedisStore(admin.client, { prefix: '' })).toThrow(
      /`prefix` must be a non-empty string; got ""/,
    );
    expect(() => createRedisStore(admin.client, { timeoutMs: 0 })).toThrow(
      /`timeoutMs` must be a number in \(0, 60000\]; got 0/,
    );
    expect(() => createRedisStore(admin.client, { stateTtlMs: 10 })).toThrow(
      /`stateTtlMs` must be an integer in \[1000, ∞\); got 10/,
    );
    // A misspelt option is named, not ignored (issue 25: the client and retryLayer did so).
    expect(() => createRedisStore(admin.client, { prefx: 'app' } as never)).toThrow(
      /unknown option `prefx`/,
    );
  });
});
