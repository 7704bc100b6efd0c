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

let dateNow: unknown;
let performanceNow: unknown = now;
let offset = 0;
let followDate = false;

export function now(): number {
  const performance = (globalThis as { performance?: Performance }).performance;
  if (Date.now !== dateNow || performance?.now !== performanceNow) {
    dateNow = Date.now;
    const fake = (Date as FakeDate).clock;
    followDate = !performance || (!!fake && performance.now !== fake.performance?.now);
    if (performance && performance.now !== performanceNow) {
      offset = Date.now() - performance.now();
      performanceNow = performance.now;
    }
  }
  return followDate ? Date.now() : (performance as { now(): number }).now() + offset;
}
