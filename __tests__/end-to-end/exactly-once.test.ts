import axios, { type AxiosResponse } from 'axios';
import { attachRetry } from '../../src';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';

// The fault run's exactly-once check, kept short: keyed POSTs through faults before and after
// the server performs them, on a real loopback server that deduplicates by Idempotency-Key.

const CALLS = 200;
const TIMEOUT_MS = 250;
const PROCESSING_MS = 350; // longer than the client's timeout: a retry arrives while it runs
const CONCURRENCY = 25; // calls in flight at once: more, and a busy Jest worker misses timeouts

type Fault = 'reset-before' | '503-before' | 'slow' | 'reset-after' | 'none';
const FAULTS: Fault[] = ['reset-before', '503-before', 'slow', 'reset-after', 'none'];

// A safety net for a loaded machine, not a wait: each test takes well under a second or two.
jest.setTimeout(30_000);

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function paymentServer(draft409: boolean) {
  const effects = new Map<string, number>(); // key → times performed
  const stored = new Map<string, string>(); // key → the stored answer
  const processing = new Map<string, Promise<void>>();
  const seen = new Map<string, number>(); // key → arrivals
  const counts: Record<string, number> = {};
  const ready = startServer(({ headers }, res, req) => {
    const key = headers['idempotency-key'] as string;
    const arrival = (seen.get(key) ?? 0) + 1;
    seen.set(key, arrival);
    const done = stored.get(key);
    if (done !== undefined) return void res.end(done);
    const running = processing.get(key);
    if (running) {
      counts.conflict = (counts.conflict ?? 0) + 1;
      if (draft409) return void res.writeHead(409).end();
      return void running.then(() => res.end(stored.get(key)));
    }
    // Faults on a key's first two arrivals, none after: every call can succeed within retries.
    const index = Number.parseInt(key.slice(-2), 16);
    const fault: Fault =
      arrival > 2 ? 'none' : (FAULTS[(index + arrival) % FAULTS.length] ?? 'none');
    counts[fault] = (counts[fault] ?? 0) + 1;
    if (fault === 'reset-before') return void req.socket.destroy();
    if (fault === '503-before') return void res.writeHead(503).end();
    const perform = () => {
      effects.set(key, (effects.get(key) ?? 0) + 1);
      stored.set(key, `charged ${key}`);
      processing.delete(key);
    };
    if (fault === 'slow') {
      const work = new Promise<void>((resolve) => setTimeout(resolve, PROCESSING_MS)).then(perform);
      processing.set(key, work);
      void work.then(() => res.end(stored.get(key)));
      return;
    }
    perform();
    if (fault === 'reset-after') req.socket.destroy();
    else res.end(stored.get(key));
  });
  return { ready, effects, counts };
}

describe.each([
  ['without', false],
  ['with', true],
])('%s the IETF draft 409, 200 keyed POSTs through faults', (_name, draft409) => {
  it('performs each successful key exactly once, and no key twice', async () => {
    const payments = paymentServer(draft409);
    server = await payments.ready;
    const client = axios.create({ baseURL: server.url, timeout: TIMEOUT_MS });
    attachRetry(client, {
      idempotencyKey: true,
      // On a loaded machine more attempts time out: they only mean more retries (and 409s).
      retries: Infinity,
      deadlineMs: 20_000,
      baseDelayMs: 10,
      maxDelayMs: 80,
      retryBudget: false,
    });
    const outcomes: PromiseSettledResult<AxiosResponse>[] = [];
    const worker = async () => {
      while (outcomes.length < CALLS) {
        const slot = outcomes.length;
        outcomes.push({ status: 'rejected', reason: 'pending' });
        outcomes[slot] = await client.post('/charges', { amount: 1 }).then(
          (value) => ({ status: 'fulfilled', value }),
          (reason: unknown) => ({ status: 'rejected', reason }),
        );
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const succeeded = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const keys = succeeded.map((r) => r.config.retryState?.idempotencyKey as string);

    expect(succeeded).toHaveLength(CALLS);
    expect(new Set(keys).size).toBe(CALLS);
    expect(
      succeeded.every((r) => r.data === `charged ${r.config.retryState?.idempotencyKey}`),
    ).toBe(true);
    expect([...payments.effects.values()].every((n) => n === 1)).toBe(true);
    expect([...payments.effects.keys()].sort()).toEqual([...keys].sort());
    // The faults did happen, and so did retries that met the original still in flight.
    for (const fault of FAULTS) expect(payments.counts[fault]).toBeGreaterThan(0);
    expect(payments.counts.conflict).toBeGreaterThan(0);
  });
});
