import { install } from '@sinonjs/fake-timers';

/** Virtual time starts here (2026-01-01T00:00:00Z), so `Date` looks like a real date. */
export const VIRTUAL_EPOCH = Date.UTC(2026, 0, 1);

/**
 * Runs `body` on a fake clock installed on the global object: `setTimeout`, `setInterval`,
 * `Date` and `performance.now()` are virtual, so axios-retry, retry-axios and our sleeps all
 * wait in virtual time, and our monotonic clock (read from `performance.now()`) runs with them.
 * `setImmediate` and microtasks stay real: the driver yields through them after each timer,
 * so every promise chain a timer starts settles before the next timer fires.
 */
export async function runInVirtualTime<T>(body: () => Promise<T>): Promise<T> {
  const clock = install({
    now: VIRTUAL_EPOCH,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
    loopLimit: 10_000_000,
  });
  try {
    let outcome: { value: T } | { error: unknown } | undefined;
    body().then(
      (value) => {
        outcome = { value };
      },
      (error: unknown) => {
        outcome = { error };
      },
    );
    while (outcome === undefined) {
      if (clock.countTimers() === 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (outcome === undefined && clock.countTimers() === 0) {
          throw new Error('simulation stalled: no timers left and the scenario has not settled');
        }
        continue;
      }
      await clock.nextAsync();
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  } finally {
    clock.uninstall();
  }
}

/** Milliseconds of virtual time since the simulation started. */
export function virtualNow(): number {
  return Date.now() - VIRTUAL_EPOCH;
}

/** Waits `ms` on whatever clock is installed. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
