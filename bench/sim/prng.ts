/** mulberry32: a tiny seeded PRNG with a period of 2^32, good enough for jitter. Returns [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs `body` with `Math.random` replaced by `random`, so peers that draw jitter from
 * `Math.random` (axios-retry, retry-axios) are as reproducible as our injected `random`.
 */
export async function withMathRandom<T>(random: () => number, body: () => Promise<T>): Promise<T> {
  const original = Math.random;
  Math.random = random;
  try {
    return await body();
  } finally {
    Math.random = original;
  }
}
