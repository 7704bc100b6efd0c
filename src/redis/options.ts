/**
 * `createRedisStore`'s options (`RedisStoreOptions`): their rules and defaults, declared once
 * (the TSDoc `@default` lines are held to them by a test).
 */
export const REDIS_SCHEMA = {
  prefix: [
    (v: unknown) => typeof v === 'string' && v !== '',
    'a non-empty string',
    'axios-safe-retry',
  ],
  stateTtlMs: [
    (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 1000,
    'an integer in [1000, ∞)',
    600_000,
  ],
  timeoutMs: [
    (v: unknown) => typeof v === 'number' && v > 0 && v <= 60_000,
    'a number in (0, 60000]',
    50,
  ],
} as const;
