/** The longest delay a timer holds (2³¹−1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `setTimeout` for any delay: one longer than a runtime timer can hold is chained from timers
 * that it can. Returns the function that clears whichever timer is pending.
 */
export function setLongTimeout(callback: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout>;
  const schedule = (left: number): void => {
    timer = setTimeout(
      () => (left > MAX_TIMER_MS ? schedule(left - MAX_TIMER_MS) : callback()),
      Math.min(left, MAX_TIMER_MS),
    );
  };
  schedule(ms);
  return () => clearTimeout(timer);
}
