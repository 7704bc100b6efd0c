import { startPresence } from '../../src/redis/presence';
import { type Link, UNANSWERED } from '../../src/redis/scripts';

// The count of clients sharing a store, between heartbeats: pure bookkeeping, with a link that
// answers as told (the heartbeat against a real redis-server is in redis-store.test.ts).

function presence(answer: unknown, maxClients = 1000) {
  const link: Link = {
    command: async () => 'OK',
    script: async () => answer,
  };
  return startPresence(link, { setKey: 'clients', client: 'me', maxClients });
}

describe('presence', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('counts the clients heard of since the last heartbeat: a fleet that starts together knows its size at its first change', async () => {
    const p = presence(UNANSWERED);
    await Promise.resolve();
    expect(p.clients()).toBe(1);
    p.heard('a');
    p.heard('b');
    p.heard('a');
    expect(p.clients()).toBe(3);
    await p.stop();
  });

  it('forgets a client not heard of for 3 s, and never counts fewer than the heartbeat said', async () => {
    const p = presence([5, '1700000000', '0']);
    await jest.advanceTimersByTimeAsync(0);
    expect(p.clients()).toBe(5);
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) p.heard(id);
    expect(p.clients()).toBe(7);
    jest.setSystemTime(Date.now() + 3001);
    await jest.advanceTimersByTimeAsync(3001);
    expect(p.clients()).toBe(5);
    await p.stop();
  });

  it('counts no more than maxClients, whatever the set or the channel say (issue 22)', async () => {
    const p = presence([100_000, '1700000000', '0'], 50);
    await jest.advanceTimersByTimeAsync(0);
    expect(p.clients()).toBe(50);
    const q = presence(UNANSWERED, 50);
    for (let i = 0; i < 10_000; i++) q.heard(`fake-${i}`);
    expect(q.clients()).toBe(50);
    await p.stop();
    await q.stop();
  });
});
