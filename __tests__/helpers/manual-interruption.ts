import type { Interruption } from '../../src/runtime/sleep';

/** An interruption the test fires by hand, counting its live listeners. */
export function manualInterruption() {
  const listeners = new Set<() => void>();
  const interruption: Interruption = {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const fire = (): void => {
    for (const listener of [...listeners]) listener();
  };
  return { interruption, fire, listeners };
}
