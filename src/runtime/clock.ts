/**
 * Milliseconds on a monotonic clock (`performance.now()`), offset once so that its readings look
 * like `Date.now()`'s. Every duration load control and deadlines measure is read here: a wall
 * clock that steps (NTP, a VM resumed) would otherwise hold a breaker open, or cut a deadline
 * short, for as long as the step. The wall clock is read only against HTTP dates.
 */
let offset: number | undefined;

export function now(): number {
  const performance = (globalThis as { performance?: { now(): number } }).performance;
  if (!performance) return Date.now();
  offset ??= Date.now() - performance.now();
  return performance.now() + offset;
}
