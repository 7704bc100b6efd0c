// A smoke run of one small benchmark scenario (virtual time, seeded): it checks that the bench
// still runs against the package, and asserts behaviour, never timing.
import { runSmokeBenchmark } from '../bench/smoke';

test('a herd of 20 clients rides through 503s with the budget off', async () => {
  const results = await runSmokeBenchmark(20);
  const budgetOff = results.find((r) => r.contestant === 'axios-safe-retry, budget off');
  expect(budgetOff).toMatchObject({ calls: 20, failedCalls: 0 });
  // The server serves 10 requests per 100 ms: half the herd had to retry.
  expect(budgetOff!.requestsSent).toBeGreaterThan(20);
});
