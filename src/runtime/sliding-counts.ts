/** Counts of a few kinds of event (`kind`: 0 to `kinds` − 1) over a sliding window of time. */
export interface SlidingCounts {
  add(now: number, kind: number): void;
  /** The count of `kind` over the window that ends at `now`. */
  sum(now: number, kind: number): number;
  clear(): void;
}

// A ring of windowMs / 10 slots, plus one (11, written as a number: a bundle keeps a named
// constant as a variable): memory stays the same however long a client lives, and a count leaves
// the window between windowMs and 1.1 × windowMs after it was made, never early. When the clock
// steps backwards, counts go to the latest slot.
export function createSlidingCounts(windowMs: number, kinds: number): SlidingCounts {
  const slotMs = windowMs / 10;
  const slots = Array.from({ length: 11 }, () => new Array<number>(kinds).fill(0));
  /** The counts of slot `s` (a negative one too: a clock may read before 1970). */
  const at = (s: number): number[] => slots[((s % 11) + 11) % 11] as number[];
  let current = -Infinity;

  /** Moves the ring to `now`, emptying the slots that fell out of the window. */
  function advance(now: number): number[] {
    const slot = Math.floor(now / slotMs);
    for (let s = Math.max(current + 1, slot - 10); s <= slot; s++) at(s).fill(0);
    current = Math.max(current, slot);
    return at(current);
  }

  return {
    add(now, kind) {
      (advance(now)[kind] as number)++;
    },
    sum(now, kind) {
      advance(now);
      return slots.reduce((total, counts) => total + (counts[kind] as number), 0);
    },
    clear() {
      for (const counts of slots) counts.fill(0);
    },
  };
}
