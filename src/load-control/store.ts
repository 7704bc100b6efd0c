import type { LoadControlStore } from '../contract/store';

/** The default: the state lives in this process only, and nothing is shared. */
export function memoryStore(): LoadControlStore {
  const leased = new Set<string>();
  return {
    clockOffset: () => 0,
    update: (_key, current, change) => change(current),
    latest: () => undefined,
    watch: () => () => {},
    lease: (key) => !leased.has(key) && !!leased.add(key),
    unlease: (key) => void leased.delete(key),
    clients: () => 1,
  };
}
