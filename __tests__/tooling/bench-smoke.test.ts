// A smoke run of one small benchmark scenario (virtual time, seeded): it checks that the bench
// still runs against the package, and asserts behaviour, never timing.
import { runFleetSmoke, runLoadControlSmoke, runSmokeBenchmark } from '../../bench/smoke';
import { hasRedisServer, REDIS_MISSING } from '../../support/redis-server';

test('a herd of 20 clients rides through 503s with the budget off', async () => {
  const results = await runSmokeBenchmark(20);
  const budgetOff = results.find((r) => r.contestant === 'axios-safe-retry, budget off');
  expect(budgetOff).toMatchObject({ calls: 20, failedCalls: 0 });
  // The server serves 10 requests per 100 ms: half the herd had to retry.
  expect(budgetOff!.requestsSent).toBeGreaterThan(20);
});

test('the load-control scenarios route calls by path and by instance', async () => {
  const results = await runLoadControlSmoke();
  expect(results.map((r) => r.contestant)).toEqual([
    'axios-safe-retry',
    'axios-safe-retry, load control off',
  ]);
  for (const result of results) {
    // Each of the two instances made every call it was given, to the path it was given.
    expect(result.callsByTarget).toMatchObject({
      '/fast@0': 5,
      '/fast@1': 5,
      '/limited@0': 5,
      '/limited@1': 5,
      '/broken@0': 2,
      '/broken@1': 2,
    });
    // The server saw the paths: every call reached its route at least once (none was refused
    // before sending: no breaker can open on 2 calls per instance).
    expect(result.requestsByPath['/fast']).toBeGreaterThanOrEqual(10);
    expect(result.requestsByPath['/limited']).toBeGreaterThanOrEqual(10);
    expect(result.requestsByPath['/broken']).toBeGreaterThanOrEqual(4);
    expect(result.requestsByPath['?']).toBeUndefined();
  }
});

// Real processes: 2 forked workers, a real limiter on loopback and a real redis-server.
const fleetTest = hasRedisServer() ? test : test.skip;
if (!hasRedisServer())
  console.warn(`bench-smoke: the fleet harness smoke was skipped. ${REDIS_MISSING}`);

fleetTest(
  'the fleet harness shares a job among forked workers, ours and Bottleneck on Redis',
  async () => {
    const results = await runFleetSmoke();
    expect(results.map((r) => r.contestant)).toEqual([
      'axios-safe-retry',
      'Bottleneck 2.19 on Redis',
    ]);
    for (const result of results) {
      // Nothing is throttled at 1 000 req/s: every call made once, by both workers.
      expect(result).toMatchObject({ calls: 40, failedCalls: 0, workers: 2, requestsSent: 40 });
    }
    // Bottleneck keeps its schedule in Redis; our client without a store makes no Redis call.
    expect(results[0]!.redisCommands).toBe(0);
    expect(results[1]!.redisCommands).toBeGreaterThan(40);
  },
  120_000,
);
