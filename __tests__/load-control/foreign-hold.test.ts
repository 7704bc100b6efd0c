import type { LoadControlStore, ScopeChange, SharedScope } from '../../src/contract/store';
import { memoryStore } from '../../src/load-control/store';
import { failureIn } from '../helpers/failure';
import { mockClient, settle } from '../helpers/mock-client';
import { CLOSED, paceOf } from '../helpers/store-states';

// A hold this client has no evidence of (another client's, or a write that is no client's, left
// in the store) fails no call at once: the calls wait, within their bound, for its probe (due a
// second after the hold began) and, a second after that, its answer. Before, a call whose
// deadline ended before the hold failed at once with ERR_RATE_LIMITED, though the server never
// refused anything: a worker drained its queue of jobs in under a second, failing each. A store
// whose clock is an hour ahead: the wait is read on the store's clock. With a mock adapter and
// fake timers.

const O = 'http://api.test';
const OFFSET_MS = 3_600_000;
const MONTH_MS = 30 * 86_400_000;

beforeEach(() => {
  jest.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
});
afterEach(() => {
  jest.useRealTimers();
});

/** A store ahead by an hour that holds the origin for a month from now (on its clock). */
function heldStore(): LoadControlStore {
  const heldAt = Date.now() + OFFSET_MS;
  const held: SharedScope = {
    version: 1,
    pace: paceOf({ holdUntil: heldAt + MONTH_MS, heldAt }),
    breaker: CLOSED,
  };
  return {
    ...memoryStore(),
    clockOffset: () => OFFSET_MS,
    latest: (key) => (key === O ? held : undefined),
  };
}

const OPTIONS = { deadlineMs: 5000, maxRetryAfterMs: 5000 };

describe('a hold another client left in the store', () => {
  it('fails no call at once: they wait for its probe, whose success lets every one through', async () => {
    const { client, mock } = mockClient({ ...OPTIONS, store: heldStore() });
    mock.onGet('/items').reply(200, 'ok');
    const start = Date.now();
    const calls = Array.from({ length: 10 }, () => settle(client.get('/items')));
    const outcomes = await Promise.all(calls);
    expect(outcomes.map((o) => o.value?.data ?? failureIn(o).code)).toEqual(Array(10).fill('ok'));
    // One probe a second after the hold began; the others ask again a second after it (its
    // answer is known by then) and go, not a month later.
    expect(mock.history.get).toHaveLength(10);
    expect(Date.now() - start).toBe(2000);
  });

  it("a probe answered with a 429 makes the hold this client's own: the calls waiting for it fail", async () => {
    const { client, mock } = mockClient({ ...OPTIONS, retries: 0, store: heldStore() });
    mock.onGet('/items').reply(429, '', { 'retry-after': '30' });
    const start = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => settle(client.get('/items'))),
    );
    const codes = outcomes.map((o) => failureIn(o).code);
    expect(codes.filter((code) => code === 'ERR_RATE_LIMITED')).toHaveLength(9);
    // The probe alone went; the others asked again a second after it, and failed on its answer.
    expect(mock.history.get).toHaveLength(1);
    expect(Date.now() - start).toBe(2000);
    // A call that comes now fails at once: the hold is the server's word.
    const later = Date.now();
    expect(failureIn(await settle(client.get('/items'))).code).toBe('ERR_RATE_LIMITED');
    expect(Date.now()).toBe(later);
  });

  it('leaves a hold this client set itself as it was: a call it holds past its latest fails at once', async () => {
    const { client, mock } = mockClient({ ...OPTIONS, retries: 0 });
    mock.onGet('/items').reply(429, '', { 'retry-after': '30' });
    await settle(client.get('/items'));
    const later = Date.now();
    const failure = failureIn(await settle(client.get('/items')));
    expect(failure.code).toBe('ERR_RATE_LIMITED');
    // It names the scope and the server's wait, not a deadline (a call may have none).
    expect(failure.message).toBe(
      'axios-safe-retry: http://api.test rate limited; retry in 30000 ms',
    );
    expect(Date.now()).toBe(later);
    expect(mock.history.get).toHaveLength(1);
  });

  it("probes a hold of this client's whose end another moved (its start kept), as another's: a call is not failed for a month", async () => {
    // A store that reports a write of another process: the state this client left, its hold's
    // end a month on.
    const kept = new Map<string, SharedScope>();
    let report: (key: string, state: SharedScope) => void = () => {};
    const store: LoadControlStore = {
      ...memoryStore(),
      update: (key: string, current: SharedScope, change: ScopeChange) => {
        const next = change(current);
        kept.set(key, next);
        return next;
      },
      watch: (listener) => {
        report = listener;
        return () => {};
      },
    };
    const { client, mock } = mockClient({ ...OPTIONS, retries: 0, store });
    mock
      .onGet('/items')
      .replyOnce(429, '', { 'retry-after': '3' })
      .onGet('/items')
      .reply(200, 'ok');
    await settle(client.get('/items'));
    // The route's hold: the 429 named no quota the origin shares.
    const route = `${O}/items`;
    const own = kept.get(route) as SharedScope;
    expect(own.pace.holdUntil).toBeGreaterThan(Date.now());
    report(route, {
      ...own,
      version: own.version + 1,
      pace: { ...own.pace, holdUntil: own.pace.heldAt + MONTH_MS },
    });
    jest.advanceTimersByTime(1000);
    // Within the hold this client set (3 s), its probe is due a second after the hold began:
    // it goes, its success ends the hold.
    const later = Date.now();
    const outcome = await settle(client.get('/items'));
    expect(outcome.value?.data).toBe('ok');
    expect(Date.now()).toBe(later);
    expect(mock.history.get).toHaveLength(2);
  });
});
