import type { LoadControlStore } from '../contract/store';
import { now as clockNow } from '../runtime/clock';

/**
 * Now on the store's clock: the one clock of load control. Shared times (holds, breaks) are the
 * store's, so that clients on different machines agree on them; this process's clock
 * (`clock.ts`) is read only here and at the load control's methods, which take times on it.
 */
export const storeNow = (store: LoadControlStore): number => clockNow() + store.clockOffset();

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
