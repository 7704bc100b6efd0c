import type { SharedScope } from '../../src/contract/store';
import { createRedisStore, type RedisStore } from '../../src/redis';
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

// Redis trouble never fails a call (issue 15): with redis-server killed, every store method
// answers within its bound and nothing rejects; once it is back, sharing resumes by itself.

jest.setTimeout(60_000);

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => process.on('unhandledRejection', onUnhandled));
afterAll(() => process.off('unhandledRejection', onUnhandled));

describeRedis.each(LIBRARIES)(
  'the Redis store with %s, Redis stopped and restarted',
  (library: Library) => {
    let server: RedisServer;
    const clients: TestClient[] = [];
    const stores: RedisStore[] = [];

    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(async () => {
      await Promise.all(stores.map((store) => store.close()));
      for (const client of clients) client.close();
      await server?.stop();
    });

    test('calls while Redis is down neither throw nor wait past the bound; sharing resumes after', async () => {
      const prefix = freshPrefix('restart');
      const [a, b] = await Promise.all(
        [0, 1].map(async () => {
          const client = await connect(library, server.url);
          clients.push(client);
          const store = createRedisStore(client.client, { prefix });
          stores.push(store);
          return store;
        }),
      );
      const heard: SharedScope[] = [];
      b!.watch((_key, state) => heard.push(state));
      let local = scope();
      await until('b hears a', () => {
        local = a!.update('api', local, countOne);
        return heard.length > 0;
      });
      await until('both count 2', () => a!.clients() === 2 && b!.clients() === 2);

      await server.stop();
      // Right after the kill (the clients may not know yet) and a while later.
      for (const pause of [0, 300]) {
        await new Promise((resolve) => setTimeout(resolve, pause));
        const started = performance.now();
        local = a!.update('api', local, countOne);
        expect(local.pace.cuts).toBeGreaterThan(0);
        // Unreachable: the local breaker decides alone, so the lease is taken.
        expect(await a!.lease('api', 1000)).toBe(true);
        a!.unlease('api');
        // The 50 ms bound, with room for a loaded machine.
        expect(performance.now() - started).toBeLessThan(1000);
      }
      // The count the store last reported stands while Redis is away.
      expect(a!.clients()).toBe(2);

      await server.start();
      const before = heard.length;
      await until(
        'b hears a again',
        () => {
          local = a!.update('api', local, countOne);
          return heard.length > before;
        },
        30_000,
      );
      // And b's own commands go through again (its command connection reconnects on its own).
      let confirmed = false;
      b!.watch((key) => {
        confirmed ||= key === 'b-only';
      });
      await until(
        'b keeps a change again',
        () => {
          b!.update('b-only', scope(), countOne);
          return confirmed;
        },
        30_000,
      );
      // A restarted server lost the scripts (NOSCRIPT: EVAL instead) and the lease: one wins again.
      const won = await Promise.all([a!.lease('probe', 5000), b!.lease('probe', 5000)]);
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(unhandled).toEqual([]);
    });
  },
);
