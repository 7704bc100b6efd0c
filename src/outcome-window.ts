/** Successes and failures of one origin over a sliding window. */
export interface OutcomeCounts {
  readonly successes: number;
  readonly failures: number;
  /** How much of the window the counts cover: `windowMs`, or less if the origin is newer. */
  readonly spanMs: number;
}

export interface OutcomeWindow {
  add(now: number, failed: boolean): void;
  counts(now: number): OutcomeCounts;
  /** Forgets every count (a breaker that closes starts afresh). */
  clear(now: number): void;
}

// A ring of windowMs / 10 slots, as in the retry budget: memory stays the same however long a
// client lives, and a count leaves the window between windowMs and 1.1 × windowMs after it was made.
const SLOTS = 10;
const ring = (slot: number): number => ((slot % (SLOTS + 1)) + SLOTS + 1) % (SLOTS + 1);

export function createOutcomeWindow(windowMs: number): OutcomeWindow {
  const slotMs = windowMs / SLOTS;
  const successes = new Array<number>(SLOTS + 1).fill(0);
  const failures = new Array<number>(SLOTS + 1).fill(0);
  let currentSlot = -Infinity;
  let since = Infinity;

  function advance(now: number): number {
    const slot = Math.floor(now / slotMs);
    for (let s = Math.max(currentSlot + 1, slot - SLOTS); s <= slot; s++) {
      const index = ring(s);
      successes[index] = 0;
      failures[index] = 0;
    }
    currentSlot = Math.max(currentSlot, slot);
    return ring(currentSlot);
  }

  const sum = (counts: number[]): number => counts.reduce((total, count) => total + count, 0);

  return {
    add(now, failed) {
      const index = advance(now);
      since = Math.min(since, now);
      const counts = failed ? failures : successes;
      counts[index] = (counts[index] ?? 0) + 1;
    },
    counts(now) {
      advance(now);
      return {
        successes: sum(successes),
        failures: sum(failures),
        spanMs: Math.min(windowMs, Math.max(0, now - since)),
      };
    },
    clear(now) {
      successes.fill(0);
      failures.fill(0);
      since = now;
    },
  };
}
