export interface BackoffSettings {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** The ceiling of retry `n` (1 for the first retry): `min(maxDelayMs, baseDelayMs * 2 ** (n - 1))`. */
export const backoffCeiling = (retryNumber: number, settings: BackoffSettings): number =>
  // 2 ** 1100 is Infinity, and Infinity * 0 is NaN: cap the exponent before it gets there.
  Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** Math.min(retryNumber - 1, 1023));

/**
 * Full jitter: a delay drawn uniformly over `[0, ceiling)`, so clients that failed together
 * come back spread over the whole interval instead of in one wave.
 */
export const fullJitterDelay = (
  retryNumber: number,
  settings: BackoffSettings,
  random: () => number,
): number => random() * backoffCeiling(retryNumber, settings);
