/**
 * Milliseconds on a monotonic clock (`performance.now()`), offset so that its readings look like
 * `Date.now()`'s. Every duration load control and deadlines measure is read here: a wall clock
 * that steps (NTP, a VM resumed) would otherwise hold a breaker open, or cut a deadline short,
 * for as long as the step. The wall clock is read only against HTTP dates.
 *
 * Under fake timers it follows the clock the test faked. The offset is taken again whenever
 * `performance.now` is swapped (fake timers installed or removed), so `retryState.startedAt`
 * reads like the faked `Date.now()`. And while `Date` is faked but `performance` is not (sinon's
 * `toFake: ['setTimeout', 'clearTimeout', 'Date']`), it reads `Date.now()`, which then moves with
 * the fake timers. (A `Date.now` swapped by hand, with no fake clock behind it, is a wall clock
 * that steps: it changes nothing.)
 */
type Performance = { now(): number } | undefined;
/** A `Date` faked by @sinonjs/fake-timers (Jest's modern timers, vitest's) carries its clock. */
type FakeDate = { clock?: { performance?: Performance } };

let performanceNow: unknown;
let offset = 0;

export function now(): number {
  const performance = (globalThis as { performance?: Performance }).performance;
  const fake = (Date as FakeDate).clock;
  if (!performance || (fake && performance.now !== fake.performance?.now)) return Date.now();
  if (performance.now !== performanceNow) {
    performanceNow = performance.now;
    offset = Date.now() - performance.now();
  }
  return performance.now() + offset;
}
