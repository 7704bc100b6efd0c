import { failureIn } from '../helpers/failure';
import { mockClient, settle } from '../helpers/mock-client';

// Issue 13, item 11: a paced or released attempt is sent only if enough of the deadline is left
// to be useful — at least max(50 ms, the origin's recent typical latency). Otherwise the call
// fails at once with ERR_RATE_LIMITED and stopReason 'deadline', sending nothing: a keyed POST
// sent with no time left is an attempt the server may perform while the client cannot learn
// the outcome. With a mock adapter and fake timers.

beforeEach(() => {
  jest.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  jest.useRealTimers();
});

/** A client whose origin said, with its first response, that its quota of 2 s resets in 2 s. */
async function heldFor2s() {
  const made = mockClient({ retries: 3 });
  made.mock
    .onAny('/items')
    .replyOnce(200, 'first', {
      ratelimit: 'limit=1, remaining=0, reset=2',
      'ratelimit-policy': '1;w=2',
    })
    .onAny('/items')
    .reply(200, 'ok');
  const { value } = await settle(made.client.get('/items'));
  expect(value?.data).toBe('first');
  return { ...made, heldAt: Date.now() };
}

it.each([
  ['GET', 2010],
  ['GET', 2040],
  ['POST with an idempotency key', 2010],
])(
  'a %s whose slot comes at 2000 ms with a deadline of %d ms is not sent: ERR_RATE_LIMITED, deadline',
  async (kind, deadlineMs) => {
    const { client, mock, heldAt } = await heldFor2s();
    const call =
      kind === 'GET'
        ? client.get('/items', { retry: { deadlineMs } })
        : client.post('/items', { amount: 1 }, { retry: { deadlineMs, idempotencyKey: true } });
    const error = failureIn(await settle(call));
    expect(error.code).toBe('ERR_RATE_LIMITED');
    expect(error.response).toBeUndefined();
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    // Nothing but the first call was ever sent.
    expect(mock.history.get.length + mock.history.post.length).toBe(1);
    // At once: before the slot, not at it.
    expect(Date.now() - heldAt).toBeLessThan(2000);
  },
);

it('the same slot with time to spare (deadline 2500 ms) is used: sent at the reset, and it succeeds', async () => {
  const { client, mock, heldAt } = await heldFor2s();
  const { value } = await settle(client.get('/items', { retry: { deadlineMs: 2500 } }));
  expect(value?.data).toBe('ok');
  expect(mock.history.get).toHaveLength(2);
  expect(Date.now() - heldAt).toBeGreaterThanOrEqual(1990);
  expect(Date.now() - heldAt).toBeLessThan(2500);
});
