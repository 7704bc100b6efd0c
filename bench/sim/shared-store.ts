import type { LoadControlStore, SharedScope } from '../../src';

/**
 * A store shared by the clients of one simulation, as a remote store would be with no failure:
 * each change is made at once on the latest state, counted as a version, and told to every client
 * `delayMs` later (a publish on a channel). `clients()` counts the handles made.
 */
export function sharedStoreHub(delayMs = 2): () => LoadControlStore {
  const states = new Map<string, SharedScope>();
  const leases = new Map<string, number>();
  const listeners = new Set<(key: string, state: SharedScope) => void>();
  let clients = 0;
  return () => {
    clients += 1;
    return {
      clockOffset: () => 0,
      update(key, current, change) {
        const latest = states.get(key) ?? current;
        const next = { ...change(latest), version: latest.version + 1 };
        states.set(key, next);
        setTimeout(() => {
          for (const listener of listeners) listener(key, next);
        }, delayMs);
        return next;
      },
      latest: (key) => states.get(key),
      watch(listener) {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
      lease(key, ttlMs) {
        const until = leases.get(key) ?? 0;
        if (Date.now() < until) return false;
        leases.set(key, Date.now() + ttlMs);
        return true;
      },
      unlease: (key) => void leases.delete(key),
      clients: () => clients,
    };
  };
}
